"""Hot-spot passage search over word-timed transcripts (Wade and Allan's passage models).

Public API::

    from engine.search import index_passages, search, SearchFilters
    index_passages(store, recording_id)   # at ingest, inside store.atomic()
    hits = search(store, "flood warning", model="mm", limit=20)
    hits[0].start, hits[0].end, hits[0].snippet

See ``docs/search.md`` for the models, the statistics kept in the index, the
hot-spot blend and the evaluation.
"""

from engine.search.config import DEFAULT_MODEL, MODELS
from engine.search.passage_blocks import index_passages, reindex_stale, transcript_text
from engine.search.query import Event, Hit, MatchedWord, QueryReport, SearchFilters, did_you_mean, explain, search
from engine.search.ranking import ModelParams

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
