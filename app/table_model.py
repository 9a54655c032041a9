"""The part every table model of the app shares: named columns and a list of rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class RowTableModel(QAbstractTableModel):
    """A flat table over ``self.rows()`` with the headers ``COLUMNS``; subclasses give the cells'
    text (``CELLS``, one function of the row per column, or ``display_text``) and any other role's
    data for a row (``role_data``), or all of ``data``."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()
    CELLS: ClassVar[tuple[Callable[[Any], Any], ...]] = ()

    def rows(self) -> list[Any]:
        raise NotImplementedError

    def display_text(self, row: Any, column: int) -> Any:
        """What cell ``column`` of ``row`` shows."""
        return self.CELLS[column](row)

    def role_data(self, row: Any, role: int) -> Any:
        """``role``'s data (not DisplayRole) for every cell of ``row``; None: nothing."""
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows()[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.display_text(row, index.column())
        return self.role_data(row, role)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows())

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section]
        return None
