"""The ingest queue panel: per-file state, progress bar, ETA, the reason a file failed; cancel."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.delegates import ProgressDelegate
from app.ingest_controller import TERMINAL, FileStatus, IngestController
from app.ingest_model import IngestQueueModel, ProgressRole
from app.widgets import push_button, widget_shortcut
from engine.ingest.totals import BatchTotals
from engine.jobs import JobState

#: Rows of the queue shown at least (with its header).
QUEUE_ROWS_SHOWN = 3
#: Widths of the status, progress and ETA columns (px); the file and its details share the rest.
QUEUE_COLUMN_WIDTHS = {1: 76, 2: 100, 3: 60}


class IngestPanel(QWidget):
    """Table of the queue with Add, Cancel selected, Cancel all and Clear finished."""

    add_files_requested = Signal()

    def __init__(self, controller: IngestController) -> None:
        super().__init__()
        self.controller = controller
        self.model = IngestQueueModel()
        controller.file_changed.connect(self.model.apply)
        controller.file_progress.connect(self.model.progress)
        controller.busy_changed.connect(self._update_buttons)
        # The run's totals: files and hours done, hours per hour, time left (a cluster ingest's main gauge).
        self.totals = BatchTotals()
        self._totals_stale = False
        self.summary = QLabel()
        self.summary.setAccessibleName("Ingest totals")
        self.summary.setWordWrap(True)
        controller.file_changed.connect(self._count)
        controller.file_progress.connect(self._count_progress)
        controller.busy_changed.connect(self._busy)

        self.table = QTableView()
        self.table.setAccessibleName("Ingest queue")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setItemDelegateForColumn(2, ProgressDelegate(ProgressRole, self.table))
        self.table.verticalHeader().setVisible(False)
        # The file and the details share what the fixed columns leave; a long reason wraps onto more lines
        # of its row (at 1024 pixels wide it used to need a horizontal scroll bar).
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.table.horizontalHeader()
        header.setMinimumSectionSize(40)
        for column, width in QUEUE_COLUMN_WIDTHS.items():
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(self.model.columnCount() - 1, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.model.dataChanged.connect(self._update_buttons)
        widget_shortcut(QKeySequence.StandardKey.Delete, self.table, self.cancel_selected)
        # Whole rows, never two and a half: the header and QUEUE_ROWS_SHOWN rows at least.
        rows = self.table.verticalHeader().defaultSectionSize() * QUEUE_ROWS_SHOWN
        self.table.setMinimumHeight(header.sizeHint().height() + rows + 2 * self.table.frameWidth())

        self.add_button = push_button("Add…", "Add recordings to the queue", self.add_files_requested)
        self.cancel_button = push_button("Cancel selected", "Cancel the selected files", self.cancel_selected)
        self.cancel_all_button = push_button("Cancel all", "Cancel every file in the queue", controller.cancel_all)
        self.clear_button = push_button("Clear finished", "Remove finished files from the queue", self.model.clear_finished)

        buttons = QHBoxLayout()
        for b in (self.add_button, self.cancel_button, self.cancel_all_button, self.clear_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        self.summary.hide()
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    def _busy(self, busy: bool) -> None:
        if not busy:
            self._totals_stale = True  # the next file queued starts a new count

    def _count(self, status: FileStatus) -> None:
        if status.state is JobState.QUEUED:
            if self._totals_stale:
                self.totals, self._totals_stale = BatchTotals(), False
            self.totals.queued(status)
        elif status.state is JobState.RUNNING:
            self.totals.start(status.path)
            row = self.model.row_of(status.path)
            if row is not None:  # the queue follows the file being transcribed, once the new rows are laid out
                index = self.model.index(row, 0)
                QTimer.singleShot(0, self.table, lambda: self.table.scrollTo(index))
        else:
            self.totals.ended(status)
        self._show_totals()

    def _count_progress(self, path: str, done: float, total: float) -> None:
        if self.totals.progress(path, done):
            self._show_totals()

    def _show_totals(self) -> None:
        """The totals line, hidden while there is nothing to count (its empty line took a row's height)."""
        line = self.totals.line()
        self.summary.setText(line)
        self.summary.setVisible(bool(line))

    def select_path(self, path: str) -> None:
        row = self.model.row_of(path)
        if row is not None:
            self.table.selectRow(row)

    def cancel_selected(self) -> None:
        for index in self.table.selectionModel().selectedRows():
            row = self.model.row_at(index.row())
            if row.state not in TERMINAL:
                self.controller.cancel_file(row.path)

    def _update_buttons(self, *_: object) -> None:
        selected = [self.model.row_at(i.row()) for i in self.table.selectionModel().selectedRows()]
        self.cancel_button.setEnabled(any(r.state not in TERMINAL for r in selected))
        open_rows = any(self.model.row_at(r).state in (JobState.QUEUED, JobState.RUNNING)
                        for r in range(self.model.rowCount()))
        self.cancel_all_button.setEnabled(open_rows)
