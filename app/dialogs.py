"""File pickers in one place, so tests can answer them without a native dialog.

Pickers open in the folder last used, else the user's Music (or Videos, or home)
folder: never the application's own folder.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from engine.config import AUDIO_EXTENSIONS

AUDIO_FILTER = "Recordings (" + " ".join(f"*{e}" for e in sorted(AUDIO_EXTENSIONS)) + ");;All files (*)"
TRANSCRIPT_FILTER = "Transcripts (*.srt *.vtt *.txt *.txt3);;All files (*)"

_last_folder: str = ""


def start_folder() -> str:
    """Where a picker opens: the folder last picked from, else Music, Videos or home."""
    if _last_folder and Path(_last_folder).is_dir():
        return _last_folder
    for kind in (QStandardPaths.StandardLocation.MusicLocation, QStandardPaths.StandardLocation.MoviesLocation,
                 QStandardPaths.StandardLocation.HomeLocation):
        folder = QStandardPaths.writableLocation(kind)
        if folder and Path(folder).is_dir():
            return folder
    return str(Path.home())


def _remember(path: str) -> None:
    global _last_folder
    if path:
        _last_folder = str(Path(path) if Path(path).is_dir() else Path(path).parent)


def ask_open_files(parent: QWidget, title: str = "Add recordings", file_filter: str = AUDIO_FILTER) -> list[str]:
    files, _ = QFileDialog.getOpenFileNames(parent, title, start_folder(), file_filter)
    if files:
        _remember(files[0])
    return list(files)


def ask_folder(parent: QWidget, title: str = "Add a folder of recordings") -> str:
    folder = QFileDialog.getExistingDirectory(parent, title, start_folder())
    _remember(folder)
    return folder


def ask_save_path(parent: QWidget, title: str, suggested: str, file_filter: str) -> str:
    if suggested and not Path(suggested).is_absolute():
        suggested = str(Path(start_folder()) / suggested)
    path, _ = QFileDialog.getSaveFileName(parent, title, suggested, file_filter)
    _remember(path)
    return path
