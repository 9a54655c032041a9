"""The main window: the library of indexed recordings."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QMainWindow,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.library_model import LibraryModel
from engine.errors import EarshotError
from engine.index.store import Store
from engine.paths import default_db_path


class MainWindow(QMainWindow):
    """Lists the library; filter box above, status line below."""

    def __init__(self, db_path: Path) -> None:
        super().__init__()
        self.setWindowTitle(f"Earshot — {db_path.name}")
        self.resize(1100, 700)
        self.store = Store(db_path)
        self.interrupted = self.store.mark_interrupted_jobs()

        self.library = LibraryModel(self.store)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.library)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(0)

        self.filter_edit = QLineEdit(placeholderText="Filter recordings by name…")
        self.filter_edit.setAccessibleName("Filter recordings")
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)

        self.table = QTableView()
        self.table.setAccessibleName("Recordings")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)

        self.status = QLabel()
        self.status.setAccessibleName("Library status")
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table)
        layout.addWidget(self.status)
        self.setCentralWidget(central)

        refresh = QAction("&Refresh", self, shortcut=QKeySequence.StandardKey.Refresh, triggered=self.refresh)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close)
        menu = self.menuBar().addMenu("&Library")
        menu.addAction(refresh)
        menu.addAction(quit_action)
        self.refresh()

    def refresh(self) -> None:
        self.library.refresh()
        self.table.resizeColumnsToContents()
        n = self.library.rowCount()
        hours = sum(self.library.recording_at(i)["duration"] for i in range(n)) / 3600
        text = f"{n} recordings, {hours:.1f} hours indexed in {self.store.path}"
        if self.interrupted:
            text += f" — {len(self.interrupted)} earlier ingest(s) were interrupted and not indexed"
        self.status.setText(text)

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.store.close()
        super().closeEvent(event)


def run_gui(argv: list[str], db_path: Path | None = None) -> int:
    """Start the application; returns its exit code."""
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("Earshot")
    try:
        window = MainWindow(db_path or default_db_path())
    except EarshotError as exc:
        print(f"earshot: error: {exc}", file=sys.stderr)
        return 1
    window.show()
    return int(app.exec())
