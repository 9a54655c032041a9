"""Argument types and look-ups shared by the commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.cli.terminal import shown
from engine.paths import default_db_path
from engine.storage.store import Store

if TYPE_CHECKING:
    from engine.asr.base import ModelSpec


def _whole_number(text: str, minimum: int, wanted: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _whole_number(text, 1, "at least 1")


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _whole_number(text, 0, "0 or more")


def command_group(subparsers: Any, name: str, dest: str, metavar: str = "SUBCOMMAND",
                  **parser_options: Any) -> tuple[argparse.ArgumentParser, Any]:
    """A command made of subcommands, and the action that takes them; alone, it prints its help and exits 2."""
    parser = subparsers.add_parser(name, **parser_options)
    parser.set_defaults(func=lambda args: _print_help(parser))
    return parser, parser.add_subparsers(dest=dest, metavar=metavar, parser_class=type(parser))


def _print_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def open_db_path(args: argparse.Namespace) -> Path:
    """The index file named by ``--db``, or the default one."""
    return Path(args.db).absolute() if args.db else default_db_path()


def open_store(args: argparse.Namespace, *, writing: bool = False) -> Store:
    """Open the index; report jobs a crash left running as interrupted.

    Without ``writing``, an index that cannot be written (full disk, read-only
    file or media) is opened read-only, so it can still be listed and searched.
    """

    path = open_db_path(args)
    store = Store(path) if writing else Store.for_reading(path)
    for job in store.mark_interrupted_jobs():
        print(interrupted_note(job), file=sys.stderr)
    return store


def interrupted_note(job: dict[str, Any]) -> str:
    """The line that tells a user an earlier ingest was stopped by a crash or a kill."""
    return f"note: {shown(Store.interrupted_note(job))}"


def resolve_model(name: str | None) -> ModelSpec:
    """The speech model to use: the named one, the user's default, or the embedded one."""
    from models.manager import ModelManager  # lazy: commands other than ingest never read the catalogue

    return ModelManager().resolve(name)
