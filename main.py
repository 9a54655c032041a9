"""Earshot: with a command, run it; without one, open the desktop app."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path


def run(argv: list[str]) -> int:
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


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(run(sys.argv[1:]))
