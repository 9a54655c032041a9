"""The log view: one line per ingest outcome, plus the engine's log records (full tracebacks included)."""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPlainTextEdit

#: Lines kept in the view; the log file keeps everything.
MAX_LINES = 5000


class _Bridge(QObject):
    line = Signal(str)


class QtLogHandler(logging.Handler):
    """A logging handler that hands records to the UI thread through a signal (safe from any thread)."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.bridge = _Bridge()
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.bridge.line.emit(self.format(record))
        except Exception:  # a log call must never break the caller
            self.handleError(record)


class LogPanel(QPlainTextEdit):
    """Read-only, time-stamped lines; the newest at the bottom."""

    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setMaximumBlockCount(MAX_LINES)
        self.setAccessibleName("Log")
        self.setPlaceholderText("Ingest outcomes and errors appear here; full details go to the log file.")
        self.handler = QtLogHandler()
        self.handler.bridge.line.connect(self.add_line)

    def add_line(self, text: str) -> None:
        self.appendPlainText(f"{time.strftime('%H:%M:%S')}  {text}")

    def attach(self, logger_name: str = "earshot") -> None:
        logging.getLogger(logger_name).addHandler(self.handler)

    def detach(self, logger_name: str = "earshot") -> None:
        logging.getLogger(logger_name).removeHandler(self.handler)
