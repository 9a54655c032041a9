"""Settings: speech models, index location, worker count, detector sensitivities. Changes apply at once."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import dialogs
from app.models_panel import ModelsPanel
from app.settings import DETECTORS, AppSettings
from app.widgets import palette_icon, push_button
from engine.errors import EarshotError
from engine.ingest.cluster import parse_cluster


class LibrarySettings(QWidget):
    """Where the index lives and how many recognisers run at once."""

    index_chosen = Signal(Path)

    def __init__(self, settings: AppSettings) -> None:
        super().__init__()
        self._settings = settings
        self.index_edit = QLineEdit(str(settings.db_path))
        self.index_edit.setAccessibleName("Index file")
        self.browse = push_button("Choose…", "Choose the index file", self._browse)
        self.open_button = push_button("Open this index", "Open the index file now", self._open)
        self.workers = QSpinBox()
        self.workers.setAccessibleName("Recognition processes")
        self.workers.setRange(1, max(1, os.cpu_count() or 1) * 2)
        self.workers.setValue(settings.workers)
        self.workers.valueChanged.connect(self._workers_changed)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.cluster = QLineEdit(settings.cluster)
        self.cluster.setAccessibleName("Dask cluster")
        self.cluster.setPlaceholderText("empty: this machine; local:4 or tcp://host:8786")
        self.cluster.setToolTip("Recognise on a Dask cluster: a scheduler's address, or local:N to start N worker "
                                "processes here. The index is written only by this app.")
        self.cluster.editingFinished.connect(self._cluster_changed)
        self.cluster_note = QLabel()
        self.cluster_note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.index_edit, 1)
        row.addWidget(self.browse)
        row.addWidget(self.open_button)
        form = QFormLayout(self)
        form.addRow("Index file", row)
        form.addRow("Recognition processes", self.workers)
        form.addRow("", QLabel("Each process loads its own copy of the speech model; more than the number of cores "
                               "rarely helps."))
        form.addRow("", self.note)
        form.addRow("Dask cluster", self.cluster)
        form.addRow("", self.cluster_note)

    def _browse(self) -> None:
        path = dialogs.ask_save_path(self, "Index file", self.index_edit.text(), "Earshot index (*.sqlite);;All files (*)")
        if path:
            self.index_edit.setText(path)
            self._open()

    def _open(self) -> None:
        path = Path(self.index_edit.text()).expanduser()
        self._settings.db_path = path
        self.index_chosen.emit(path)

    def _cluster_changed(self) -> None:
        """Keep a valid address (or none); say what is wrong with another."""
        text = self.cluster.text().strip()
        if not text:
            self._settings.cluster = ""
            self.cluster_note.setText("The next ingest runs on this machine.")
            return
        try:
            spec = parse_cluster(text)
        except EarshotError as exc:
            self.cluster_note.setText(f"Not used: {exc}")
            return
        self._settings.cluster = spec.label
        self.cluster_note.setText(f"The next ingest recognises on {spec.label} (needs Dask: requirements-cluster.lock).")

    def _workers_changed(self, n: int) -> None:
        self._settings.workers = n
        self.note.setText(f"The next ingest runs {n} recognition process{'es' if n > 1 else ''}.")


class DetectorSettings(QWidget):
    """One sensitivity slider (0-100) per detector."""

    def __init__(self, settings: AppSettings) -> None:
        super().__init__()
        self._settings = settings
        self.sliders: dict[str, QSlider] = {}
        form = QFormLayout(self)
        for name in DETECTORS:
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(1, 99)
            label = name.replace("_", " ").capitalize()
            slider.setAccessibleName(f"{label} sensitivity")
            slider.setValue(settings.sensitivity(name))
            slider.valueChanged.connect(lambda value, n=name: self._settings.set_sensitivity(n, value))
            self.sliders[name] = slider
            form.addRow(label, slider)
        note = QLabel("Higher finds more (and more false alarms); the middle is the detectors' tuned default. "
                      "Applies to recordings transcribed from now on (use Transcribe again for older ones).")
        note.setWordWrap(True)
        form.addRow(note)


class SettingsDialog(QDialog):
    """Non-modal; every change is saved when it is made."""

    def __init__(self, parent: QWidget | None, settings: AppSettings, models: ModelsPanel) -> None:
        super().__init__(parent)
        self.setWindowTitle("Earshot settings")
        self.resize(760, 560)
        self.models = models
        self.library = LibrarySettings(settings)
        self.detectors = DetectorSettings(settings)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Settings sections")
        self.tabs.addTab(models, "Speech models")
        self.tabs.addTab(self.library, "Library")
        self.tabs.addTab(self.detectors, "Detectors")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        assert close_button is not None  # the box was made with it
        self.close_button = close_button
        self._colour_icons()
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)

    def _colour_icons(self) -> None:
        """The Close icon in the palette's button text colour (the stock one is dark on a dark palette)."""
        self.close_button.setIcon(palette_icon(self, QStyle.StandardPixmap.SP_DialogCloseButton))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "close_button"):
            self._colour_icons()  # light and dark mode switched while the dialog is open
        super().changeEvent(event)
