"""Hot-spot passage search over word-timed transcripts (Wade and Allan's passage models).

Public API::

    from engine.search import index_passages, search, SearchFilters
    index_passages(store, recording_id)   # at ingest, inside store.atomic()
    hits = search(store, "flood warning", model="mm", limit=20)
    hits[0].start, hits[0].end, hits[0].snippet

See ``docs/search.md`` for the models, the statistics kept in the index, the
hot-spot blend and the evaluation.

The public names load on first use: a recognition worker imports ``engine.search.segments`` and
needs none of the query side (ranking, extents, the index writer).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.search.config import DEFAULT_MODEL, MODELS
    from engine.search.passage_blocks import index_passages, reindex_stale, transcript_text
    from engine.search.query import Event, Hit, MatchedWord, QueryReport, SearchFilters, did_you_mean, explain, search
    from engine.search.ranking import ModelParams

#: Where each public name lives; each is loaded on first use (see above).
_HOMES: dict[str, str] = {
    **dict.fromkeys(("DEFAULT_MODEL", "MODELS"), "engine.search.config"),
    **dict.fromkeys(("index_passages", "reindex_stale", "transcript_text"), "engine.search.passage_blocks"),
    **dict.fromkeys(
        ("Event", "Hit", "MatchedWord", "QueryReport", "SearchFilters", "did_you_mean", "explain", "search"),
        "engine.search.query",
    ),
    "ModelParams": "engine.search.ranking",
}

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "Event",
    "Hit",
    "MatchedWord",
    "ModelParams",
    "QueryReport",
    "SearchFilters",
    "did_you_mean",
    "explain",
    "index_passages",
    "reindex_stale",
    "search",
    "transcript_text",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
