"""Ingest: decode, recognise and index recordings.

The public names load on first use: a recognition worker imports this package on its way to
:mod:`engine.ingest.worker` and must not import the job (the index writer, the cluster client) it never runs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.ingest.job import FileOutcome, IngestJob, expand_paths

#: Where each public name lives; each is loaded on first use (see above).
_HOMES: dict[str, str] = {
    **dict.fromkeys(("FileOutcome", "IngestJob", "expand_paths"), "engine.ingest.job"),
}

__all__ = ["FileOutcome", "IngestJob", "expand_paths"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
