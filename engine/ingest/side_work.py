"""The detectors' and the diarizer's pass over a long file, in a low-priority process beside its worker.

On two cores, Whisper's two threads leave about a quarter of the machine idle in gaps of a few
milliseconds. A thread of the worker's own that hears the blocks beside recognition runs into those
gaps at the recognisers' priority and keeps a core a moment after a recogniser thread wakes, which
holds both of them up (about 3 s on a 10-minute file, a 6 % longer ingest); niced, it still holds
the interpreter lock the recogniser's thread waits for. A process of its own at ``config.SIDE_NICE``
has neither problem: the scheduler gives it the idle gaps and takes them back the moment a
recogniser thread wants its core.

The pool starts one such process per worker when it runs a single worker (with two or more, no core
idles and a niced process would only wait). It decodes the file itself (a second decode costs about
0.5 % of the CPU of recognition), feeds the detectors' feature extractor and the diarizer, and
hands back the features (as ``.npy`` files that the worker maps, so they never fill its heap) and
the diarization. Its messages are the dataclasses below, on a duplex pipe.

A niced process waits as long as something of normal priority keeps both cores busy. So once
recognition has ended the worker waits for it only while it would finish sooner than the worker
doing the same work itself; otherwise (and if the process has died) :meth:`SideWork.wait` returns
None, the worker does the work itself, and it stops using the process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import config
from engine.jobs import CancelToken

if TYPE_CHECKING:  # the side process lowers its priority before it imports NumPy and the detectors
    from engine.audio.decode import AudioInfo
    from engine.detect.features import FrameFeatures
    from engine.detect.sensitivities import DetectorSettings
    from engine.speakers.diarize import Diarization

log = logging.getLogger("earshot.ingest")


@dataclass(frozen=True)
class SideTask:
    """Worker to side process: hear ``path`` and write its features into ``folder``."""

    task_id: int
    path: str
    duration: float
    sr: int
    settings: DetectorSettings
    speakers: bool
    folder: str


@dataclass(frozen=True)
class SideCancel:
    """Worker to side process: stop hearing task ``task_id`` (the worker no longer waits for it)."""

    task_id: int


@dataclass(frozen=True)
class SideProgress:
    """Side process to worker: seconds of audio heard so far, and the CPU seconds that took."""

    task_id: int
    seconds: float
    cpu_seconds: float


@dataclass(frozen=True)
class SideDone:
    """Side process to worker: the features are in the task's folder (``meta``: their scalars and
    array names), with the diarization (None without speaker turns or speaker models) and the wall
    and CPU seconds of the detectors' and the diarizer's parts."""

    task_id: int
    meta: dict[str, Any]
    diarization: Diarization | None
    detect_seconds: float
    speakers_seconds: float
    speakers_cpu_seconds: float


@dataclass(frozen=True)
class SideFailed:
    """Side process to worker: hearing the task raised ``error`` (an EarshotError the worker raises)."""

    task_id: int
    error: BaseException


@dataclass(frozen=True)
class Heard:
    """A file's side work: its features, its diarization (None without speaker turns or speaker
    models) and the wall and CPU seconds the detectors' and the diarizer's parts took."""

    features: FrameFeatures
    diarization: Diarization | None
    detect_seconds: float
    speakers_seconds: float
    speakers_cpu_seconds: float


def hear_file(path: str, *, sr: int, duration: float, settings: DetectorSettings, speakers: bool,
              cancel: CancelToken, on_progress: Callable[[float, float], None] | None = None) -> Heard:
    """Decode ``path`` once through the feature extractor and, with ``speakers``, the diarizer: what
    the side process does, and the worker when it has given the process up. ``duration``: the probed
    length (s); ``on_progress(seconds_done, seconds_total)`` after each block. Raises AudioError and
    Cancelled."""
    from engine.audio.decode import iter_pcm_blocks
    from engine.detect.analyzer import feature_extractor
    from engine.detect.audio_pass import FeedingBlocks
    from engine.ingest.speaker_pass import optional_speaker_stream

    extractor = feature_extractor(sr=sr, settings=settings)
    stream = optional_speaker_stream(duration) if speakers else None
    blocks = FeedingBlocks(iter_pcm_blocks(path, sr=sr), sr=sr, total_seconds=duration,
                           on_progress=on_progress or (lambda done, total: None), cancel=cancel,
                           extractor=extractor, listener=stream)  # fmt: skip
    for _ in blocks:
        pass
    t0 = time.perf_counter()
    features = extractor.finish()
    detect = blocks.detect_seconds + time.perf_counter() - t0
    speak, speak_cpu = blocks.listener_seconds, blocks.listener_cpu_seconds
    diarization = None
    if stream is not None:
        t1, c1 = time.perf_counter(), time.thread_time()
        diarization = stream.finish(n_speakers=settings.speaker_count)
        speak += time.perf_counter() - t1
        speak_cpu += time.thread_time() - c1
    return Heard(features, diarization, detect, speak, speak_cpu)


def save_features(features: FrameFeatures, folder: Path) -> dict[str, Any]:
    """Write each array of ``features`` to ``folder/NAME.npy``; returns the scalars and array names."""
    import numpy as np

    meta: dict[str, Any] = {"arrays": []}
    for f in fields(features):
        value = getattr(features, f.name)
        if isinstance(value, np.ndarray):
            np.save(folder / f"{f.name}.npy", np.ascontiguousarray(value), allow_pickle=False)
            meta["arrays"].append(f.name)
        else:
            meta[f.name] = value
    return meta


def load_features(folder: Path, meta: dict[str, Any]) -> FrameFeatures:
    """The features :func:`save_features` wrote, each array mapped read-only from its file (the files
    may be deleted once this returns: the mappings keep them)."""
    import numpy as np

    from engine.detect.features import FrameFeatures

    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in meta["arrays"]}
    scalars = {k: v for k, v in meta.items() if k != "arrays"}
    return FrameFeatures(**arrays, **scalars)


class SideWork:
    """The worker's end of its side process (``conn``: a duplex multiprocessing connection); each file's
    features pass through a folder made in ``scratch`` (the pool's, removed when the worker is gone;
    None: the system's temporary folder)."""

    def __init__(self, conn: Any, scratch: str | None = None) -> None:
        self._conn = conn
        self._scratch = scratch
        self._next_id = 0
        self.usable = True

    def start(self, info: AudioInfo, settings: DetectorSettings, *, sr: int, speakers: bool) -> SideTask | None:
        """Ask the side process to hear ``info.path``; None when it cannot be asked (do the work here)."""
        if not self.usable:
            return None
        self._next_id += 1
        folder = tempfile.mkdtemp(prefix="earshot-side-", dir=self._scratch)
        task = SideTask(self._next_id, str(info.path), float(info.duration), sr, settings, speakers, folder)
        try:
            self._conn.send(task)
        except (OSError, ValueError) as error:
            self._give_up(task, f"the detectors' process is gone ({error})")
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return task

    def wait(self, task: SideTask, *, cancel: CancelToken) -> Heard | None:
        """Called once recognition has ended: the side process's result for ``task``, or None when
        it is gone or would take longer than the worker doing the work itself. Raises what hearing
        the file raised there, and Cancelled."""
        try:
            return self._wait(task, cancel=cancel)
        finally:
            shutil.rmtree(task.folder, ignore_errors=True)  # mapped arrays outlive their files

    def _wait(self, task: SideTask, *, cancel: CancelToken) -> Heard | None:
        heard = cpu = 0.0
        t_end: float | None = None  # when the messages queued during recognition had been read
        heard_at_end = 0.0
        while True:
            try:
                cancel.raise_if_cancelled()
            except BaseException:
                self._cancel(task)
                raise
            try:
                timeout = 0.0 if t_end is None else config.SIDE_POLL_SECONDS
                message = self._conn.recv() if self._conn.poll(timeout) else None
            except (EOFError, OSError) as error:
                self._give_up(task, f"the detectors' process is gone ({error or 'closed'})")
                return None
            if isinstance(message, SideProgress) and message.task_id == task.task_id:
                heard, cpu = message.seconds, message.cpu_seconds
            elif isinstance(message, SideDone) and message.task_id == task.task_id:
                features = load_features(Path(task.folder), message.meta)
                return Heard(features, message.diarization, message.detect_seconds, message.speakers_seconds,
                             message.speakers_cpu_seconds)  # fmt: skip
            elif isinstance(message, SideFailed) and message.task_id == task.task_id:
                raise message.error
            if t_end is None:
                if message is None:
                    t_end, heard_at_end = time.monotonic(), heard
                continue
            waited = time.monotonic() - t_end
            per_second = cpu / heard if heard >= config.SIDE_PROGRESS_SECONDS else config.SIDE_CPU_PER_SECOND
            if _give_up(max(0.0, task.duration - heard), heard - heard_at_end, waited, task.duration * per_second):
                self._give_up(task, f"the detectors' process is starved of CPU ({heard:.0f} of {task.duration:.0f} s "
                                    f"heard {waited:.1f} s after recognition ended)")  # fmt: skip
                return None

    def drop(self, task: SideTask) -> None:
        """The worker no longer wants ``task`` (recognition failed or was cancelled)."""
        self._cancel(task)
        shutil.rmtree(task.folder, ignore_errors=True)

    def _cancel(self, task: SideTask) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(SideCancel(task.task_id))

    def _give_up(self, task: SideTask, why: str) -> None:
        """Stop using the side process: it is gone, or cannot keep up on this machine now."""
        log.info("%s: the worker hears the files itself from now on", why)
        self._cancel(task)
        self.usable = False
        with contextlib.suppress(OSError):
            self._conn.close()


def _give_up(left: float, gained: float, waited: float, here: float) -> bool:
    """Whether to stop waiting for the side process ``waited`` seconds after recognition ended, with
    ``left`` seconds of audio still to hear, ``gained`` heard since recognition ended, and ``here``
    the seconds the worker would take to do the whole file's side work itself. It waits at least
    ``config.SIDE_PATIENCE_SECONDS``; then as long as its pace says it will finish sooner than
    ``here``; without a pace (it is starting, finishing, or starved) at most ``here``, so a wait
    given up never costs more than the work it waited for."""
    if waited < config.SIDE_PATIENCE_SECONDS:
        return False
    if left == 0.0 or gained <= 0.0:
        return waited > here
    return left * waited / gained > here


def serve_side(conn: Any) -> None:
    """Body of a side process: at ``config.SIDE_NICE``, hear each :class:`SideTask` from ``conn`` and
    answer with :class:`SideDone` or :class:`SideFailed`, until the worker's end is closed."""
    from engine.ingest.child import exit_with_parent, ignore_sigint

    with contextlib.suppress(OSError):
        os.nice(config.SIDE_NICE)
    ignore_sigint()
    exit_with_parent()
    from engine.heap import limit_arenas

    limit_arenas()
    _warm_up()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if isinstance(message, SideTask):
            reply: SideDone | SideFailed | None
            try:
                reply = _hear(message, conn)
            except (EOFError, OSError):
                return
            except Exception as exc:  # handed to the worker, which raises it for the file
                reply = SideFailed(message.task_id, _picklable(exc))
            if reply is not None:
                try:
                    conn.send(reply)
                except (OSError, ValueError):
                    return


def _picklable(exc: BaseException) -> BaseException:
    """``exc`` if it survives the pipe, else one with its message (an EarshotError stays one)."""
    import pickle

    from engine.errors import EarshotError

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return EarshotError(str(exc)) if isinstance(exc, EarshotError) else RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _warm_up() -> None:
    """Import and load what hearing a file needs, before the first file (in the idle time of the
    worker's own model load); a failure is left for the first file to report."""
    from engine.detect.analyzer import feature_extractor
    from engine.detect.sensitivities import DetectorSettings
    from engine.ingest.speaker_pass import optional_speaker_stream

    try:
        feature_extractor(sr=config.TARGET_SAMPLE_RATE, settings=DetectorSettings())
        optional_speaker_stream(0.0)
    except Exception:
        log.debug("side process warm-up failed", exc_info=True)


def _hear(task: SideTask, conn: Any) -> SideDone | None:
    """:func:`hear_file` for ``task``, its features written into the task's folder, with progress on
    ``conn``; None when the worker cancelled the task. Raises what hearing raises, EOFError when the
    worker's end is gone."""
    from engine.errors import Cancelled

    cancel = CancelToken()
    c0 = time.process_time()
    # at most about SIDE_PROGRESS_MESSAGES a file: they wait in the pipe (64 KB) until recognition ends
    every = max(config.SIDE_PROGRESS_SECONDS, task.duration / config.SIDE_PROGRESS_MESSAGES)
    last = [0.0]

    def progress(done: float, total: float) -> None:
        if conn.poll():
            message = conn.recv()
            if isinstance(message, SideCancel) and message.task_id == task.task_id:
                cancel.cancel()
        if done - last[0] >= every or done >= total:
            last[0] = done
            conn.send(SideProgress(task.task_id, done, time.process_time() - c0))

    try:
        heard = hear_file(task.path, sr=task.sr, duration=task.duration, settings=task.settings,
                          speakers=task.speakers, cancel=cancel, on_progress=progress)  # fmt: skip
    except Cancelled:
        return None
    meta = save_features(heard.features, Path(task.folder))
    return SideDone(task.task_id, meta, heard.diarization, heard.detect_seconds, heard.speakers_seconds,
                    heard.speakers_cpu_seconds)  # fmt: skip
