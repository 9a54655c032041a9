"""Item model of the recordings in the index."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from engine.index.store import Store

_Index = QModelIndex | QPersistentModelIndex


def _clock(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}"


class LibraryModel(QAbstractTableModel):
    """One row per recording: name, duration, words, engine/model, status, indexed date."""

    COLUMNS = ("Name", "Duration", "Words", "Engine / model", "Status", "Indexed")

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store
        self._rows: list[dict[str, Any]] = []

    def refresh(self) -> None:
        self.beginResetModel()
        self._rows = self._store.recordings()
        self.endResetModel()

    def recording_at(self, row: int) -> dict[str, Any]:
        return self._rows[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                r["name"], _clock(r["duration"]), r["word_count"], f"{r['engine']} / {r['model']}", r["status"],
                dt.datetime.fromtimestamp(r["ingested_at"]).strftime("%Y-%m-%d %H:%M"),
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return r["path"]
        if role == Qt.ItemDataRole.UserRole:
            return (r["name"].lower(), r["duration"], r["word_count"], r["model"], r["status"], r["ingested_at"])[col]
        return None
