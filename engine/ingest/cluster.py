"""Recognition on a Dask cluster: the workers transcribe, this process alone writes the index.

:class:`ClusterPool` has the shape of :class:`engine.ingest.pool.WorkerPool`, so
:class:`engine.ingest.IngestJob` drives it the same way: it skips unchanged files by content
hash, keeps a bounded number of files in flight, and writes each finished transcript in one
transaction as it arrives. A worker returns the compact result of one file (words, times,
detections, stories, entities), never audio.

A worker reads a file where it lies when it can see the same bytes there (shared storage);
otherwise this process sends the file's bytes once, straight to one worker (``scatter``), and
the worker decodes a private copy. A file whose worker dies is sent again, up to ``retries``
times, then reported. Dask is imported only here and only when a cluster is asked for, so
Earshot without the ``cluster`` extra (the standalone app) runs as before.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shutil
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import config
from engine.asr.base import ModelSpec, Transcriber
from engine.asr.loader import load_transcriber
from engine.audio.decode import AudioInfo, content_hash, probe
from engine.detect.sensitivities import DetectorSettings
from engine.errors import EarshotError, ParameterError
from engine.heap import limit_arenas
from engine.ingest.messages import Done, Failed, FailureReason, Progress, WorkerMessage
from engine.ingest.transcribe import transcribe_file
from engine.numtext import whole_number

log = logging.getLogger("earshot.ingest")

#: The Dask topic workers publish recognition progress on.
PROGRESS_TOPIC = "earshot-progress"
#: How to install what ``--cluster`` needs, said when it is missing.
INSTALL_HINT = ".venv/bin/python -m pip install --require-hashes -r requirements-cluster.lock"
SEND_MODES = config.CLUSTER_SEND_MODES


@dataclass(frozen=True)
class ClusterSpec:
    """Where recognition runs.

    Attributes
    ----------
    address : a running scheduler (``tcp://host:8786``), or ``None`` for a cluster started here.
    local_workers : worker processes of the cluster started here (``local:N``).
    retries : times a file whose worker died is sent again before it is reported.
    send_audio : ``auto`` (workers read shared storage, else the bytes are sent), ``always``, ``never``.
    """

    address: str | None = None
    local_workers: int = 0
    retries: int = config.CLUSTER_RETRIES
    send_audio: str = "auto"

    def __post_init__(self) -> None:
        if (self.address is None) == (self.local_workers < 1):
            raise ParameterError("a cluster is a scheduler address or local:N with N >= 1")
        if self.retries < 0:
            raise ParameterError(f"--retries must be 0 or more, got {self.retries}")
        if self.send_audio not in SEND_MODES:
            raise ParameterError(f"--send-audio must be one of {', '.join(SEND_MODES)}, got {self.send_audio!r}")

    @property
    def label(self) -> str:
        return self.address or f"local:{self.local_workers}"


def parse_cluster(text: str, *, retries: int = config.CLUSTER_RETRIES, send_audio: str = "auto") -> ClusterSpec:
    """``local:N`` or a scheduler address (``tcp://host:port``, ``host:port``) as a :class:`ClusterSpec`."""
    text = text.strip()
    if text.startswith("local:") or text == "local":
        count = whole_number(text.partition(":")[2])
        if count is None or count < 1:
            raise ParameterError(f"--cluster {text!r}: expected local:N with N a whole number of at least 1")
        return ClusterSpec(local_workers=count, retries=retries, send_audio=send_audio)
    scheme, sep, rest = text.rpartition("://")
    host, colon, port = (rest if sep else text).rpartition(":")
    if (sep and scheme not in ("tcp", "tls", "ws", "wss")) or not colon or not host or whole_number(port) is None:
        raise ParameterError(f"--cluster {text!r}: expected local:N or a scheduler address such as tcp://host:8786")
    return ClusterSpec(address=text if sep else f"tcp://{text}", retries=retries, send_audio=send_audio)


# -- the worker's side ----------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteTask:
    """One file for a worker: where it lies here, what its bytes hash to, and how to recognise it."""

    task_id: int
    path: str
    size_bytes: int
    content_hash: str
    spec: ModelSpec
    settings: DetectorSettings | None = None


@dataclass(frozen=True)
class NeedsAudio:
    """The worker cannot see the file's bytes at its path: send them."""

    task_id: int
    reason: str


_models: dict[ModelSpec, Transcriber] = {}
_models_lock = threading.Lock()


def worker_transcriber(spec: ModelSpec) -> Transcriber:
    """The worker's one copy of ``spec``'s model, loaded on first use.

    A model folder that is not at the client's path on this machine is looked up by name in
    this machine's own Earshot install (the same lock puts packaged models elsewhere).
    """
    with _models_lock:
        if spec not in _models:
            limit_arenas()  # the threads this worker starts from now on share two arenas
            local = spec
            if not Path(spec.path).is_dir():
                from models.manager import ModelManager

                local = ModelManager().resolve(spec.name)
            _models[spec] = load_transcriber(local)
        return _models[spec]


def _progress_sender(task_id: int) -> Callable[[float, float], None]:
    """Publish ``(task_id, seconds done, seconds total)`` at most every ``CLUSTER_PROGRESS_SECONDS``."""
    from distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:  # called outside a worker (the tests call the task directly): nobody to tell
        return lambda done, total: None
    last = [0.0]

    def send(done: float, total: float) -> None:
        now = time.monotonic()
        if now - last[0] >= config.CLUSTER_PROGRESS_SECONDS:
            last[0] = now
            worker.log_event(PROGRESS_TOPIC, (task_id, done, total))

    return send


def readable_here(task: RemoteTask) -> str:
    """Empty if this machine holds the task's exact bytes at its path, else why not."""
    try:
        if not os.path.isfile(task.path):
            return "not on this worker's storage"
        if os.path.getsize(task.path) != task.size_bytes:
            return "a different file of that name on this worker's storage"
        if content_hash(task.path) != task.content_hash:
            return "different bytes at that path on this worker's storage"
    except (OSError, EarshotError) as exc:
        return f"unreadable on this worker: {exc}"
    return ""


def recognise_remote(task: RemoteTask, audio: bytes | None = None) -> Done | Failed | NeedsAudio:
    """The task a Dask worker runs: recognise one file (from its path, or from ``audio``, its bytes)."""
    copy: Path | None = None
    try:
        if audio is None:
            why = readable_here(task)
            if why:
                return NeedsAudio(task.task_id, why)
            info = probe(task.path)
        else:
            copy = Path(tempfile.mkdtemp(prefix="earshot-")) / f"audio{Path(task.path).suffix.lower()}"
            copy.write_bytes(audio)
            del audio
            if content_hash(copy) != task.content_hash:
                return Failed(task.task_id, FailureReason.RECOGNITION_FAILED,
                              f"{task.path}: its bytes arrived damaged on the worker")
            info = probe(copy)
        transcriber = worker_transcriber(task.spec)
        transcript = transcribe_file(info, transcriber, on_progress=_progress_sender(task.task_id),
                                     detector_settings=task.settings)
    except EarshotError as exc:
        line = str(exc).replace(str(copy), task.path) if copy is not None else str(exc)
        return Failed(task.task_id, FailureReason.RECOGNITION_FAILED, line)
    except Exception as exc:
        return Failed(task.task_id, FailureReason.RECOGNITION_FAILED, f"{task.path}: recognition failed: {exc}",
                      traceback.format_exc())
    finally:
        if copy is not None:
            shutil.rmtree(copy.parent, ignore_errors=True)
    return Done(task.task_id, transcript)


#: Libraries whose version decides the words; a worker with other versions is named in a note.
_DECIDING_PACKAGES = ("faster-whisper", "ctranslate2", "vosk", "numpy", "librosa", "onnxruntime")


def worker_environment() -> dict[str, str]:
    """What a worker runs with: the Python and the versions of the libraries that decide the words.

    Submitted once when a cluster is reached: a scheduler or worker that cannot import Earshot
    fails here, with one message, rather than once per file.
    """
    import platform
    from importlib import metadata

    found = {"python": platform.python_version()}
    for name in _DECIDING_PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[name] = metadata.version(name)
    return found


def _worker_setup_plugin(*, local: bool) -> Any:
    """A Dask worker plugin that caps a worker's native thread pools (BLAS, OpenMP) at one thread.

    The speech model's own threads are set where it is loaded (``config.WHISPER_CPU_THREADS``);
    without this cap numpy and librosa would start one thread per core in every worker.
    With ``local`` (workers this process started), the workers also ignore Ctrl+C, which a
    terminal sends to the whole process group: this process decides, and stops them itself.
    """
    from distributed import WorkerPlugin

    class EarshotWorkerSetup(WorkerPlugin):  # type: ignore[misc]
        name = "earshot-worker-setup"

        def setup(self, worker: Any) -> None:
            import signal

            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=config.CLUSTER_NATIVE_THREADS)
            if local and threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)

    return EarshotWorkerSetup()


def _kill_children(pids: set[int]) -> None:
    """SIGKILL each process in ``pids`` that is still a child of this one (its owner reaps it)."""
    import psutil  # Dask's own dependency

    for child in psutil.Process().children():
        if child.pid in pids:
            with contextlib.suppress(psutil.Error):
                child.kill()


# -- the client's side ----------------------------------------------------------------------


@dataclass
class _InFlight:
    task: RemoteTask
    future: Any
    attempts: int = 1  # sends that a worker started recognising, or will
    waiting_resends: int = 0  # sends lost with a worker before it started on them
    started: bool = False  # the current send has reported progress
    sent_audio: bool = False
    data: Any = None  # the scattered bytes' future, when sent
    slot: int = 0


@dataclass
class ClusterInfo:
    """What a user is told about the cluster once it is reached."""

    label: str
    workers: int
    threads: int
    dashboard: str | None


def _dask_logs_to_our_file() -> None:
    """Send Dask's own log lines (a lost connection, a dead worker) to Earshot's log file, not the terminal:
    each file's one line already says what matters there."""
    ours: list[logging.Handler] = [h for h in logging.getLogger("earshot").handlers if isinstance(h, logging.FileHandler)]
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.startswith("distributed"):
            logger = logging.getLogger(name)
            logger.handlers = [h for h in logger.handlers if not isinstance(h, logging.StreamHandler)
                               or isinstance(h, logging.FileHandler)] + ours
            logger.propagate = False


def require_dask() -> None:
    """Raise ParameterError, saying what to install, unless Dask can be imported."""
    _import_dask()


def _import_dask() -> tuple[Any, Any]:
    try:
        import dask
        import distributed
    except ImportError:
        raise ParameterError(f"--cluster needs Dask, which is not installed; install it with: {INSTALL_HINT}") from None
    return dask, distributed


class ClusterPool:
    """Files in flight on a Dask cluster, with the interface :class:`IngestJob` drives a :class:`WorkerPool` by.

    ``idle_workers()`` lists free slots (at most ``CLUSTER_TASKS_PER_THREAD`` files per worker
    thread are in flight, so the client never holds the whole batch); ``poll`` returns
    :data:`WorkerMessage` values as files finish.
    """

    def __init__(self, spec: ModelSpec, cluster: ClusterSpec, *, detector_settings: DetectorSettings | None = None,
                 on_note: Callable[[str], None] | None = None) -> None:
        dask, distributed = _import_dask()
        self.spec, self.cluster, self.settings = spec, cluster, detector_settings
        self._note = on_note or (lambda line: None)
        self._messages: queue.Queue[Any] = queue.Queue()
        self._inflight: dict[int, _InFlight] = {}
        self._closed = False
        self._local: Any = None
        _dask_logs_to_our_file()
        self._KilledWorker = distributed.scheduler.KilledWorker
        try:
            if cluster.address is None:
                # Each death of a worker reaches this process, which counts it against --retries; the
                # workers' statistical profiler (a stack sample every 10 ms) is CPU taken from recognition.
                with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                                      "distributed.worker.profile.enabled": False}):
                    self._local = distributed.LocalCluster(
                        n_workers=cluster.local_workers, threads_per_worker=1, processes=True,
                        dashboard_address=":0", silence_logs=logging.ERROR,
                    )
                self.client = distributed.Client(self._local)
            else:
                self.client = distributed.Client(cluster.address, timeout=config.CLUSTER_CONNECT_SECONDS)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ParameterError(f"{cluster.label}: cannot reach the Dask scheduler: {exc}") from None
        self.client.register_plugin(_worker_setup_plugin(local=self._local is not None), name="earshot-worker-setup")
        self._check_environment()
        self.client.subscribe_topic(PROGRESS_TOPIC, self._on_progress)
        scheduler = self.client.scheduler_info(n_workers=-1)
        workers = scheduler.get("workers", {})
        threads = sum(int(w.get("nthreads", 1)) for w in workers.values()) or 1
        self.slots = max(2, config.CLUSTER_TASKS_PER_THREAD * threads)
        self.info = ClusterInfo(cluster.label, len(workers), threads, self._dashboard())

    def _check_environment(self) -> None:
        """Run one small task: the cluster must import Earshot; library versions unlike ours are noted."""
        try:
            self.client.wait_for_workers(1, timeout=config.CLUSTER_START_SECONDS)
        except TimeoutError:
            self.close()
            raise ParameterError(f"{self.cluster.label}: no worker joined the scheduler in "
                                 f"{config.CLUSTER_START_SECONDS:.0f} s; start workers with 'dask worker "
                                 f"{self.cluster.label}' (see docs/cluster.md)") from None
        try:
            theirs = self.client.submit(worker_environment, pure=False).result(timeout=config.CLUSTER_START_SECONDS)
        except Exception as exc:
            self.close()
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ParameterError(
                f"{self.cluster.label}: the cluster cannot run Earshot's tasks ({first}); start the scheduler and "
                "workers from Earshot's folder with its environment (see docs/cluster.md)") from None
        ours = worker_environment()
        differ = [f"{name} {theirs.get(name, 'missing')} (here {version})"
                  for name, version in ours.items() if theirs.get(name) != version]
        if differ:
            self._note(f"a worker runs other versions than this machine, so words may differ: {', '.join(differ)}")

    def _dashboard(self) -> str | None:
        try:
            return str(self.client.dashboard_link)
        except Exception:  # no dashboard (bokeh missing, or the scheduler started without one)
            return None

    # -- the pool interface -------------------------------------------------------------

    def idle_workers(self) -> list[int]:
        """Free slots for files (not worker ids: Dask picks the worker)."""
        used = {f.slot for f in self._inflight.values()}
        return [slot for slot in range(self.slots) if slot not in used]

    def submit(self, slot: int, task_id: int, info: AudioInfo, content_hash: str = "") -> None:
        task = RemoteTask(task_id, info.path, info.size_bytes, content_hash, self.spec, self.settings)
        flight = _InFlight(task, None, slot=slot)
        self._inflight[task_id] = flight
        self._send(flight, with_audio=self.cluster.send_audio == "always")

    def _send(self, flight: _InFlight, *, with_audio: bool) -> None:
        task = flight.task
        if with_audio:
            if task.size_bytes > config.CLUSTER_MAX_SEND_BYTES:
                self._fail(flight, FailureReason.AUDIO_NOT_SENT,
                           f"{task.path}: {task.size_bytes / 2**30:.1f} GiB is more than the "
                           f"{config.CLUSTER_MAX_SEND_BYTES / 2**30:.0f} GiB Earshot sends to a worker; "
                           "put it on storage the workers can read")
                return
            try:
                audio = Path(task.path).read_bytes()
            except OSError as exc:
                self._fail(flight, FailureReason.AUDIO_NOT_SENT, f"{task.path}: cannot read: {exc.strerror or exc}")
                return
            flight.sent_audio = True
        try:
            if with_audio:
                flight.data = self.client.scatter(audio, direct=True, hash=False)
                del audio
                future = self.client.submit(recognise_remote, task, flight.data, pure=False, retries=0)
            else:
                future = self.client.submit(recognise_remote, task, pure=False, retries=0)
        except Exception as exc:  # the scheduler went away between two files
            if not self.alive():
                # A closed client is the lost scheduler: the file stays in flight and the job fails it
                # with the files the scheduler held, in one line (why_gone), not in Dask's words.
                return
            self._fail(flight, FailureReason.CLUSTER_LOST, f"{task.path}: cannot send it to {self.cluster.label}: {exc}")
            return
        flight.future = future
        future.add_done_callback(lambda f, task_id=task.task_id: self._messages.put((task_id, f)))

    def _fail(self, flight: _InFlight, reason: FailureReason, message: str, detail: str = "") -> None:
        self._messages.put(Failed(flight.task.task_id, reason, message, detail))

    def poll(self, timeout: float) -> list[WorkerMessage]:
        """Messages that arrived within ``timeout`` seconds: progress, and files that ended."""
        out: list[WorkerMessage] = []
        try:
            item = self._messages.get(timeout=timeout)
            while True:
                out.extend(self._handle(item))
                item = self._messages.get_nowait()
        except queue.Empty:
            pass
        return out

    def _handle(self, item: Any) -> list[WorkerMessage]:
        if isinstance(item, Progress):
            flight = self._inflight.get(item.task_id)
            if flight is None:
                return []
            flight.started = True
            return [item]
        if isinstance(item, Failed):
            self._forget(item.task_id)
            return [item]
        task_id, future = item
        flight = self._inflight.get(task_id)
        if flight is None or flight.future is not future:
            return []  # a file cancelled by the job, or an attempt already replaced
        if future.status == "finished":
            result = future.result()
            if isinstance(result, NeedsAudio):
                if self.cluster.send_audio == "never":
                    self._forget(task_id)
                    return [Failed(task_id, FailureReason.AUDIO_NOT_SENT,
                                   f"{flight.task.path}: {result.reason} (--send-audio never)")]
                self._send(flight, with_audio=True)
                return []
            self._forget(task_id)
            return [result]
        # An error the task did not catch, or a cancellation nobody here asked for: its worker
        # died, or the worker holding its bytes did. Send it again while retries last.
        exc = future.exception() if future.status == "error" else None
        if exc is None or isinstance(exc, self._KilledWorker | OSError):
            return self._worker_died(flight)
        self._forget(task_id)
        return [Failed(task_id, FailureReason.RECOGNITION_FAILED, f"{flight.task.path}: recognition failed: {exc}",
                       "".join(traceback.format_exception(exc)))]

    def _worker_died(self, flight: _InFlight) -> list[WorkerMessage]:
        """Send a file again after its worker died, or report it once its tries are spent.

        Only a death while the worker was recognising the file (it had reported progress)
        counts against ``retries``: a file merely waiting on that worker is sent again for
        free, at most ``CLUSTER_WAITING_RESENDS`` times.
        """
        task = flight.task
        if flight.started:
            flight.attempts += 1
        else:
            flight.waiting_resends += 1
        if flight.attempts > self.cluster.retries + 1 or flight.waiting_resends > config.CLUSTER_WAITING_RESENDS:
            self._forget(task.task_id)
            tries = flight.attempts - 1 + flight.waiting_resends
            return [Failed(task.task_id, FailureReason.WORKER_CRASHED,
                           f"{task.path}: the worker running it stopped {tries} time{'s' if tries > 1 else ''}; "
                           "not retried again")]
        if flight.started:
            self._note(f"retrying {task.path}: its worker stopped (attempt {flight.attempts} of {self.cluster.retries + 1})")
        flight.started = False
        self._release(flight)
        self._send(flight, with_audio=flight.sent_audio)
        return []

    def _on_progress(self, event: tuple[float, Any]) -> None:
        """Called by Dask on its own thread for each progress message a worker publishes."""
        with contextlib.suppress(TypeError, ValueError):
            task_id, done, total = event[1]
            self._messages.put(Progress(int(task_id), float(done), float(total)))

    def _release(self, flight: _InFlight) -> None:
        for future in (flight.future, flight.data):
            if future is not None:
                with contextlib.suppress(Exception):
                    future.release()
        flight.future = flight.data = None

    def _forget(self, task_id: int) -> None:
        flight = self._inflight.pop(task_id, None)
        if flight is not None:
            self._release(flight)

    def why_gone(self) -> str:
        """What to tell the files still waiting once :meth:`alive` is 0."""
        return f"{self.cluster.label}: the connection to the Dask scheduler was lost"

    def alive(self) -> int:
        """1 while the scheduler is reachable (Dask waits for workers itself), else 0."""
        return 0 if self._closed or self.client.status not in ("running", "connecting") else 1

    def cancel_task(self, task_id: int, *, respawn: bool = True) -> bool:
        """Stop one file; True if it was in flight. (``respawn`` is the local pool's; Dask keeps its workers.)"""
        flight = self._inflight.pop(task_id, None)
        if flight is None:
            return False
        if flight.future is not None:
            with contextlib.suppress(Exception):
                self.client.cancel(flight.future, force=True)
        self._release(flight)
        return True

    def close(self, *, kill: bool = False) -> None:
        """Cancel what is in flight, disconnect, and stop a cluster started here."""
        if self._closed:
            return
        self._closed = True
        client = getattr(self, "client", None)
        if client is not None:
            futures = [f.future for f in self._inflight.values() if f.future is not None]
            with contextlib.suppress(Exception):
                if futures:
                    client.cancel(futures, force=True)
            with contextlib.suppress(Exception):
                client.unsubscribe_topic(PROGRESS_TOPIC)
            with contextlib.suppress(Exception):
                client.close(timeout=config.CLUSTER_CLOSE_SECONDS)
        self._inflight.clear()
        if self._local is not None:
            pids = self._local_worker_pids()
            with contextlib.suppress(Exception):
                self._local.close(timeout=config.CLUSTER_CLOSE_SECONDS)
            # A worker inside the recogniser's native code may not stop when its nanny asks, and a close
            # that timed out leaves it running; no worker this process started may outlive it.
            _kill_children(pids | self._local_worker_pids())

    def _local_worker_pids(self) -> set[int]:
        """Process ids of the workers the cluster started here runs now (its nannies' children)."""
        with contextlib.suppress(Exception):  # the nannies' table changes on the cluster's own thread
            return {pid for nanny in list(self._local.workers.values()) if (pid := getattr(nanny, "pid", None))}
        return set()

    def __enter__(self) -> ClusterPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)
