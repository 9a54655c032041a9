"""Earshot: with arguments, run a command; without, open the desktop app."""

from __future__ import annotations

import sys


def run(argv: list[str]) -> int:
    if not argv or argv in (["--gui"],):
        from app.main_window import run_gui

        return run_gui([sys.argv[0]])
    if argv[0] == "--gui":
        from app.main_window import run_gui

        return run_gui([sys.argv[0], *argv[1:]])
    from engine.cli import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
