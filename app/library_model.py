"""Item model of the library: indexed recordings, failed files, and the live state of files being ingested."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor

from app.format import clock, date_text, reason
from app.ingest_controller import FileStatus
from app.ingest_model import ProgressRole
from app.table_model import Index, RowTableModel
from engine.jobs import JobState
from engine.library import LibraryRow

#: Role with the row's status word (done, queued, running, failed, interrupted, cancelled, skipped).
StatusRole = Qt.ItemDataRole.UserRole + 3
SortRole = Qt.ItemDataRole.UserRole

_STATUS_COLOURS = {"failed": "#b3261e", "interrupted": "#9a6700", "cancelled": "#6b6b6b", "running": "#1f5fbf",
                   "queued": "#1f5fbf"}


@dataclass(frozen=True)
class _Live:
    state: JobState
    message: str = ""
    fraction: float = 0.0


class LibraryModel(RowTableModel):
    """One row per file: name, duration, words, engine / model, status, date."""

    COLUMNS = ("Name", "Duration", "Words", "Engine / model", "Status", "Indexed")
    STATUS_COLUMN = 4

    def __init__(self) -> None:
        super().__init__()
        self._stored: list[LibraryRow] = []
        self._live: dict[str, _Live] = {}
        self._rows: list[LibraryRow] = []
        self._row_of: dict[str, int] = {}

    # -- data in ----------------------------------------------------------------------------

    def set_rows(self, rows: list[LibraryRow]) -> None:
        """Replace what the index holds (after a refresh)."""
        self.beginResetModel()
        self._stored = rows
        self._rebuild()
        self.endResetModel()

    def apply(self, status: FileStatus) -> None:
        """A file of the ingest queue changed state.

        Failures and cancellations stay on the row for the session (a file that cannot even be probed
        leaves no record in the index); an indexed or skipped file, and a cancelled "transcribe again"
        of one already indexed, drop back to what the index says.
        """
        if status.state in (JobState.DONE, JobState.SKIPPED) or (
                status.state is JobState.CANCELLED and self._indexed(status.path)):
            self._live.pop(status.path, None)
            row = self._row_of.get(status.path)
            if row is not None:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))
            return
        old = self._live.get(status.path)
        fraction = old.fraction if old and status.state is JobState.RUNNING else 0.0
        self._set_live(status.path, _Live(status.state, status.message, fraction))

    def _indexed(self, path: str) -> bool:
        return any(r.path == path and r.recording_id is not None for r in self._stored)

    def forget(self, path: str) -> None:
        """Drop a file's session state (after it was removed from the library)."""
        self._live.pop(path, None)

    def progress(self, path: str, done: float, total: float) -> None:
        live = self._live.get(path)
        if live is not None and total > 0:
            self._set_live(path, replace(live, fraction=min(1.0, done / total)))

    def _set_live(self, path: str, live: _Live) -> None:
        self._live[path] = live
        row = self._row_of.get(path)
        if row is None:  # a file new to the library: one row at the end (the view sorts it in)
            row = len(self._rows)
            self.beginInsertRows(QModelIndex(), row, row)
            self._rows.append(LibraryRow(path, Path(path).name, "queued"))
            self._row_of[path] = row
            self.endInsertRows()
        else:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def _rebuild(self) -> None:
        rows = {r.path: r for r in self._stored}
        for path in self._live:
            rows.setdefault(path, LibraryRow(path, Path(path).name, "queued"))
        self._rows = list(rows.values())
        self._row_of = {r.path: i for i, r in enumerate(self._rows)}

    # -- data out ---------------------------------------------------------------------------

    def row_at(self, row: int) -> LibraryRow:
        return self._rows[row]

    def row_of(self, path: str) -> int | None:
        return self._row_of.get(path)

    def status_of(self, row: int) -> str:
        r = self._rows[row]
        live = self._live.get(r.path)
        return live.state.value if live else r.status

    def status_text(self, row: int) -> str:
        r = self._rows[row]
        live = self._live.get(r.path)
        if live is not None:
            if live.state is JobState.RUNNING:
                return f"running {live.fraction:.0%}"
            if live.message and live.state is not JobState.QUEUED:
                return f"{live.state.value}: {reason(r.path, live.message)}"
            return live.state.value
        return f"{r.status}: {reason(r.path, r.message)}" if r.message and r.status != "done" else r.status

    def total_seconds(self) -> float:
        return sum(r.duration for r in self._rows if r.recording_id is not None)

    def rows(self) -> list[Any]:
        return self._rows

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        r = self._rows[row]
        indexed = r.recording_id is not None
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                r.name, clock(r.duration) if indexed else "", r.word_count if indexed else "",
                _model_text(r) if indexed else "", self.status_text(row), date_text(r.date, with_time=False) if indexed else "",
            )[col]
        if role == SortRole:
            return (r.name.lower(), r.duration, r.word_count, r.model, self.status_of(row), r.date)[col]
        if role == Qt.ItemDataRole.ToolTipRole and col == self.STATUS_COLUMN:
            return self.status_text(row)  # the whole reason: the column cuts it short
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [r.path, f"{r.engine} / {_model_text(r)}" if indexed else "", date_text(r.date), r.message]
            return "\n".join(line for line in lines if line)
        if role == Qt.ItemDataRole.ForegroundRole and col == self.STATUS_COLUMN:
            colour = _STATUS_COLOURS.get(self.status_of(row))
            return QColor(colour) if colour else None
        if role == ProgressRole and col == self.STATUS_COLUMN:
            live = self._live.get(r.path)
            return live.fraction if live is not None and live.state is JobState.RUNNING else None
        if role == StatusRole:
            return self.status_of(row)
        return None


def _model_text(row: LibraryRow) -> str:
    """The model and the language it transcribed in: ``"whisper-base (fr)"``."""
    return f"{row.model} ({row.language})" if row.language else row.model
