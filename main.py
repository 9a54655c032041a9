"""Earshot: with a command, run it; without one, open the desktop app."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import NoReturn


def run(argv: list[str]) -> int:
    if argv[:1] == ["--self-test"]:
        from engine.selftest import run_self_test  # lazy: main.py loads only what the run needs

        return run_self_test()
    if argv[:1] == ["--gui-smoke-test"]:
        return gui_smoke_test()
    from engine.cli.main import UsageError, build_parser, main  # lazy: a GUI start needs no parser

    if any(a in ("-h", "--help") for a in argv):
        return main(argv)
    try:
        known, unknown = build_parser(argv).parse_known_args(argv)
    except UsageError:
        return main(argv)  # prints the usage error
    if known.command is not None or unknown:
        return main(argv)  # a command, or an option no command takes (a one-line usage error)
    if not has_display():
        print("earshot: no display to open the desktop app on (DISPLAY and WAYLAND_DISPLAY are unset); "
              "run a command instead (earshot --help lists them)", file=sys.stderr)
        return 1
    from app.main_window import run_gui  # lazy: a command never loads Qt

    return run_gui([sys.argv[0]], Path(known.db).absolute() if known.db else None)


def has_display() -> bool:
    """False on Linux when Qt would find no screen: no X or Wayland display and no other platform chosen."""
    if not sys.platform.startswith("linux"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def gui_smoke_test() -> int:
    """Open the main window and quit as soon as the event loop runs: 0 if a window was shown."""
    from PySide6.QtCore import QTimer  # lazy: a command never loads Qt
    from PySide6.QtWidgets import QApplication

    from app.main_window import run_gui  # lazy: a command never loads Qt

    app = QApplication([sys.argv[0]])
    QTimer.singleShot(0, lambda: app.exit(0 if any(w.isVisible() for w in app.topLevelWidgets()) else 3))
    return run_gui([sys.argv[0]])


#: Seconds the interpreter's own shutdown may take once a command or the app has ended: a library's
#: thread or exit handler that hangs (a cluster's, after Ctrl+C) must not keep a finished process alive.
EXIT_GRACE_SECONDS = 20.0


def exit_bounded(code: int) -> NoReturn:
    """Exit with ``code``; past :data:`EXIT_GRACE_SECONDS` of shutdown, end the process with it anyway."""

    def hard_exit() -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)

    timer = threading.Timer(EXIT_GRACE_SECONDS, hard_exit)
    timer.daemon = True
    timer.start()
    sys.exit(code)


if __name__ == "__main__":
    if getattr(sys, "frozen", False):  # a bundled app's worker processes start through here; a command needs no more
        import multiprocessing

        multiprocessing.freeze_support()
    exit_bounded(run(sys.argv[1:]))
