"""Top-level parser. Each command module registers its own subcommands.

A command module exposes ``register(subparsers)``; it adds a parser and sets
``func=handler`` on it, where ``handler(args) -> int`` returns the exit code.
Handlers raise :class:`engine.errors.EarshotError` for anything a user did or
gave wrong; :func:`main` turns it into one line on stderr and exit code 1, and
does the same for an ``OSError`` no reader expected (the file it names, and why).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence

from engine.cli.terminal import shown
from engine.errors import EarshotError
from engine.logs import setup_logging

log = logging.getLogger("earshot")

#: Modules whose ``register`` adds subcommands, in the order ``--help`` lists them, with the
#: commands each adds. A command line naming one of them loads that module alone: the others
#: import the recognisers, the detectors and SciPy, a second of CPU a ``search`` never needs.
COMMAND_MODULES = {
    "engine.cli.ingest_cmd": ("ingest",),
    "engine.cli.import_cmd": ("import",),
    "engine.cli.library_cmd": ("list", "show", "export", "remove"),
    "engine.cli.search_cmd": ("search", "eval"),
    "engine.cli.models_cmd": ("models",),
    "engine.cli.rasch_cmd": ("rasch",),
    "engine.cli.entities_cmd": ("entities",),
    "engine.cli.segment_cmd": ("segment",),
    "engine.cli.speakers_cmd": ("speakers",),
}
#: Global options that take a value (the command name is the first other word).
_VALUE_OPTIONS = ("--db",)


class UsageError(EarshotError):
    """Bad command-line usage (argparse's own errors go through here too)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message if self.prog == "earshot" else f"{self.prog.removeprefix('earshot ')}: {message}")


def named_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word that is not a global option or its value), if any."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _VALUE_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command-line parser; given ``argv`` that names a known command, with that command's module alone."""
    command = named_command(argv) if argv is not None else None
    modules = [m for m, names in COMMAND_MODULES.items() if command in names] or list(COMMAND_MODULES)
    parser = _Parser(prog="earshot", description="Search and jump into hours of recorded speech.")
    parser.add_argument("--db", metavar="PATH", help="index file to use (default: the one in the user data folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


#: Exit code when the reader of standard output went away (as a shell reports SIGPIPE: 128 + 13).
EXIT_BROKEN_PIPE = 141

#: Signals that stop a command the way Ctrl+C does: a service manager's or ``kill``'s SIGTERM, and
#: SIGHUP from a closed terminal. Their default action ends the process on the spot, leaving an
#: ingest's job "running" and its workers behind.
STOP_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class Stopped(KeyboardInterrupt):
    """A stop signal, raised where Ctrl+C's KeyboardInterrupt would be so the same clean-up runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum: int, _frame: object) -> None:
    raise Stopped(signum)


@contextlib.contextmanager
def _stop_signals_interrupt() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Stopped`; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise_stopped) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the process exit code.

    Output piped into a reader that stops early (``| head``) ends the command
    quietly. A file name's bytes that are not UTF-8 are shown as ``\\xNN``, as the index
    stores them (``terminal.shown``); anything printed without it writes them back as bytes.
    """
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")
    try:
        try:
            with _stop_signals_interrupt():
                code = _run(argv)
        except SystemExit as exc:  # argparse after --help or a usage error: its output still needs flushing here
            code = _exit_code(exc)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # Later writes (and the flush at exit) must not raise again: send them nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _exit_code(exc: SystemExit) -> int:
    """The exit code ``SystemExit`` carries; a message in its place is printed, as Python would."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    print(exc.code, file=sys.stderr)
    return 1


#: Characters of a file name an error quotes (a name past the system's limit is thousands long).
_QUOTED_NAME_CHARS = 120


def _file_problem(exc: OSError) -> str:
    """One line for a file that could not be reached: its name (cut short) and the system's reason."""
    name = os.fsdecode(exc.filename) if exc.filename is not None else ""
    if len(name) > _QUOTED_NAME_CHARS:
        name = name[:_QUOTED_NAME_CHARS] + "…"
    reason = exc.strerror or type(exc).__name__
    return f"{name}: {reason}" if name else reason


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"earshot: error: {shown(exc)}", file=sys.stderr)
        return 2

    setup_logging(verbose=args.verbose)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except EarshotError as exc:
        log.debug("command failed", exc_info=True)
        print(f"earshot: error: {shown(exc)}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # the reader of standard output went away: main() ends quietly
    except OSError as exc:  # a file a reader did not expect to fail (a name past the system's limit, say)
        log.debug("command failed", exc_info=True)
        print(f"earshot: error: {shown(_file_problem(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        print("earshot: interrupted", file=sys.stderr)
        return 128 + (exc.signum if isinstance(exc, Stopped) else signal.SIGINT)
