"""Worker processes that run recognition.

Recognition is native code that cannot check a cancel flag, so it runs in
child processes that can be killed. Each worker loads its model once and
takes files one at a time. Messages come back on one queue:

``("ready", wid)``, ``("progress", task_id, seconds_done, seconds_total)``,
``("done", task_id, Transcript)``, ``("failed", task_id, message)``.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import queue
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from engine.asr.base import ModelSpec
from engine.asr.loader import load_transcriber
from engine.audio.decode import AudioInfo
from engine.detect.sensitivities import DetectorSettings
from engine.errors import EarshotError
from engine.ingest.transcribe import transcribe_file

log = logging.getLogger("earshot.ingest")

#: Seconds between progress messages from one worker.
PROGRESS_INTERVAL = 0.25


def _exit_with_parent() -> None:
    """End this worker as soon as the process that started it is gone (even after ``kill -9``)."""
    parent = mp.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="earshot-parent-watch", daemon=True).start()


def _worker_main(wid: int, spec: ModelSpec, inbox: Any, outbox: Any, settings: Any = None) -> None:
    """Body of one worker process."""

    # Ctrl+C reaches the whole process group; the parent decides, and kills the workers it must.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()

    try:
        transcriber = load_transcriber(spec)
    except EarshotError as exc:
        outbox.put(("fatal", wid, str(exc)))
        return
    except Exception as exc:  # a native library failing to load
        outbox.put(("fatal", wid, f"{spec.name}: cannot load the speech model: {exc}"))
        return
    outbox.put(("ready", wid))
    while True:
        task = inbox.get()
        if task is None:
            return
        task_id, info = task
        last = [0.0]

        def progress(done: float, total: float, task_id: int = task_id, last: list[float] = last) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_INTERVAL:
                last[0] = now
                outbox.put(("progress", task_id, done, total))

        try:
            result = transcribe_file(info, transcriber, on_progress=progress, detector_settings=settings)
        except EarshotError as exc:
            outbox.put(("failed", task_id, str(exc)))
        except Exception as exc:
            outbox.put(("failed", task_id, f"{info.path}: recognition failed: {exc}\n{traceback.format_exc()}"))
        else:
            outbox.put(("done", task_id, result))


@dataclass
class _Worker:
    wid: int
    process: Any
    inbox: Any
    task_id: int | None = None
    ready: bool = False


class WorkerPool:
    """``n`` recognition processes sharing one model spec.

    The owner assigns tasks with :meth:`submit` when :meth:`idle_workers`
    says a worker is free, and drains :meth:`poll` for messages.
    """

    def __init__(self, spec: ModelSpec, n: int, *, detector_settings: DetectorSettings | None = None) -> None:
        if n < 1:
            raise ValueError(f"worker count must be at least 1, got {n}")
        self.spec = spec
        self.detector_settings = detector_settings
        self._ctx = mp.get_context("spawn")
        self._outbox = self._ctx.Queue()
        self._workers: dict[int, _Worker] = {}
        self._next_wid = 0
        self._closed = False
        for _ in range(n):
            self._spawn()

    def _spawn(self) -> _Worker:
        wid = self._next_wid
        self._next_wid += 1
        inbox = self._ctx.Queue()
        proc = self._ctx.Process(
            target=_worker_main,
            args=(wid, self.spec, inbox, self._outbox, self.detector_settings),
            name=f"earshot-worker-{wid}",
            daemon=True,
        )
        proc.start()
        worker = _Worker(wid, proc, inbox)
        self._workers[wid] = worker
        return worker

    def idle_workers(self) -> list[int]:
        return [w.wid for w in self._workers.values() if w.ready and w.task_id is None]

    def busy_tasks(self) -> list[int]:
        return [w.task_id for w in self._workers.values() if w.task_id is not None]

    def submit(self, wid: int, task_id: int, info: AudioInfo) -> None:
        worker = self._workers[wid]
        worker.task_id = task_id
        worker.inbox.put((task_id, info))

    def poll(self, timeout: float) -> list[tuple[Any, ...]]:
        """Messages that arrived within ``timeout`` seconds, plus crash reports."""
        messages: list[tuple[Any, ...]] = []
        try:
            messages.append(self._outbox.get(timeout=timeout))
            while True:
                messages.append(self._outbox.get_nowait())
        except queue.Empty:
            pass
        for msg in messages:
            kind = msg[0]
            if kind == "ready":
                self._workers[msg[1]].ready = True
            elif kind in ("done", "failed"):
                for w in self._workers.values():
                    if w.task_id == msg[1]:
                        w.task_id = None
            elif kind == "fatal":
                self._workers.pop(msg[1], None)
        messages.extend(self._reap_crashed())
        return messages

    def _reap_crashed(self) -> list[tuple[Any, ...]]:
        """Report tasks whose worker died (a native crash) and replace the worker."""
        reports: list[tuple[Any, ...]] = []
        for wid, w in list(self._workers.items()):
            if w.process.is_alive():
                continue
            del self._workers[wid]
            if not w.ready:  # died while loading the model: respawning would only die again
                reports.append(("fatal", wid, f"{self.spec.name}: the recogniser process could not start"))
                continue
            if w.task_id is not None:
                reports.append(
                    ("failed", w.task_id, f"the recogniser process stopped unexpectedly (exit code {w.process.exitcode})")
                )
            self._spawn()
        return reports

    def alive(self) -> int:
        return len(self._workers)

    def cancel_task(self, task_id: int, *, respawn: bool = True) -> bool:
        """Kill the worker running ``task_id`` and, with ``respawn``, start a fresh one. True if it was running."""
        for wid, w in list(self._workers.items()):
            if w.task_id == task_id:
                w.process.kill()
                w.process.join(5)
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
            if kill or w.task_id is not None:
                w.process.kill()
            else:
                w.inbox.put(None)
        for w in self._workers.values():
            w.process.join(10)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(5)
        self._workers.clear()
        self._outbox.close()
        self._outbox.join_thread()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)
