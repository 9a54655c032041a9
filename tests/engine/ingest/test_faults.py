"""Ingest under faults: a killed parent, a crashed worker, a renamed or copied recording."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import psutil
import pytest

from engine.asr.base import ModelSpec
from engine.ingest import IngestJob
from engine.jobs import JobState
from engine.storage.store import Store
from tests.fixtures.audio import espeak, sox
from tests.fixtures.ingest import start_ingest, start_job_thread

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def long_wav(tmp_path_factory: pytest.TempPathFactory, librivox: dict[Path, str]) -> Path:
    out = tmp_path_factory.mktemp("long") / "long.wav"
    sox(*[str(p) for p in librivox] * 6, str(out))
    return out


def test_workers_exit_when_the_ingest_process_is_killed(
    tmp_path: Path, long_wav: Path, whisper_model: ModelSpec
) -> None:
    db = tmp_path / "lib.sqlite"
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = start_ingest(tmp_path, long_wav, db, whisper_model, env={**os.environ, "TMPDIR": str(temp)})
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
        workers = [c for c in children if "spawn_main" in " ".join(c.cmdline())]
        assert workers, "no recognition worker found"
        os.kill(proc.pid, signal.SIGKILL)  # only the main process, as `kill -9 PID` does
        proc.wait(30)
        _gone, alive = psutil.wait_procs(workers, timeout=30)
        assert alive == [], f"workers outlived their ingest: {[p.pid for p in alive]}"
        assert not list(temp.glob("earshot-side-*")), "a worker left its scratch folder behind"
    finally:
        with contextlib.suppress(ProcessLookupError):  # the resource tracker may still be there
            os.killpg(proc.pid, signal.SIGKILL)


def _cmdline(process: psutil.Process) -> list[str]:
    """A child's command line; empty for one that has exited (another test's process not yet reaped)."""
    try:
        return process.cmdline()
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return []


def test_a_crashed_worker_names_the_file(tmp_path: Path, long_wav: Path, whisper_model: ModelSpec) -> None:
    _job, thread, result = start_job_thread([long_wav], tmp_path / "lib.sqlite", whisper_model)
    workers = [c for c in psutil.Process().children() if "spawn_main" in " ".join(_cmdline(c))]
    for w in workers:
        w.send_signal(signal.SIGSEGV)
    thread.join(60)
    assert result[0].state is JobState.FAILED
    assert result[0].message.startswith(f"{long_wav}: the recogniser process stopped unexpectedly"), result[0].message


def test_the_same_recording_under_a_new_name_is_recognised_by_its_content(
    tmp_path: Path, whisper_model: ModelSpec
) -> None:
    db = tmp_path / "lib.sqlite"
    first = espeak("The council approved the budget for the new hospital.", tmp_path / "council.wav")
    [done] = IngestJob([first], db_path=db, spec=whisper_model).run()
    assert done.state is JobState.DONE
    copy = tmp_path / "copy of council.wav"
    copy.write_bytes(first.read_bytes())
    [again] = IngestJob([copy], db_path=db, spec=whisper_model).run()
    assert again.state is JobState.SKIPPED
    assert again.message == f"{copy}: same content as {first}, already indexed (recording {done.recording_id})"
    moved = tmp_path / "renamed.wav"
    first.rename(moved)
    copy.unlink()
    [renamed] = IngestJob([moved], db_path=db, spec=whisper_model).run()
    assert renamed.state is JobState.SKIPPED and renamed.recording_id == done.recording_id
    assert renamed.message == f"{moved}: moved from {first}; the index now points here (recording {done.recording_id})"
    store = Store(db)
    assert [(r["path"], r["name"]) for r in store.recordings()] == [(str(moved), "renamed.wav")]
