"""What every evaluation panel has: pick files, run with progress and cancel, a status line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QPlainTextEdit,
    QProgressBar,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import dialogs
from app.tasks import Task, TaskPool
from app.widgets import push_button
from engine.jobs import JobReport


def tabs(name: str, pages: Sequence[tuple[QWidget, str]]) -> QTabWidget:
    """A tab widget of ``(page, title)`` pages, named for screen readers."""
    widget = QTabWidget()
    widget.setAccessibleName(name)
    for page, title in pages:
        widget.addTab(page, title)
    return widget


def choice_box(name: str, choices: Sequence[tuple[str, object]], tip: str | None = None) -> QComboBox:
    """A combo box of ``(label, data)`` choices, named for screen readers."""
    combo = QComboBox()
    combo.setAccessibleName(name)
    if tip is not None:
        combo.setToolTip(tip)
    for label, data in choices:
        combo.addItem(label, data)
    return combo


def form_rows(rows: Sequence[tuple[str, QWidget | QLayout]]) -> QFormLayout:
    """A form of ``(caption, field)`` rows, in order."""
    form = QFormLayout()
    for caption, field in rows:
        form.addRow(caption, field)
    return form


def text_pane(name: str) -> QPlainTextEdit:
    """A read-only, fixed-width text area for a report, named for screen readers."""
    pane = QPlainTextEdit()
    pane.setReadOnly(True)
    pane.setAccessibleName(name)
    pane.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return pane


def lay_out_panel(panel: QWidget, inputs: Sequence[tuple[str, QWidget | QLayout]], run: QWidget, results: QWidget,
                  side: QWidget, *, above: Sequence[QWidget] = ()) -> None:
    """The evaluation panels' shape: the ``(caption, field)`` inputs, the run bar, ``above``, then results
    beside ``side`` (plots)."""
    form = form_rows(inputs)
    split = QSplitter(Qt.Orientation.Horizontal)
    split.addWidget(results)
    split.addWidget(side)
    split.setSizes([660, 560])
    layout = QVBoxLayout(panel)
    layout.addLayout(form)
    layout.addWidget(run)
    for widget in above:
        layout.addWidget(widget)
    layout.addWidget(split, 1)


class RunBar(QWidget):
    """Run and Cancel buttons, a progress bar and a status line; runs one task at a time."""

    result_ready = Signal(object)

    def __init__(self, pool: TaskPool, run_label: str, on_run: Callable[[], object] | None = None,
                 on_result: Callable[[Any], object] | None = None) -> None:
        """``on_run`` is called by the Run button, ``on_result`` with each finished run's result."""
        super().__init__()
        self._pool = pool
        self.task: Task | None = None
        self.run_button = push_button(run_label, run_label, on_run)
        self.cancel_button = push_button("Cancel", "Cancel the run", self.cancel)
        self.cancel_button.setEnabled(False)
        if on_result is not None:
            self.result_ready.connect(on_result)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Run progress")
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.status = QLabel()
        self.status.setAccessibleName("Run status")
        self.status.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.run_button)
        layout.addWidget(self.cancel_button)
        layout.addWidget(self.progress)
        layout.addWidget(self.status, 1)

    def start(self, fn: Callable[[JobReport], Any], name: str) -> None:
        if self.task is not None:
            return
        task = Task(fn, name)
        task.progress.connect(self._progress)
        task.finished.connect(self._finished)
        task.failed.connect(lambda message: self._ended(message))
        task.cancelled.connect(lambda: self._ended("Cancelled."))
        self.task = task
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.status.setText(f"Running {name}…")
        self._pool.start(task)

    def chosen(self, pickers: Sequence[FilePicker], ask: str) -> bool:
        """Whether every picker has its files; if not, the status line says ``ask``."""
        if all(picker.paths for picker in pickers):
            return True
        self.status.setText(ask)
        return False

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def _progress(self, done: float, total: float) -> None:
        if total > 0:
            self.progress.setValue(round(done / total * 1000))

    def _finished(self, result: object) -> None:
        self._ended("")
        self.result_ready.emit(result)

    def _ended(self, message: str) -> None:
        self.task = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.status.setText(message)


def results_table(name: str, headers: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.setSortingEnabled(True)
    table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # rows in the engine's order until a click
    return table


def fill_table(table: QTableWidget, rows: Sequence[Sequence[object]]) -> None:
    """Numbers sort as numbers; NaN and None show as blank."""
    table.setSortingEnabled(False)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            item = QTableWidgetItem()
            if isinstance(value, int | float) and not isinstance(value, bool):
                if value == value:  # not NaN
                    item.setData(0, round(float(value), 3) if isinstance(value, float) else value)
            elif value is not None:
                item.setText(str(value))
            table.setItem(r, c, item)
    table.setSortingEnabled(True)


class FilePicker(QWidget):
    """A button that asks for files (one, or any number) and a label that lists what was picked."""

    changed = Signal(list)

    def __init__(self, label: str, title: str, file_filter: str, *, one: bool = False) -> None:
        """``title`` and ``file_filter`` are the open dialog's; ``one`` keeps only the first file chosen."""
        super().__init__()
        self._title, self._filter, self._one = title, file_filter, one
        self.paths: list[str] = []
        self.button = push_button(label, label.rstrip("…"), self.pick)
        self.label = QLabel("nothing chosen")
        self.label.setAccessibleName("Chosen files")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.label, 1)

    def pick(self) -> None:
        paths = dialogs.ask_open_files(self, self._title, self._filter)
        if self._one:
            paths = paths[:1]
        if paths:
            self.set_paths(paths)

    def set_paths(self, paths: list[str]) -> None:
        self.paths = list(paths)
        names = ", ".join(Path(p).name for p in self.paths[:3])
        self.label.setText(names + (f" and {len(self.paths) - 3} more" if len(self.paths) > 3 else ""))
        self.changed.emit(self.paths)
