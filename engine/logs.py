"""Logging to a file in the user data folder; details never go to the user's face."""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys

from engine.paths import log_dir

_configured = False


class LogFile(logging.handlers.RotatingFileHandler):
    """The log file; a write it cannot make (a full disk) is dropped without a word.

    The logging module would print a ``--- Logging error ---`` block with a traceback on
    stderr, ahead of the one line the command gives about the same fault.
    """

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802  (logging's name)
        return None

    def flush(self) -> None:
        with contextlib.suppress(OSError):
            super().flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            super().close()


def setup_logging(*, verbose: bool = False) -> None:
    """Send full tracebacks to ``earshot.log``; warnings (or all, if verbose) to stderr."""
    global _configured
    if _configured:
        return
    _configured = True
    root = logging.getLogger("earshot")
    root.setLevel(logging.DEBUG)
    try:
        directory = log_dir()
        directory.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = LogFile(
            directory / "earshot.log", maxBytes=2_000_000, backupCount=2, encoding="utf-8"
        )
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
        handler.setLevel(logging.DEBUG)
        root.addHandler(handler)
    except OSError:
        pass  # a read-only home must not stop the program
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("earshot: %(message)s"))
    root.addHandler(console)
