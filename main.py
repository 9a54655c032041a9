"""Earshot: with a command, run it; without one, open the desktop app."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path


def run(argv: list[str]) -> int:
    if argv[:1] == ["--self-test"]:
        from engine.selftest import run_self_test

        return run_self_test()
    if argv[:1] == ["--gui-smoke-test"]:
        return gui_smoke_test()
    from engine.cli.main import UsageError, build_parser, main

    if any(a in ("-h", "--help") for a in argv):
        return main(argv)
    try:
        known, _ = build_parser().parse_known_args(argv)
    except UsageError:
        return main(argv)  # prints the usage error
    if known.command is not None:
        return main(argv)
    from app.main_window import run_gui

    return run_gui([sys.argv[0]], Path(known.db).absolute() if known.db else None)


def gui_smoke_test() -> int:
    """Open the main window and quit as soon as the event loop runs: 0 if a window was shown."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.main_window import run_gui

    app = QApplication([sys.argv[0]])
    QTimer.singleShot(0, lambda: app.exit(0 if any(w.isVisible() for w in app.topLevelWidgets()) else 3))
    return run_gui([sys.argv[0]])


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(run(sys.argv[1:]))
