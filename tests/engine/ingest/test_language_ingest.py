"""The language heard is the language stored: real French and Spanish prompts through the real ingest job."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.asr.base import ModelSpec
from engine.ingest import IngestJob
from engine.jobs import JobState
from engine.search import search
from engine.storage.store import Store
from tools.language_clips import LanguageClip, language_clips
from tools.sound_clips import ClipsUnavailable

pytestmark = pytest.mark.slow  # Whisper base and tiny.en load and transcribe


def _clip(package: str) -> LanguageClip:
    try:
        return language_clips(package, count=2, seconds=15)[0]
    except ClipsUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def french() -> LanguageClip:
    """About 15 s of metropolitan French: Debian's asterisk-prompt-fr-armelle."""
    return _clip("asterisk-prompt-fr-armelle")


@pytest.fixture(scope="module")
def spanish() -> LanguageClip:
    """About 15 s of Colombian Spanish: Debian's asterisk-prompt-es-co."""
    return _clip("asterisk-prompt-es-co")


def test_base_transcribes_french_and_spanish_in_their_language(
        tmp_path: Path, whisper_base_model: ModelSpec, french: LanguageClip, spanish: LanguageClip) -> None:
    db = tmp_path / "lib.sqlite"
    outcomes = IngestJob([french.path, spanish.path], db_path=db, spec=whisper_base_model, workers=1).run()
    assert [o.state for o in outcomes] == [JobState.DONE, JobState.DONE], [o.message for o in outcomes]
    assert ", language fr" in outcomes[0].message and ", language es" in outcomes[1].message
    with Store(db) as store:
        fr, es = store.recording(french.path.name), store.recording(spanish.path.name)
        assert (fr["language"], es["language"]) == ("fr", "es")
        fr_words = {w["text"] for w in store.words(fr["id"])}
        es_words = {w["text"] for w in store.words(es["id"])}
        # Words of the language itself, not invented English.
        assert {"votre", "numéro"} & fr_words, fr_words
        assert {"su", "número", "agente"} & es_words, es_words
        hits = search(store, "numéro", limit=5)
        assert hits and hits[0].name == french.path.name


def test_tiny_en_refuses_french_in_one_line_and_indexes_nothing(
        tmp_path: Path, whisper_model: ModelSpec, whisper_base_model: ModelSpec, french: LanguageClip) -> None:
    db = tmp_path / "lib.sqlite"
    [outcome] = IngestJob([french.path], db_path=db, spec=whisper_model, workers=1).run()
    assert outcome.state is JobState.FAILED
    assert outcome.message.startswith(f"{french.path}: heard French (fr, p=")
    assert outcome.message.endswith("but whisper-tiny.en transcribes only English; choose the whisper-base model "
                                    "(earshot ingest --model whisper-base, or Settings > Models)")
    assert "\n" not in outcome.message
    with Store(db) as store:
        assert store.recordings() == []
