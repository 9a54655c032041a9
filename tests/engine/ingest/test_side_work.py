"""The detectors and the diarizer in a side process: the same analysis as on the worker's own thread,
and the worker does the work itself when the process is gone or stopped. Real audio, real models,
a real process on a real pipe."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import config
from engine.asr.base import ModelSpec
from engine.asr.loader import load_transcriber
from engine.audio.decode import AudioInfo, probe
from engine.detect.sensitivities import DetectorSettings
from engine.errors import AudioError, Cancelled, ModelError
from engine.ingest.pool import WorkerPool, start_side_process
from engine.ingest.results import Transcript
from engine.ingest.side_work import SideWork, _give_up
from engine.ingest.transcribe import transcribe_file
from engine.jobs import CancelToken
from models.speakers import speaker_model_files

pytestmark = pytest.mark.slow  # Whisper, the detectors and the speaker networks over 40 s of audio, several times


@pytest.fixture(scope="module")
def two_voices(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        speaker_model_files()
    except ModelError as error:
        pytest.skip(str(error))
    from tools.voice_broadcast import build, write
    from tools.voices import VoiceUnavailable

    try:
        show = build(("carlo", "menardi"), minutes=0.7, seed=5)
    except VoiceUnavailable as error:
        pytest.skip(str(error))
    wav = tmp_path_factory.mktemp("side") / "two_voices.wav"
    write(show, wav)
    return wav


@pytest.fixture(scope="module")
def transcriber(whisper_base_model: ModelSpec) -> Any:
    return load_transcriber(whisper_base_model)  # the voices speak Italian


@pytest.fixture(scope="module")
def on_this_thread(two_voices: Path, transcriber: Any) -> Transcript:
    return transcribe_file(probe(two_voices), transcriber)


@pytest.fixture
def side() -> Iterator[tuple[SideWork, Any]]:
    """A side process started as the pool starts one, and the worker's end of its pipe."""
    here, proc = start_side_process(mp.get_context("spawn"))
    yield SideWork(here), proc
    if proc.is_alive():
        os.kill(proc.pid, signal.SIGCONT)  # a test may have stopped it
        proc.kill()
    proc.join(5)


@pytest.fixture(autouse=True)
def _every_file_is_long(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "SIDE_PROCESS_MIN_SECONDS", 0.0)


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker waits for the side process however busy the machine is (its pace is not on test here)."""
    monkeypatch.setattr(config, "SIDE_PATIENCE_SECONDS", 600.0)


def _same(a: Transcript, b: Transcript) -> None:
    assert [(w.start, w.end, w.text) for w in a.words] == [(w.start, w.end, w.text) for w in b.words]
    assert a.analysis.events == b.analysis.events
    assert a.analysis.x_duration == b.analysis.x_duration
    assert a.analysis.transcribed == b.analysis.transcribed
    assert a.analysis.stories == b.analysis.stories
    assert a.analysis.speakers == b.analysis.speakers


def test_the_side_process_finds_what_the_thread_finds(
    two_voices: Path, transcriber: Any, on_this_thread: Transcript, side: tuple[SideWork, Any], patient: None
) -> None:
    work, _proc = side
    assert len(on_this_thread.analysis.speakers.speakers) >= 2  # the comparison below has turns to compare
    beside = transcribe_file(probe(two_voices), transcriber, side=work)
    assert work.usable
    assert beside.times.speakers_cpu > 0 and beside.times.detect > 0
    _same(beside, on_this_thread)
    # The process takes the next file too.
    again = transcribe_file(probe(two_voices), transcriber, side=work)
    assert work.usable
    _same(again, on_this_thread)


def test_a_stopped_side_process_is_given_up_and_the_worker_hears_the_file(
    two_voices: Path, transcriber: Any, on_this_thread: Transcript, side: tuple[SideWork, Any]
) -> None:
    work, proc = side
    os.kill(proc.pid, signal.SIGSTOP)  # as starved as a process can be
    beside = transcribe_file(probe(two_voices), transcriber, side=work)
    assert not work.usable
    _same(beside, on_this_thread)
    # Later files are heard on the worker's thread without asking the process again.
    assert work.start(probe(two_voices), DetectorSettings(), sr=16000, speakers=True) is None


def test_a_dead_side_process_is_given_up_and_the_worker_hears_the_file(
    two_voices: Path, transcriber: Any, on_this_thread: Transcript, side: tuple[SideWork, Any]
) -> None:
    work, proc = side
    proc.kill()
    proc.join(5)
    beside = transcribe_file(probe(two_voices), transcriber, side=work)
    assert not work.usable
    _same(beside, on_this_thread)


def test_what_the_side_process_cannot_read_is_the_files_error(
    tmp_path: Path, side: tuple[SideWork, Any], patient: None
) -> None:
    work, _proc = side
    gone = AudioInfo(path=str(tmp_path / "gone.wav"), size_bytes=1_920_044, duration=60.0, sample_rate=16000,
                     channels=1, codec="pcm_s16le", container="wav")
    task = work.start(gone, DetectorSettings(), sr=16000, speakers=False)
    assert task is not None
    with pytest.raises(AudioError, match=r"gone\.wav: file not found"):
        work.wait(task, cancel=CancelToken())
    assert work.usable  # one file's error, not the process's
    assert not Path(task.folder).exists()


def test_a_cancel_while_waiting_is_passed_on(two_voices: Path, side: tuple[SideWork, Any]) -> None:
    work, proc = side
    os.kill(proc.pid, signal.SIGSTOP)
    task = work.start(probe(two_voices), DetectorSettings(), sr=16000, speakers=True)
    assert task is not None
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        work.wait(task, cancel=cancel)
    assert not Path(task.folder).exists()


@pytest.mark.parametrize(("left", "gained", "waited", "here", "give_up"), [
    (300.0, 0.0, 1.0, 0.5, False),  # patience first
    (300.0, 0.0, 5.0, 13.0, False),  # no pace yet: wait as long as the work would take here
    (300.0, 0.0, 14.0, 13.0, True),
    (300.0, 150.0, 3.0, 13.0, False),  # 6 s more at its pace, sooner than 13 s here
    (300.0, 20.0, 3.0, 13.0, True),  # 45 s more at its pace
    (0.0, 0.0, 12.0, 13.0, False),  # only its last steps left
    (0.0, 0.0, 14.0, 13.0, True),
])
def test_the_wait_is_given_up_only_when_doing_the_work_here_is_sooner(
    left: float, gained: float, waited: float, here: float, give_up: bool
) -> None:
    assert _give_up(left, gained, waited, here) is give_up


def test_one_worker_gets_a_side_process_and_two_do_not(whisper_model: ModelSpec) -> None:
    with WorkerPool(whisper_model, 1) as one:
        [worker] = one._workers.values()
        assert worker.side is not None and worker.side.is_alive()
        side = worker.side
    assert not side.is_alive()
    with WorkerPool(whisper_model, 2) as two:
        assert all(w.side is None for w in two._workers.values())


def test_the_pool_removes_what_a_killed_worker_leaves(whisper_model: ModelSpec, two_voices: Path) -> None:
    with WorkerPool(whisper_model, 1) as pool:
        [worker] = pool._workers.values()
        scratch = Path(worker.scratch)
        assert scratch.is_dir()
        (scratch / "earshot-side-left").mkdir()  # as a worker killed mid-file leaves its file's folder
        pool.submit(worker.wid, 1, probe(two_voices))
        assert pool.cancel_task(1)
        assert not scratch.exists()
        [fresh] = pool._workers.values()
        again = Path(fresh.scratch)
        assert again.is_dir() and again != scratch
    assert not again.exists()
