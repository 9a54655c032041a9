"""The keyboard shortcuts dialog, built from the window's actions so it always matches them."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from app.widgets import cell_text


def shortcut_rows(actions: Sequence[QAction]) -> list[tuple[str, str]]:
    """(keys, what they do) for every action that has a shortcut, in the order given."""
    rows = []
    for action in actions:
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        if keys:
            rows.append((", ".join(keys), action.text().replace("&", "").rstrip("…")))
    return rows


class ShortcutsDialog(QDialog):
    """Non-modal list of shortcuts (F1)."""

    def __init__(self, parent: QWidget | None, actions: Sequence[QAction]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(460, 520)
        rows = shortcut_rows(actions)
        self.table = QTableWidget(len(rows), 2)
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setHorizontalHeaderLabels(["Keys", "Action"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        for r, (keys, text) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(keys))
            self.table.setItem(r, 1, QTableWidgetItem(text))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)

    def keys_listed(self) -> list[str]:
        return [cell_text(self.table, r, 0) for r in range(self.table.rowCount())]
