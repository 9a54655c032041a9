"""``import`` with the recording beside the captions: the detectors run over it as at ingest."""

from __future__ import annotations

import importlib
import itertools
from pathlib import Path

import pytest

from engine.asr.loader import load_transcriber
from engine.audio.decode import probe
from engine.detect.rate import RATE_EVENT_TYPES
from engine.errors import Cancelled
from engine.importer import import_transcript
from engine.importer.save import caption_stories
from engine.ingest.transcribe import transcribe_file
from engine.jobs import CancelToken, JobReport
from engine.storage.store import Store, WordRow
from engine.timefmt import timestamp
from tools.broadcast import BroadcastTruth, build_broadcast
from tools.sound_clips import ClipsUnavailable

cli_main = importlib.import_module("engine.cli.main")

#: Stories in the broadcast: enough words each for the segmenter to cut between them.
N_STORIES = 6
#: Words a story boundary may miss the true one by.
BOUNDARY_SLACK_WORDS = 5
#: Words per cue of the captions written from the broadcast's truth.
CUE_WORDS = 7


def captions_of(truth: BroadcastTruth) -> str:
    """An SRT of the broadcast's words as spoken, ``CUE_WORDS`` words a cue, no story markers."""
    words = truth.words
    cues = [words[k : k + CUE_WORDS] for k in range(0, len(words), CUE_WORDS)]
    return "\n".join(f"{n}\n{timestamp(c[0].start)} --> {timestamp(c[-1].end)}\n{' '.join(w.text for w in c)}\n"
                     for n, c in enumerate(cues, 1))


@pytest.fixture(scope="module")
def broadcast(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, BroadcastTruth]:
    """A generated broadcast with music beds, noise, applause and laughter, its captions beside it, and its truth."""
    folder = tmp_path_factory.mktemp("import-audio")
    wav = folder / "bulletin.wav"
    try:
        truth = build_broadcast(wav, n_stories=N_STORIES, seed=17, applause=True, laughter=True)
    except ClipsUnavailable as exc:
        pytest.skip(f"real applause/laughter clips unavailable here: {exc}")
    srt = folder / "bulletin.srt"
    srt.write_text(captions_of(truth), encoding="utf-8")
    return srt, wav, truth


@pytest.fixture(scope="module")
def imported(broadcast: tuple[Path, Path, BroadcastTruth], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index holding the captions imported by the CLI, which finds the recording beside them."""
    db = tmp_path_factory.mktemp("import-index") / "lib.sqlite"
    assert cli_main.main(["--db", str(db), "import", str(broadcast[0])]) == 0
    return db


def _word_free(events: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """The events that do not depend on the words (the speech rate does): sounds and speech."""
    return sorted((kind, round(a, 3), round(b, 3)) for kind, a, b in events if kind not in RATE_EVENT_TYPES)


@pytest.mark.slow  # builds a broadcast and starts a recogniser
def test_import_with_audio_stores_the_events_ingest_stores(broadcast, imported, whisper_model) -> None:
    _, wav, _ = broadcast
    ingested = transcribe_file(probe(wav), load_transcriber(whisper_model))
    with Store(imported) as store:
        rec = store.recordings()[0]
        stored = [(e["type"], e["start"], e["end"]) for e in store.events(rec["id"])]
    assert rec["path"] == str(wav.resolve())
    expected = _word_free([(e.type, e.start, e.end) for e in ingested.analysis.events])
    assert {kind for kind, _, _ in expected} >= {"speech", "music"}
    assert _word_free(stored) == expected


@pytest.mark.slow  # builds a broadcast and runs the detectors over it
def test_import_with_audio_stores_x_duration_and_cuts_stories_with_it(broadcast, imported) -> None:
    """The captions mark no stories; the music and applause between them, as X-duration, cut them
    where the words alone do not."""
    truth: BroadcastTruth = broadcast[2]
    with Store(imported) as store:
        rec_id = store.recordings()[0]["id"]
        words = store.words(rec_id)
        starts = [s["first_word"] for s in store.stories(rec_id)]
    x_duration = [w["x_duration"] for w in words]
    assert None not in x_duration and all(x >= 0 for x in x_duration)
    assert all(w["transcribed"] is not None for w in words)

    def found(cuts: list[int]) -> int:
        return sum(any(abs(c - b) <= BOUNDARY_SLACK_WORDS for c in cuts) for b in truth.boundary_words)

    rows = [WordRow(w["start"], w["end"], w["conf"], w["text"]) for w in words]
    without = [s.first_word for s in caption_stories(rows)]
    assert found(starts) >= 3 and found(starts) > found(without), (truth.boundary_words, starts, without)


@pytest.mark.slow  # builds a broadcast
def test_a_cancelled_import_writes_nothing(broadcast, tmp_path: Path) -> None:
    srt, wav, _ = broadcast
    cancel = CancelToken()
    seen: list[tuple[float, float]] = []

    def progress(done: float, total: float) -> None:
        seen.append((done, total))
        if done > total / 2:
            cancel.cancel()

    with Store(tmp_path / "lib.sqlite") as store:
        with pytest.raises(Cancelled):
            import_transcript(store, srt, audio=wav, report=JobReport(progress=progress, cancel=cancel))
        assert store.recordings() == []
    assert seen and seen[-1][0] < seen[-1][1]  # it stopped part way through the audio
    assert all(b[0] > a[0] for a, b in itertools.pairwise(seen))
