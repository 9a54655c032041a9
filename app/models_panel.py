"""Speech models: what is installed, what can be downloaded; download with progress and cancel, choose, remove."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import dialogs
from app.format import size_text
from app.tasks import Task, TaskPool
from app.widgets import cell_text, push_button
from engine.errors import EarshotError
from models.figures import figures_line, speech_figures
from models.manager import ModelManager

#: ``url_for(name)``: where to download a catalogue model from (None: the catalogue's own address).
UrlFor = Callable[[str], str | None]


class ModelsPanel(QWidget):
    """Two tables (installed, catalogue) and the actions on them; errors show on the status line."""

    models_changed = Signal()

    def __init__(self, pool: TaskPool, manager: ModelManager | None = None, url_for: UrlFor | None = None) -> None:
        super().__init__()
        self._pool = pool
        self.manager = manager or ModelManager()
        self._url_for = url_for or (lambda name: None)
        self.download_task: Task | None = None

        self.installed = _table(("Model", "Engine", "Language", "Source", "Size", "In use", "Speed and accuracy"),
                                "Installed speech models")
        self.installed.itemSelectionChanged.connect(self._update_buttons)
        self.default_button = push_button("Use for new recordings", "Use the selected model for new recordings",
                                          self._make_default)
        self.remove_button = push_button("Remove", "Remove the selected model", self._remove)
        self.link_button = push_button("Add a model folder…", "Register a Vosk model folder you already have", self._link)

        self.catalogue = _table(("Model", "Language", "Size", "Kind", "About"), "Speech models to download")
        self.catalogue.itemSelectionChanged.connect(self._update_buttons)
        self.download_button = push_button("Download", "Download the selected model", self.download_selected)
        self.cancel_button = push_button("Cancel download", "Cancel the download", self.cancel_download)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Download progress")
        self.progress.setRange(0, 1000)
        self.status = QLabel()
        self.status.setAccessibleName("Models status")
        self.status.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Installed"))
        layout.addWidget(self.installed, 1)
        layout.addLayout(_row(self.default_button, self.remove_button, self.link_button))
        layout.addWidget(QLabel("Available to download"))
        layout.addWidget(self.catalogue, 1)
        layout.addLayout(_row(self.download_button, self.cancel_button, self.progress))
        layout.addWidget(self.status)
        self.refresh()

    # -- listing ----------------------------------------------------------------------------

    def refresh(self) -> None:
        try:
            chosen = self.manager.resolve(None)
            in_use = f"New recordings are transcribed with {chosen.name}." + (
                f" {chosen.note[:1].upper()}{chosen.note[1:]}." if chosen.note else "")
        except EarshotError as exc:
            chosen, in_use = None, str(exc)
        models = self.manager.installed()
        figures = speech_figures()
        self.installed.setRowCount(len(models))
        for r, m in enumerate(models):
            used = "✓" if chosen is not None and m.name == chosen.name else ""
            _fill_row(self.installed, r, (m.name, m.engine, m.language, m.source, size_text(m.size), used,
                                          figures_line(m.name, figures)))
        installed = {m.name for m in models}
        entries = [e for e in self.manager.catalogue() if e.name not in installed]
        self.catalogue.setRowCount(len(entries))
        for r, e in enumerate(entries):
            _fill_row(self.catalogue, r, (e.name, e.language, f"{e.size_mb} MB", e.kind, e.summary))
        self.status.setText(in_use)
        self._update_buttons()

    def _selected(self, table: QTableWidget) -> str | None:
        rows = table.selectionModel().selectedRows()
        return cell_text(table, rows[0].row(), 0) if rows else None

    def _update_buttons(self) -> None:
        busy = self.download_task is not None
        installed = self._selected(self.installed)
        self.default_button.setEnabled(installed is not None)
        self.remove_button.setEnabled(installed is not None)
        self.download_button.setEnabled(self._selected(self.catalogue) is not None and not busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)

    # -- actions ----------------------------------------------------------------------------

    def download_selected(self) -> None:
        name = self._selected(self.catalogue)
        if name is None or self.download_task is not None:
            return
        url = self._url_for(name)
        manager = self.manager
        self.progress.setValue(0)
        self.status.setText(f"Downloading {name}…")
        task = Task(lambda report: manager.download(name, report=report, url=url), f"download of {name}")
        task.progress.connect(self._download_progress)
        task.finished.connect(lambda model: self._download_ended(f"{model.name} is installed."))
        task.failed.connect(lambda message: self._download_ended(f"Download failed: {message}"))
        task.cancelled.connect(lambda: self._download_ended(
            f"Download of {name} cancelled; it resumes where it stopped next time."))
        self.download_task = task
        self._update_buttons()
        self._pool.start(task)

    def cancel_download(self) -> None:
        if self.download_task is not None:
            self.download_task.cancel()
            self.status.setText("Cancelling…")

    def _download_progress(self, done: float, total: float) -> None:
        if total > 0:
            self.progress.setValue(round(done / total * 1000))
            self.progress.setFormat(f"{size_text(int(done))} of {size_text(int(total))}")
        else:
            self.progress.setRange(0, 0)

    def _download_ended(self, message: str) -> None:
        self.download_task = None
        self.progress.setRange(0, 1000)
        self.refresh()
        self.status.setText(message)
        self.models_changed.emit()

    def _make_default(self) -> None:
        name = self._selected(self.installed)
        if name is not None:
            self._act(lambda: self.manager.set_default(name), f"New recordings will be transcribed with {name}.")

    def _remove(self) -> None:
        name = self._selected(self.installed)
        if name is not None:
            self._act(lambda: self.manager.remove(name), f"Removed {name}.")

    def _link(self) -> None:
        folder = dialogs.ask_folder(self, "Choose a Vosk model folder")
        if folder:
            self._act(lambda: self.manager.use(folder), f"Added the model in {folder}.")

    def _act(self, action: Callable[[], object], done: str) -> None:
        try:
            action()
        except EarshotError as exc:
            self.status.setText(str(exc))
            return
        self.refresh()
        self.status.setText(done)
        self.models_changed.emit()


def _table(headers: tuple[str, ...], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill_row(table: QTableWidget, row: int, cells: tuple[str, ...]) -> None:
    for c, text in enumerate(cells):
        item = QTableWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
        table.setItem(row, c, item)


def _row(*widgets: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    for w in widgets:
        row.addWidget(w)
    row.addStretch(1)
    return row
