"""The ingest queue: batches of files handed to :class:`engine.ingest.IngestJob` one after another.

Not a widget. The job runs on a pool thread; its callbacks become signals,
which Qt delivers in the UI thread. One batch runs at a time; files added
meanwhile wait in the next batch. Cancelling a waiting file just drops it;
cancelling a running one asks the job (which kills its worker process).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.tasks import Task, TaskPool
from engine.detect.sensitivities import DetectorSettings
from engine.ingest.cluster import parse_cluster
from engine.ingest.job import FileOutcome, IngestJob, expand_paths
from engine.jobs import JobReport, JobState
from models.manager import ModelManager

log = logging.getLogger("earshot.app")

TERMINAL = frozenset({JobState.DONE, JobState.FAILED, JobState.CANCELLED, JobState.SKIPPED, JobState.INTERRUPTED})


@dataclass(frozen=True)
class FileStatus:
    """Where one file of the queue is; a snapshot safe to send between threads."""

    path: str
    state: JobState
    message: str = ""
    duration: float = 0.0
    recording_id: int | None = None

    @classmethod
    def of(cls, outcome: FileOutcome) -> FileStatus:
        return cls(outcome.path, outcome.state, outcome.message, outcome.duration, outcome.recording_id)


@dataclass(frozen=True)
class IngestOptions:
    """What a batch runs with; read from the settings when the batch starts."""

    db_path: Path
    workers: int = 1
    model_name: str | None = None
    detector_settings: DetectorSettings | None = None
    cluster: str = ""  # empty: this machine; else local:N or a Dask scheduler's address


@dataclass
class _Batch:
    files: list[str]
    force: bool
    task: Task | None = None
    job: IngestJob | None = None
    ended: set[str] = field(default_factory=set)
    cancel_requests: set[str] = field(default_factory=set)


class IngestController(QObject):
    """Queues files, runs them through the ingest job, reports every change as a signal."""

    file_changed = Signal(object)  # FileStatus
    file_progress = Signal(str, float, float)  # path, seconds done, seconds total
    batch_finished = Signal()
    busy_changed = Signal(bool)
    log_line = Signal(str)
    model_advice = Signal(str)  # a better speech model would help: the app offers Settings > Models
    _job_ready = Signal(object, object)  # batch, job: made on the pool thread, kept by the UI thread

    def __init__(self, pool: TaskPool, options: Callable[[], IngestOptions]) -> None:
        super().__init__()
        self._pool = pool
        self._options = options
        self._pending: list[_Batch] = []
        self._current: _Batch | None = None
        self.file_changed.connect(self._on_file_changed)
        self._job_ready.connect(self._attach_job)

    # -- requests from the UI ---------------------------------------------------------------

    def enqueue(self, paths: Sequence[str | Path], *, force: bool = False) -> list[str]:
        """Queue files and folders (walked recursively); returns the files queued."""
        files, missing = expand_paths(paths)
        for outcome in missing:
            self._report(FileStatus.of(outcome))
        queued = [str(f) for f in files if not self._is_waiting(str(f))]
        if not queued:
            return []
        for path in queued:
            self.file_changed.emit(FileStatus(path, JobState.QUEUED, "waiting"))
        self._pending.append(_Batch(queued, force))
        self.log_line.emit(f"queued {len(queued)} file(s)" + (" to transcribe again" if force else ""))
        self._start_next()
        return queued

    def cancel_file(self, path: str) -> None:
        for batch in self._pending:
            if path in batch.files:
                batch.files.remove(path)
                self._report(FileStatus(path, JobState.CANCELLED, "cancelled before it started"))
                return
        current = self._current
        if current is not None and path in current.files and path not in current.ended:
            current.cancel_requests.add(path)
            if current.job is not None:
                current.job.cancel_file(path)

    def cancel_all(self) -> None:
        for batch in self._pending:
            for path in batch.files:
                self._report(FileStatus(path, JobState.CANCELLED, "cancelled before it started"))
        self._pending.clear()
        if self._current is not None and self._current.task is not None:
            self._current.task.cancel()

    def is_busy(self) -> bool:
        return self._current is not None or bool(self._pending)

    # -- running ----------------------------------------------------------------------------

    def _is_waiting(self, path: str) -> bool:
        batches = [*self._pending, *([self._current] if self._current else [])]
        return any(path in b.files and path not in b.ended for b in batches)

    def _start_next(self) -> None:
        if self._current is not None:
            return
        while self._pending and not self._pending[0].files:
            self._pending.pop(0)
        if not self._pending:
            self.busy_changed.emit(False)
            return
        batch = self._current = self._pending.pop(0)
        options = self._options()
        task = Task(lambda report: self._run(batch, options, report), f"ingest of {len(batch.files)} file(s)")
        task.failed.connect(lambda message: self._finish_open_files(batch, JobState.FAILED, message))
        task.done.connect(lambda: self._batch_done(batch))
        batch.task = task
        self.busy_changed.emit(True)
        self._pool.start(task)

    def _run(self, batch: _Batch, options: IngestOptions, report: JobReport) -> list[FileOutcome]:
        """The task body, on a pool thread: choose the model, make the job, hand it to the UI thread, run it."""
        spec = ModelManager().resolve(options.model_name)
        if spec.note:
            # The note's advice is for the command line; in the app, Settings > Models has the Download button.
            self.log_line.emit(spec.note.split("; for")[0] + "; a better model can be downloaded in Settings › Models")
            self.model_advice.emit(spec.note)
        job = IngestJob(
            batch.files, db_path=options.db_path, spec=spec, workers=options.workers, force=batch.force,
            on_state=lambda outcome: self.file_changed.emit(FileStatus.of(outcome)),
            on_progress=self.file_progress.emit, cancel=report.cancel, detector_settings=options.detector_settings,
            cluster=parse_cluster(options.cluster) if options.cluster else None, on_note=self.log_line.emit,
        )
        self._job_ready.emit(batch, job)
        return job.run()

    def _attach_job(self, batch: _Batch, job: IngestJob) -> None:
        """In the UI thread: the job exists; pass on the cancels asked for before it did."""
        batch.job = job
        for path in batch.cancel_requests:
            job.cancel_file(path)

    def _report(self, status: FileStatus) -> None:
        self.file_changed.emit(status)

    def _on_file_changed(self, status: FileStatus) -> None:
        """In the UI thread: note files that ended and write one log line for each."""
        if status.state not in TERMINAL:
            return
        if self._current is not None and status.path in self._current.files:
            self._current.ended.add(status.path)
        name = Path(status.path).name
        detail = status.message if status.message and status.message != status.state.value else ""
        self.log_line.emit(f"{name}: {status.state.value}" + (f" — {detail}" if detail else ""))

    def _finish_open_files(self, batch: _Batch, state: JobState, message: str) -> None:
        for path in batch.files:
            if path not in batch.ended:
                self._report(FileStatus(path, state, message))

    def _batch_done(self, batch: _Batch) -> None:
        self._finish_open_files(batch, JobState.CANCELLED, "cancelled")  # files a cancelled run never reached
        self._current = None
        self.batch_finished.emit()
        self._start_next()
