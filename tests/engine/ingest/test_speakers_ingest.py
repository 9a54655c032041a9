"""Speaker turns through a real ingest: real (Italian) voices, Whisper base, the diarizer, a real index file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.asr.base import ModelSpec
from engine.detect.sensitivities import DetectorSettings
from engine.errors import ModelError
from engine.evaluate.der import Turn, diarization_error, read_rttm
from engine.ingest import IngestJob
from engine.ingest.speaker_pass import recompute_speakers
from engine.jobs import JobState
from engine.storage.store import Store
from models.speakers import speaker_model_files
from tests.fixtures.audio import espeak

pytestmark = pytest.mark.slow  # Whisper and the speaker networks over 90 s of audio


@pytest.fixture(scope="module")
def speaker_files() -> object:
    try:
        return speaker_model_files()
    except ModelError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def two_voices(tmp_path_factory: pytest.TempPathFactory, speaker_files: object) -> tuple[Path, list[Turn]]:
    from tools.voice_broadcast import build, write
    from tools.voices import VoiceUnavailable

    try:
        show = build(("carlo", "menardi"), minutes=1.5, seed=3)
    except VoiceUnavailable as error:
        pytest.skip(str(error))
    wav = tmp_path_factory.mktemp("voices") / "two_voices.wav"
    rttm = write(show, wav)
    return wav, next(iter(read_rttm(rttm).values()))


def test_an_ingested_two_voice_broadcast_has_its_speakers_and_turns(
    tmp_path: Path, two_voices: tuple[Path, list[Turn]], whisper_base_model: ModelSpec
) -> None:
    wav, truth = two_voices
    db = tmp_path / "lib.sqlite"
    [outcome] = IngestJob([wav], db_path=db, spec=whisper_base_model).run()
    assert outcome.state is JobState.DONE, outcome.message
    assert outcome.times.speakers > 0
    with Store(db) as store:
        rid = store.recording(wav.name)["id"]
        speakers = store.speakers(rid)
        turns = [Turn(t["start"], t["end"], str(t["speaker"])) for t in store.turns(rid)]
        words = store.words(rid)
        assert len(speakers) >= 2 and store.recording(rid)["speakers_given"] is None
        assert diarization_error(truth, turns).der < 0.25
        assert sum(w["speaker"] is not None for w in words) >= 0.8 * len(words)
        # Found again from the audio as one speaker: one speaker, all turns and words are theirs.
        assert recompute_speakers(store, rid, n_speakers=1) == 1
        assert [s["label"] for s in store.speakers(rid)] == [1]
        assert {w["speaker"] for w in store.words(rid)} <= {1, None}
        assert store.recording(rid)["speakers_given"] == 1


def test_speaker_turns_can_be_switched_off(tmp_path: Path, whisper_base_model: ModelSpec, speaker_files: object) -> None:
    wav = espeak("The council approved the budget for the new hospital on Monday.", tmp_path / "council.wav")
    db = tmp_path / "lib.sqlite"
    [outcome] = IngestJob([wav], db_path=db, spec=whisper_base_model,
                          detector_settings=DetectorSettings(speaker_turns=False)).run()
    assert outcome.state is JobState.DONE, outcome.message
    with Store(db) as store:
        rid = store.recording("council.wav")["id"]
        assert store.speakers(rid) == [] and store.turns(rid) == []
        assert all(w["speaker"] is None for w in store.words(rid))
