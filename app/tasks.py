"""Long work off the UI thread: one Task object per run, results back through signals.

A :class:`Task` wraps a plain function ``fn(report) -> result`` from the engine
(``report`` is an :class:`engine.jobs.JobReport`: progress callback and cancel
flag). It runs on a pool thread and reports through Qt signals, which Qt
delivers in the UI thread. Engine errors become the one-line user message here,
in one place; anything unexpected goes to the log with its traceback.

Tests pass :class:`ImmediatePool` instead of :class:`TaskPool`: it runs every
task at once in the calling thread, so threaded code is tested
deterministically (Picard's ``FakeThreadPool``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from engine.errors import Cancelled, EarshotError
from engine.jobs import CancelToken, JobReport

log = logging.getLogger("earshot.app")

TaskFn = Callable[[JobReport], Any]


class Task(QObject):
    """One long run. Emits exactly one of ``finished``, ``failed`` or ``cancelled``, then ``done``."""

    progress = Signal(float, float)  # done, total (units of the task: seconds, bytes, sweeps)
    finished = Signal(object)  # the function's result
    failed = Signal(str)  # one line for the user
    cancelled = Signal()
    done = Signal()

    def __init__(self, fn: TaskFn, name: str, *, cancel: CancelToken | None = None) -> None:
        super().__init__()
        self.name = name
        self._fn = fn
        self.cancel_token = cancel or CancelToken()
        self.report = JobReport(progress=self.progress.emit, cancel=self.cancel_token)

    def cancel(self) -> None:
        self.cancel_token.cancel()

    @property
    def is_cancelled(self) -> bool:
        return self.cancel_token.cancelled

    def run(self) -> None:
        """Run the function in the calling thread and emit the outcome."""
        try:
            result = self._fn(self.report)
        except Cancelled:
            self.cancelled.emit()
        except EarshotError as exc:
            log.info("%s failed: %s", self.name, exc)
            self.failed.emit(str(exc))
        except Exception as exc:
            log.exception("%s failed unexpectedly", self.name)
            self.failed.emit(f"{self.name}: unexpected error: {exc} (details in the log file)")
        else:
            if self.cancel_token.cancelled:
                self.cancelled.emit()
            else:
                self.finished.emit(result)
        self.done.emit()


class TaskPool(QObject):
    """Runs tasks on Qt's global thread pool and keeps them alive until they are done."""

    def __init__(self, pool: QThreadPool | None = None) -> None:
        super().__init__()
        self._pool = pool or QThreadPool.globalInstance()
        self._running: set[Task] = set()

    def start(self, task: Task) -> Task:
        self._running.add(task)
        task.done.connect(lambda: self._running.discard(task))
        self._pool.start(task.run)
        return task

    def submit(
        self,
        fn: TaskFn,
        name: str,
        *,
        finished: Callable[[Any], None] | None = None,
        failed: Callable[[str], None] | None = None,
        progress: Callable[[float, float], None] | None = None,
        cancelled: Callable[[], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Task:
        """Make a task for ``fn`` (with ``cancel`` as its flag, if given: the caller can set it as soon as
        the task starts), connect the given slots, then start it."""
        task = Task(fn, name, cancel=cancel)
        for signal, slot in ((task.finished, finished), (task.failed, failed),
                             (task.progress, progress), (task.cancelled, cancelled)):
            if slot is not None:
                signal.connect(slot)
        return self.start(task)

    def active(self) -> int:
        return len(self._running)

    def wait(self, msecs: int = -1) -> bool:
        """Block until every started task has returned (used at shutdown)."""
        return bool(self._pool.waitForDone(msecs))


class ImmediatePool(TaskPool):
    """Runs each task synchronously, in the calling thread, when it is started (tests)."""

    def __init__(self) -> None:
        super().__init__(QThreadPool())
        self.started: list[str] = []

    def start(self, task: Task) -> Task:
        self.started.append(task.name)
        task.run()
        return task
