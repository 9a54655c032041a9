"""Argument types and look-ups shared by the commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.asr.base import ModelSpec
from engine.index.store import Store
from engine.paths import default_db_path


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def open_db_path(args: argparse.Namespace) -> Path:
    """The index file named by ``--db``, or the default one."""
    return Path(args.db).absolute() if args.db else default_db_path()


def open_store(args: argparse.Namespace) -> Store:
    """Open the index; report jobs a crash left running as interrupted."""
    import sys

    store = Store(open_db_path(args))
    for job in store.mark_interrupted_jobs():
        print(f"note: an earlier ingest of {job['path']} was interrupted; it was not indexed", file=sys.stderr)
    return store


def resolve_model(name: str | None) -> ModelSpec:
    """The speech model to use: the named one, the user's default, or the embedded one."""
    from models.manager import ModelManager

    return ModelManager().resolve(name)
