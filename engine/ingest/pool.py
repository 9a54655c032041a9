"""Worker processes that run recognition.

Recognition is native code that cannot check a cancel flag, so it runs in
child processes that can be killed. Each worker loads its model once and
takes files one at a time (:mod:`engine.ingest.worker`). Tasks go out and messages come back on queues as
the dataclasses of :mod:`engine.ingest.messages`. This module stays light:
a caller can start the workers before its own heavy imports.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import shutil
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import config
from engine.asr.base import ModelSpec
from engine.audio.decode import AudioInfo
from engine.ingest.messages import Done, Failed, FailureReason, Fatal, Ready, Task, WorkerMessage

if TYPE_CHECKING:
    from engine.detect.sensitivities import DetectorSettings


def _worker_main(wid: int, spec: ModelSpec, inbox: Any, outbox: Any, settings: Any = None, side: Any = None,
                 scratch: str | None = None) -> None:
    """Body of one worker process: :func:`engine.ingest.worker.serve`."""
    # Imported here, in the worker: the job's process starts its workers before it imports the
    # recogniser and the detectors itself, and a worker imports nothing of the job.
    from engine.ingest.worker import serve

    serve(wid, spec, inbox, outbox, settings, side, scratch)


def _side_main(conn: Any) -> None:
    """Body of a worker's side process: :func:`engine.ingest.side_work.serve_side`."""
    from engine.ingest.side_work import serve_side

    serve_side(conn)


def start_side_process(ctx: Any, name: str = "earshot-side") -> tuple[Any, Any]:
    """Start a side process (:mod:`engine.ingest.side_work`) from multiprocessing context ``ctx``: the
    worker's end of its pipe (hand it to exactly one process, then close it here) and the process."""
    here, there = ctx.Pipe(duplex=True)
    side = ctx.Process(target=_side_main, args=(there,), name=name, daemon=True)
    side.start()
    there.close()  # the side process has its copy: it sees the pipe end when the worker's is gone
    return here, side


@dataclass
class _Worker:
    wid: int
    process: Any
    inbox: Any
    task_id: int | None = None
    ready: bool = False
    #: The worker's side process (the detectors and the diarizer of long files), or None.
    side: Any = None
    #: The folder the worker and its side process pass features through; the pool's to remove, since
    #: a worker killed mid-file (cancelled, crashed) cannot.
    scratch: str | None = None

    def kill(self) -> None:
        """Kill the worker and its side process."""
        for proc in (self.process, self.side):
            if proc is not None:
                proc.kill()

    def join(self, timeout: float) -> None:
        for proc in (self.process, self.side):
            if proc is not None:
                proc.join(timeout)

    def remove_scratch(self) -> None:
        """Remove the scratch folder (once the worker and its side process are gone)."""
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


class WorkerPool:
    """``n`` recognition processes sharing one model spec.

    The owner assigns tasks with :meth:`submit` when :meth:`idle_workers`
    says a worker is free, and drains :meth:`poll` for messages. With ``side_processes`` (by default
    when ``n`` is 1 and ``config.SIDE_PROCESS`` is on) each worker gets a low-priority process of its
    own for the detectors and the diarizer of long files (:mod:`engine.ingest.side_work`).
    """

    def __init__(self, spec: ModelSpec, n: int, *, detector_settings: DetectorSettings | None = None,
                 side_processes: bool | None = None) -> None:  # fmt: skip
        if n < 1:
            raise ValueError(f"worker count must be at least 1, got {n}")
        self.spec = spec
        self.detector_settings = detector_settings
        self.side_processes = config.SIDE_PROCESS and n == 1 if side_processes is None else side_processes
        self._ctx = mp.get_context("spawn")
        self._outbox = self._ctx.Queue()
        self._workers: dict[int, _Worker] = {}
        self._next_wid = 0
        self._closed = False
        try:
            for _ in range(n):
                self._spawn()
        except BaseException:  # Ctrl+C or a stop signal while starting: no worker may outlive this
            self.close(kill=True)
            raise

    def _spawn(self) -> _Worker:
        wid = self._next_wid
        self._next_wid += 1
        inbox = self._ctx.Queue()
        side, here, scratch = None, None, None
        if self.side_processes:
            here, side = start_side_process(self._ctx, f"earshot-side-{wid}")
            scratch = tempfile.mkdtemp(prefix="earshot-side-")
        proc = self._ctx.Process(
            target=_worker_main,
            args=(wid, self.spec, inbox, self._outbox, self.detector_settings, here, scratch),
            name=f"earshot-worker-{wid}",
            daemon=True,
        )
        try:
            proc.start()
        finally:
            if here is not None:
                here.close()
        worker = _Worker(wid, proc, inbox, side=side, scratch=scratch)
        self._workers[wid] = worker
        return worker

    def idle_workers(self) -> list[int]:
        return [w.wid for w in self._workers.values() if w.ready and w.task_id is None]

    def submit(self, wid: int, task_id: int, info: AudioInfo, content_hash: str = "") -> None:
        """Give worker ``wid`` a file (``content_hash`` is the cluster pool's; local workers read the file)."""
        worker = self._workers[wid]
        worker.task_id = task_id
        worker.inbox.put(Task(task_id, info))

    def poll(self, timeout: float) -> list[WorkerMessage]:
        """Messages that arrived within ``timeout`` seconds, plus crash reports."""
        messages: list[WorkerMessage] = []
        try:
            messages.append(self._outbox.get(timeout=timeout))
            while True:
                messages.append(self._outbox.get_nowait())
        except queue.Empty:
            pass
        for msg in messages:
            if isinstance(msg, Ready):
                self._workers[msg.wid].ready = True
            elif isinstance(msg, Done | Failed):
                for w in self._workers.values():
                    if w.task_id == msg.task_id:
                        w.task_id = None
            elif isinstance(msg, Fatal):
                gone = self._workers.pop(msg.wid, None)
                if gone is not None:
                    gone.remove_scratch()
        messages.extend(self._reap_crashed())
        return messages

    def _reap_crashed(self) -> list[WorkerMessage]:
        """Report tasks whose worker died (a native crash) and replace the worker."""
        reports: list[WorkerMessage] = []
        for wid, w in list(self._workers.items()):
            if w.process.is_alive():
                continue
            if w.side is not None:
                w.side.kill()
                w.side.join(5)
            w.remove_scratch()
            del self._workers[wid]
            if not w.ready:  # died while loading the model: respawning would only die again
                reports.append(Fatal(wid, FailureReason.WORKER_DID_NOT_START,
                                     f"{self.spec.name}: the recogniser process could not start"))
                continue
            if w.task_id is not None:
                reports.append(Failed(w.task_id, FailureReason.WORKER_CRASHED,
                                      f"the recogniser process stopped unexpectedly (exit code {w.process.exitcode})"))
            self._spawn()
        return reports

    def alive(self) -> int:
        return len(self._workers)

    def why_gone(self) -> str:
        """What to tell the files still waiting once :meth:`alive` is 0 and no worker said why."""
        return "no recogniser could start"

    def cancel_task(self, task_id: int, *, respawn: bool = True) -> bool:
        """Kill the worker running ``task_id`` and, with ``respawn``, start a fresh one. True if it was running."""
        for wid, w in list(self._workers.items()):
            if w.task_id == task_id:
                w.kill()
                w.join(5)
                w.remove_scratch()
                del self._workers[wid]
                if respawn:
                    self._spawn()
                return True
        return False

    def close(self, *, kill: bool = False) -> None:
        if self._closed:
            return
        self._closed = True
        for w in self._workers.values():
            if kill or w.task_id is not None or not w.ready:  # one still loading its model would make us wait
                w.kill()
            else:
                # an idle worker holds nothing to save (the index is this process's): ended at once, it
                # spares the wait for its interpreter to unload the models (half a second, every ingest)
                w.process.terminate()
                if w.side is not None:
                    w.side.terminate()
        for w in self._workers.values():
            w.join(10)
            if w.process.is_alive() or (w.side is not None and w.side.is_alive()):
                w.kill()
                w.join(5)
            w.remove_scratch()
        self._workers.clear()
        self._outbox.close()
        self._outbox.join_thread()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)
