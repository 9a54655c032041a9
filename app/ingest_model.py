"""Item model of the ingest queue: one row per file, with state, progress, ETA and the reason it failed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from app.format import eta_text, reason
from app.ingest_controller import TERMINAL, FileStatus
from app.table_model import RowTableModel
from engine.jobs import JobState

#: Role carrying a row's progress as a fraction in [0, 1] (None when not running).
ProgressRole = Qt.ItemDataRole.UserRole + 1
#: Role carrying the row's JobState.
StateRole = Qt.ItemDataRole.UserRole + 2


@dataclass
class QueueRow:
    path: str
    state: JobState = JobState.QUEUED
    message: str = ""
    duration: float = 0.0
    done: float = 0.0
    total: float = 0.0
    started: float = 0.0  # time.monotonic() when it started running

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total > 0 else 0.0

    def eta(self, now: float) -> float | None:
        """Seconds left, from the rate so far; None until there is a rate to go by."""
        return remaining_seconds(now - self.started, self.fraction) if self.state is JobState.RUNNING else None


def remaining_seconds(elapsed: float, fraction: float) -> float | None:
    """Time left for a run that is ``fraction`` done after ``elapsed`` seconds, at the same rate."""
    if fraction < 0.02 or elapsed <= 0:
        return None
    return elapsed * (1.0 - fraction) / fraction


class IngestQueueModel(RowTableModel):
    """Rows keyed by file path; a file queued again reuses its row."""

    COLUMNS = ("File", "Status", "Progress", "ETA", "Details")
    CELLS = (lambda r: Path(r.path).name, lambda r: r.state.value, lambda r: _progress_text(r), lambda r: _eta(r),
             lambda r: reason(r.path, r.message))

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[QueueRow] = []
        self._row_of: dict[str, int] = {}

    # -- updates from the controller --------------------------------------------------------

    def apply(self, status: FileStatus) -> None:
        row = self._row_of.get(status.path)
        if row is None:
            row = len(self._rows)
            self.beginInsertRows(QModelIndex(), row, row)
            self._rows.append(QueueRow(status.path))
            self._row_of[status.path] = row
            self.endInsertRows()
        r = self._rows[row]
        if status.state is JobState.RUNNING and r.state is not JobState.RUNNING:
            r.started, r.done, r.total = time.monotonic(), 0.0, status.duration
        if status.state is JobState.QUEUED and r.state in TERMINAL:
            r.done = r.total = 0.0
        if status.state is JobState.DONE:
            r.done = r.total = max(status.duration, 1.0)
        r.state, r.message = status.state, status.message
        r.duration = status.duration or r.duration
        self._changed(row)

    def progress(self, path: str, done: float, total: float) -> None:
        row = self._row_of.get(path)
        if row is None:
            return
        r = self._rows[row]
        r.done, r.total = done, total
        self._changed(row)

    def clear_finished(self) -> None:
        self.beginResetModel()
        self._rows = [r for r in self._rows if r.state not in TERMINAL]
        self._row_of = {r.path: i for i, r in enumerate(self._rows)}
        self.endResetModel()

    def row_at(self, row: int) -> QueueRow:
        return self._rows[row]

    def row_of(self, path: str) -> int | None:
        return self._row_of.get(path)

    def _changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    # -- Qt model interface -----------------------------------------------------------------

    def rows(self) -> list[Any]:
        return self._rows

    def role_data(self, r: QueueRow, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{r.path}\n{r.message}" if r.message else r.path
        if role == ProgressRole:
            return r.fraction if r.state is JobState.RUNNING else None
        if role == StateRole:
            return r.state
        return None


def _progress_text(r: QueueRow) -> str:
    return f"{r.fraction:.0%}" if r.state in (JobState.RUNNING, JobState.DONE) else ""


def _eta(r: QueueRow) -> str:
    eta = r.eta(time.monotonic())
    return eta_text(eta) if eta is not None else ""
