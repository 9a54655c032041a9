"""File pickers in one place, so tests can answer them without a native dialog."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QWidget

from engine.config import AUDIO_EXTENSIONS

AUDIO_FILTER = "Recordings (" + " ".join(f"*{e}" for e in sorted(AUDIO_EXTENSIONS)) + ");;All files (*)"


def ask_open_files(parent: QWidget, title: str = "Add recordings", file_filter: str = AUDIO_FILTER) -> list[str]:
    files, _ = QFileDialog.getOpenFileNames(parent, title, "", file_filter)
    return list(files)


def ask_folder(parent: QWidget, title: str = "Add a folder of recordings") -> str:
    return QFileDialog.getExistingDirectory(parent, title)


def ask_save_path(parent: QWidget, title: str, suggested: str, file_filter: str) -> str:
    path, _ = QFileDialog.getSaveFileName(parent, title, suggested, file_filter)
    return path
