"""``search``: from typed words to the few seconds of the right recording.

1. The query's terms (stop words out) and their library-wide statistics.
2. Candidates through SQLite FTS5 (:mod:`engine.search.candidates`).
3. A model scores the candidate units (:mod:`engine.search.ranking`).
4. Hot-spot blend over the best units (:mod:`engine.search.hotspot`).
5. Overlaps removed: a passage whose first half was already returned comes back
   as its second half only, so no second of audio is listed twice. With soft extents
   (the default, :mod:`engine.search.extents`) each hit then grows from its query words
   to the boundary evidence around it, and hits never share a word.
6. Hits with times, character spans, a snippet with the query words marked,
   and the events around them.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from engine.errors import ParameterError
from engine.search import config, hotspot
from engine.search.candidates import CandidateLimits, Candidates, gather, gather_context
from engine.search.extents import SpanTuple, anchor_run, soft_spans
from engine.search.ranking import ModelParams, QueryStats, Ranking, rank
from engine.search.text import ParsedQuery, fts_match, parse_query
from engine.storage.passages import Filters, PassageIndex
from engine.storage.store import Store
from engine.writing import ends_sentence, written_groups


@dataclass(frozen=True)
class SearchFilters:
    """Restrict a search. Empty fields restrict nothing.

    ``event_types``: only units with such an event within ``EVENT_MARGIN_SECONDS``;
    ``entity``/``entity_type``: only units containing a named entity with that
    text (case-insensitive, exact) and/or of that type; ``recordings``: ids;
    ``date_from``/``date_to``: the recording's broadcast date (from its name,
    else the day it was ingested), inclusive; ``speaker``: only hits where a
    speaker of that name (case-insensitive) has a turn.
    """

    event_types: tuple[str, ...] = ()
    entity: str | None = None
    entity_type: str | None = None
    recordings: tuple[int, ...] = ()
    date_from: dt.date | str | None = None
    date_to: dt.date | str | None = None
    speaker: str | None = None

    def to_index(self) -> Filters:
        return Filters(
            recording_ids=tuple(int(r) for r in self.recordings),
            date_from=_iso(self.date_from), date_to=_iso(self.date_to),
            event_types=tuple(self.event_types), entity=self.entity, entity_type=self.entity_type,
            event_margin=config.EVENT_MARGIN_SECONDS,
        )

    @property
    def needs_block_check(self) -> bool:
        return bool(self.event_types or self.entity or self.entity_type)


@dataclass(frozen=True)
class Event:
    """An audio event near a hit, seconds from the start of the recording."""

    type: str
    start: float
    end: float
    score: float | None


@dataclass(frozen=True)
class MatchedWord:
    """A word of a hit that matched the query: its index in the recording, seconds, text."""

    word: int
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class QueryReport:
    """How a query was read: what was searched for, what was left out and why."""

    terms: tuple[str, ...]  # the library terms searched for (prefix expansions included)
    ignored: tuple[str, ...]  # words too common or too short to search for
    unknown: tuple[str, ...]  # words the library never heard
    suggestions: dict[str, str]  # unknown word -> the closest word the library has
    expansions: tuple[str, ...]  # what the word being typed was read as
    phrases: tuple[str, ...]  # quoted phrases, words joined by spaces

    def message(self) -> str:
        """One line for the user ("" when everything was searched for as typed)."""
        parts = []
        if self.ignored:
            parts.append("ignored " + ", ".join(f"“{w}”" for w in self.ignored) + " (too common to search for)")
        for word in self.unknown:
            hint = self.suggestions.get(word)
            parts.append(f"“{word}” is not in any transcript" + (f" — did you mean “{hint}”?" if hint else ""))
        if self.expansions:
            parts.append("completing as " + ", ".join(self.expansions))
        return "; ".join(parts)


@dataclass(frozen=True)
class Hit:
    """One result: play ``path`` from ``start`` to ``end`` seconds."""

    recording_id: int
    name: str
    path: str
    start: float
    end: float
    score: float  # the hot-spot score when the blend is on, else the model's score
    snippet: str  # query words marked with config.SNIPPET_MARKS
    char_start: int  # span in the recording's transcript text (words joined by spaces), end exclusive
    char_end: int
    first_word: int
    last_word: int
    story_idx: int | None
    model: str
    text_score: float
    features: dict[str, float] = field(default_factory=dict)
    events: tuple[Event, ...] = ()
    #: Where to play from: the first word of the densest run of matched words less
    #: ``config.LEAD_IN_SECONDS``, never before ``start`` (the lead-in stays in the hit).
    play_from: float = 0.0
    #: The query words in the hit, in order (at most ``config.MAX_MATCHED_WORDS``): those of the
    #: ranked passage the hit grew from (a soft extent may hold more).
    matches: tuple[MatchedWord, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def search(store: Store, query: str, *, model: str = config.DEFAULT_MODEL, limit: int = 20,
           filters: SearchFilters | None = None, hotspot_weight: float | None = None, snippets: bool = True,
           params: ModelParams | None = None, prefix: bool = False) -> list[Hit]:
    """The best ``limit`` passages for ``query`` under ``model`` (one of ``config.MODELS``).

    Quoted words (``"new orleans"``) must occur together, stop words between them skipped.
    With ``prefix`` (search as you type) a last word not yet followed by a space also
    matches the library's commonest words that begin with it (``config.PREFIX_TERMS``).

    ``hotspot_weight`` (default ``config.HOTSPOT_WEIGHT``; 0 = text only) blends
    in the audio around each passage. ``snippets=False`` skips snippets and
    events (evaluation runs). Read-only.
    """
    if model not in config.MODELS:
        raise ParameterError(f"unknown model {model!r}; choose one of {', '.join(config.MODELS)}")
    if limit < 1:
        raise ParameterError(f"limit must be at least 1, got {limit}")
    weight = config.HOTSPOT_WEIGHT if hotspot_weight is None else float(hotspot_weight)
    if weight < 0:
        raise ParameterError(f"hot-spot weight must be >= 0, got {weight}")
    params = params or ModelParams()
    if filters is not None and filters.speaker:
        return _search_speaker(store, query, filters, model=model, limit=limit, hotspot_weight=weight,
                               snippets=snippets, params=params, prefix=prefix)
    filt = filters.to_index() if filters else None
    plan = _plan(store, parse_query(query, prefix=prefix))
    if plan is None:
        return []
    weights, known, phrases = plan
    texts = sorted(weights)
    stats = QueryStats(
        term_ids=np.array([known[t][0] for t in texts], dtype=np.int64),
        query_tf=np.array([weights[t] for t in texts], dtype=np.float64),
        cf=np.array([known[t][1] for t in texts], dtype=np.float64),
        df=np.array([known[t][2] for t in texts], dtype=np.float64),
        totals=PassageIndex(store).corpus_totals(),
        cf_lookup=lambda ids: PassageIndex(store).collection_frequencies(ids),
    )
    limits = CandidateLimits(params.candidate_blocks, params.candidate_docs, params.candidate_block_budget)
    cands = None
    if phrases:
        # The full-text index keeps no positions: it finds blocks with every phrase word, and
        # _has_phrases keeps the units where they stand together.
        plans = [[(fts_match(sorted({t for p in phrases for t in p}), every=True), float(len(phrases)))]]
    else:
        plans = match_expressions(texts, stats.df, stats.totals.n_passages)
    for plan_k in plans:
        if model == "mm" and params.context_words > 0:
            cands = gather_context(store, plan_k, limits=limits, filters=filt, context_words=params.context_words,
                                   given_whole=params.context_given_whole)
        else:
            cands = gather(store, plan_k, limits=limits, filters=filt, with_word_chars=model == "qwd")
        if cands is not None:
            break
    if cands is None:
        return []
    phrase_ids = [np.array([known[t][0] for t in p], dtype=np.int64) for p in phrases]
    marked = _marked_tokens(cands.tokens["term"], stats.term_ids, phrase_ids)
    ranking = rank(cands, stats, model, params)
    if phrases and len(ranking):
        ranking = ranking.take(np.flatnonzero(_has_phrases(cands.tokens["term"], phrase_ids, ranking)))
    if filters is not None and filters.needs_block_check and len(ranking):
        ranking = ranking.take(np.flatnonzero(_passes(store, cands, ranking, filters)))
    if not len(ranking):
        return []
    if params.teaser_penalty > 0:
        _down_weight_teasers(store, ranking, cands, marked, params.teaser_penalty, max(config.HOTSPOT_DEPTH, limit))
    order = np.argsort(-ranking.score, kind="stable")
    wanted = limit * (config.EXTENT_OVERFETCH if params.passage_extent == "soft" else 1)
    head = order[: max(config.HOTSPOT_DEPTH, wanted)] if weight > 0 else order[:wanted]
    _resolve_times(store, ranking, head)
    final = ranking.score.copy()
    features: dict[str, np.ndarray] = {}
    if weight > 0:
        features = _features(store, ranking, head, texts)
        final[head] = hotspot.blend(ranking.score[head], features, weight=weight)
        features = {k: _scatter(v, head, len(ranking)) for k, v in features.items()}
        order = np.concatenate([head[np.argsort(-final[head], kind="stable")], order[len(head):]])
    soft = params.passage_extent == "soft"
    pieces = _without_overlaps(ranking, cands, order, limit * (config.EXTENT_OVERFETCH if soft else 1))
    spans = _piece_spans(ranking, cands, pieces)
    if soft and pieces:
        kept = soft_spans(store, [int(ranking.recording_id[p[0]]) for p in pieces], spans,
                          _matched_positions(ranking, cands, pieces, spans, marked), limit=limit, params=params.extent)
        pieces, spans = [pieces[k] for k, _ in kept], [span for _, span in kept]
    hits = _hits(store, ranking, cands, pieces, spans, final, features, model, marked, snippets)
    return [h for h in hits if h.matches] if phrases else hits  # a piece cut off its phrase


def _search_speaker(store: Store, query: str, filters: SearchFilters, *, limit: int, **options: Any) -> list[Hit]:
    """:func:`search` narrowed to the recordings that have the speaker, then to the hits where the speaker talks
    (``config.SPEAKER_OVERFETCH`` times ``limit`` asked for, so the best ``limit`` that pass are kept)."""
    name = str(filters.speaker)
    having = set(store.recordings_with_speaker(name))
    if filters.recordings:
        having &= {int(r) for r in filters.recordings}
    if not having:
        return []
    wider = replace(filters, speaker=None, recordings=tuple(sorted(having)))
    hits = search(store, query, limit=limit * config.SPEAKER_OVERFETCH, filters=wider, **options)
    return [h for h in hits if store.speaker_talks_in(h.recording_id, name, h.start, h.end)][:limit]


def explain(store: Store, query: str, *, prefix: bool = False) -> QueryReport:
    """How :func:`search` reads ``query``: ignored words, unknown words with a "did you mean"
    from the library's own vocabulary, and what a word being typed is completed to. Read-only."""
    parsed = parse_query(query, prefix=prefix)
    known = PassageIndex(store).terms_by_text(list(parsed.terms))
    expansions: tuple[str, ...] = ()
    if parsed.partial is not None:
        expansions = tuple(t for t, _ in PassageIndex(store).terms_with_prefix(parsed.partial, limit=config.PREFIX_TERMS))
    unknown = tuple(dict.fromkeys(t for t in parsed.terms if t not in known
                                  and not (t == parsed.partial and expansions)))
    suggestions = {}
    for word in unknown:
        hint = did_you_mean(store, word)
        if hint:
            suggestions[word] = hint
    shown = expansions if parsed.partial is not None and expansions != (parsed.partial,) else ()
    return QueryReport(terms=tuple(t for t in dict.fromkeys(parsed.terms) if t in known) + tuple(
                           e for e in expansions if e not in known),
                       ignored=parsed.ignored, unknown=unknown, suggestions=suggestions, expansions=shown,
                       phrases=tuple(" ".join(p) for p in parsed.phrases))


def did_you_mean(store: Store, word: str) -> str | None:
    """The library word closest to ``word`` (difflib ratio >= ``config.SUGGEST_MIN_SIMILARITY``,
    ties to the commoner word), or None."""
    pool = PassageIndex(store).terms_like(word, spread=config.SUGGEST_LENGTH_SPREAD)
    best: tuple[float, int, str] | None = None
    matcher = difflib.SequenceMatcher(b=word, autojunk=False)
    for text, cf in pool:
        matcher.set_seq1(text)
        if matcher.real_quick_ratio() < config.SUGGEST_MIN_SIMILARITY or matcher.quick_ratio() < config.SUGGEST_MIN_SIMILARITY:
            continue
        ratio = matcher.ratio()
        if ratio >= config.SUGGEST_MIN_SIMILARITY and (best is None or (ratio, cf) > best[:2]):
            best = (ratio, cf, text)
    return None if best is None else best[2]


def _plan(store: Store, parsed: ParsedQuery
          ) -> tuple[dict[str, float], dict[str, tuple[int, int, int]], list[tuple[str, ...]]] | None:
    """Query weights by term, the terms' (id, cf, df), and the phrases; None when nothing can match.

    A partial last word stands for its ``config.PREFIX_TERMS`` commonest completions in the
    library, sharing its weight; a phrase with a word the library lacks matches nothing.
    """
    weights: dict[str, float] = {}
    for t in parsed.terms:
        weights[t] = weights.get(t, 0.0) + 1.0
    if parsed.partial is not None:
        done = PassageIndex(store).terms_with_prefix(parsed.partial, limit=config.PREFIX_TERMS)
        if done:
            share = weights.pop(parsed.partial) / len(done)
            for t, _ in done:
                weights[t] = weights.get(t, 0.0) + share
    known = PassageIndex(store).terms_by_text(list(weights))
    phrases = list(parsed.phrases)
    if any(t not in known for p in phrases for t in p):
        return None
    weights = {t: w for t, w in weights.items() if t in known}
    return (weights, known, phrases) if weights else None


_CUE_WORDS = [tuple(c.split()) for c in config.TEASER_CUES]
#: The cues by their length in words, for set look-ups.
_CUES_BY_LENGTH: dict[int, frozenset[tuple[str, ...]]] = {
    n: frozenset(c for c in _CUE_WORDS if len(c) == n) for n in sorted({len(c) for c in _CUE_WORDS})
}


def _ends_with_cue(words: list[str]) -> bool:
    """Whether a teaser cue ends at most ``config.TEASER_CUE_WORDS`` words before the end of ``words``."""
    n = len(words)
    return any(tuple(words[i : i + length]) in cues
               for length, cues in _CUES_BY_LENGTH.items()
               for i in range(max(0, n - length - config.TEASER_CUE_WORDS), n - length + 1))


def _down_weight_teasers(store: Store, ranking: Ranking, cands: Candidates, marked: np.ndarray, penalty: float,
                         depth: int) -> None:
    """Lower the score of the best ``depth`` units that look like teasers or promos, in place.

    A teaser is a unit of a very short story, or one whose matched word follows a cue
    ("coming up", "still ahead", ...) within ``config.TEASER_CUE_WORDS`` words. With context
    windows the story is the passage's window, and it is a story only when a story given with the
    transcript clips it (a story the segmenter found is not the passage's document).
    """
    rows = np.argsort(-ranking.score, kind="stable")[:depth]
    if "ctx_lo" in cands.passages and ranking.kind == "passage":
        p = np.searchsorted(cands.passages["block_lo"], ranking.block_lo[rows])
        doc_tokens, in_story = cands.passages["ctx_hi"][p] - cands.passages["ctx_lo"][p], cands.passages["ctx_story"][p]
    else:
        doc = ranking.doc[rows]
        doc_tokens = (cands.docs["tok_hi"] - cands.docs["tok_lo"])[doc]
        in_story = cands.docs["story_idx"][doc] >= 0
    teaser = in_story & (doc_tokens < config.TEASER_SHORT_DOC_TOKENS)
    reach = config.TEASER_CUE_WORDS + max(len(c) for c in _CUE_WORDS)
    windows, firsts = [], []
    for r in rows:
        lo, hi = ranking.tok_lo[r], ranking.tok_hi[r]
        pos = cands.tokens["position"][lo:hi][marked[lo:hi]]
        pos = pos[(pos >= ranking.first_word[r]) & (pos <= ranking.last_word[r])]
        first = int(pos[0]) if len(pos) else int(ranking.first_word[r])
        firsts.append(first)
        windows.append((int(ranking.recording_id[r]), max(0, first - reach), first))
    texts: list[list[str]] = [[] for _ in rows]
    for key, _, text in PassageIndex(store).word_texts(windows):
        texts[key].append(str(text).lower().strip(".,!?;:\"'"))
    teaser |= np.array([_ends_with_cue(words) for words in texts], dtype=bool)
    ranking.score[rows] -= penalty * teaser


def _marked_tokens(term: np.ndarray, term_ids: np.ndarray, phrase_ids: list[np.ndarray]) -> np.ndarray:
    """Which candidate tokens match the query, shape (n_tokens,) bool: every token of a phrase
    occurrence, and any query term that is not part of a phrase."""
    in_phrase = np.concatenate(phrase_ids) if phrase_ids else np.array([], dtype=np.int64)
    marked = np.isin(term, np.setdiff1d(term_ids, in_phrase))
    for ids in phrase_ids:
        starts = _phrase_starts(term, ids)
        for k in range(len(ids)):
            marked[np.flatnonzero(starts) + k] = True
    return marked


def _phrase_starts(term: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Tokens where the consecutive terms ``ids`` begin, shape (n_tokens,) bool."""
    n, k = len(term), len(ids)
    starts = np.zeros(n, dtype=bool)
    if n < k:
        return starts
    ok = term[: n - k + 1] == ids[0]
    for j in range(1, k):
        ok &= term[j : n - k + 1 + j] == ids[j]
    starts[: n - k + 1] = ok
    return starts


def _has_phrases(term: np.ndarray, phrase_ids: list[np.ndarray], ranking: Ranking) -> np.ndarray:
    """Units holding every phrase whole, shape (len(ranking),) bool."""
    ok = np.ones(len(ranking), dtype=bool)
    for ids in phrase_ids:
        cum = np.concatenate([[0], np.cumsum(_phrase_starts(term, ids))])
        last_start = np.maximum(ranking.tok_hi - len(ids) + 1, ranking.tok_lo)
        ok &= cum[last_start] - cum[ranking.tok_lo] > 0
    return ok


# -- steps --------------------------------------------------------------------------


def match_expressions(texts: list[str], passage_df: np.ndarray, n_passages: int, *,
                      budget: int | None = None) -> list[list[tuple[str, float]]]:
    """Candidate-generation plans to try in order, each a list of (FTS5 MATCH expression, weight).

    First the rarest terms, one expression each weighted by its IDF, while their estimated
    matching blocks (passage df / 2) stay within ``budget`` (``config.CANDIDATE_MATCH_BUDGET``);
    when even the rarest term matches more, all the terms together. Each plan after the first is
    only tried when the one before found nothing (filters may exclude every rare-term block).
    """
    budget = config.CANDIDATE_MATCH_BUDGET if budget is None else budget
    weights = np.log((n_passages + 1) / (passage_df + 0.5))
    order = np.argsort(passage_df, kind="stable")
    within = np.cumsum(passage_df[order] / 2) <= budget
    each = [(fts_match([t]), float(w)) for t, w in zip(texts, weights, strict=True)]
    if within[0]:
        rare = [(fts_match([texts[i]]), float(weights[i])) for i in order[within]]
        return [rare] if within.all() else [rare, each]  # the commoner terms only if the rare ones find nothing
    return [[(fts_match(texts, every=True), float(weights.sum()))], each] if len(texts) > 1 else [each]


def _iso(value: dt.date | str | None) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.date):
        return value.isoformat()
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise ParameterError(f"dates are YYYY-MM-DD, got {value!r}") from None


def _passes(store: Store, cands: Candidates, ranking: Ranking, filters: SearchFilters) -> np.ndarray:
    """Units with at least one block that satisfies the event and entity filters."""
    ok_block = PassageIndex(store).passing_blocks(cands.blocks["id"], filters.to_index())
    cum = np.concatenate([[0], np.cumsum(ok_block)])
    return cum[ranking.block_hi + 1] - cum[ranking.block_lo] > 0


def _resolve_times(store: Store, ranking: Ranking, rows: np.ndarray) -> None:
    """Fill the start and end seconds of the spans at ``rows`` from the words table (spans that
    never come near the top are never looked up)."""
    missing = rows[np.isnan(ranking.start[rows])]
    if not len(missing):
        return
    pairs = [(int(r), int(w)) for r, w in zip(ranking.recording_id[missing], ranking.first_word[missing], strict=True)]
    pairs += [(int(r), int(w)) for r, w in zip(ranking.recording_id[missing], ranking.last_word[missing], strict=True)]
    times = PassageIndex(store).word_times(pairs)
    n = len(missing)
    ranking.start[missing] = [times.get(p, (np.nan, np.nan))[0] for p in pairs[:n]]
    ranking.end[missing] = [times.get(p, (np.nan, np.nan))[1] for p in pairs[n:]]


def _features(store: Store, ranking: Ranking, rows: np.ndarray, terms: list[str]) -> dict[str, np.ndarray]:
    rec = ranking.recording_id[rows]
    start, end = ranking.start[rows], ranking.end[rows]
    first, last = ranking.first_word[rows], ranking.last_word[rows]
    recs = sorted({int(r) for r in rec})
    info = PassageIndex(store).recordings_by_id(recs)
    baseline = np.array([info.get(int(r), {}).get("words_per_second", 0.0) for r in rec])
    events = PassageIndex(store).events_near(recs, list(config.HOTSPOT_EVENT_TYPES))
    entities = PassageIndex(store).entities_matching(recs, terms)
    return {
        "events": hotspot.event_feature(rec, start, end, events, type_weights=config.HOTSPOT_EVENT_TYPES,
                                        margin=config.EVENT_MARGIN_SECONDS),
        "rate": hotspot.rate_feature((last - first + 1).astype(np.float64), end - start, baseline,
                                     scale=config.RATE_SCALE),
        "entities": hotspot.entity_feature(rec, first, last, entities, terms),
    }


def _scatter(values: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n)
    out[rows] = values
    return out


def _without_overlaps(ranking: Ranking, cands: Candidates, order: np.ndarray, limit: int
                      ) -> list[tuple[int, int, int]]:
    """(unit row, first block, last block) of the first ``limit`` units in ``order``, each cut
    to the blocks no better unit returned. Only fixed passages overlap one another."""
    if ranking.kind != "passage":
        return [(int(r), int(ranking.block_lo[r]), int(ranking.block_hi[r])) for r in order[:limit]]
    covered = np.zeros(len(cands.blocks["id"]), dtype=bool)
    out: list[tuple[int, int, int]] = []
    for r in order:
        lo, hi = int(ranking.block_lo[r]), int(ranking.block_hi[r])
        free = np.flatnonzero(~covered[lo : hi + 1])
        if not len(free):
            continue
        out.append((int(r), lo + int(free[0]), lo + int(free[-1])))  # two blocks at most: contiguous
        covered[lo : hi + 1] = True
        if len(out) == limit:
            break
    return out


def _piece_spans(ranking: Ranking, cands: Candidates, pieces: list[tuple[int, int, int]]) -> list[SpanTuple]:
    """(first word, last word, start s, end s, char start, char end) of each piece: its unit's own
    span, or its blocks' when overlaps cut it."""
    b = cands.blocks
    spans = []
    for r, lo, hi in pieces:
        whole = lo == ranking.block_lo[r] and hi == ranking.block_hi[r]
        if whole:
            spans.append((int(ranking.first_word[r]), int(ranking.last_word[r]), float(ranking.start[r]),
                          float(ranking.end[r]), int(ranking.char_start[r]), int(ranking.char_end[r])))
        else:
            spans.append((int(b["first_word"][lo]), int(b["last_word"][hi]), float(b["start"][lo]),
                          float(b["end"][hi]), int(b["char_start"][lo]), int(b["char_end"][hi])))
    return spans


def _hits(store: Store, ranking: Ranking, cands: Candidates, pieces: list[tuple[int, int, int]],
          spans: list[SpanTuple], final: np.ndarray, features: dict[str, np.ndarray], model: str, marked: np.ndarray,
          snippets: bool) -> list[Hit]:
    if not pieces:
        return []
    rows = np.array([p[0] for p in pieces])
    recs = ranking.recording_id[rows]
    info = PassageIndex(store).recordings_by_id([int(r) for r in recs])
    story = cands.docs["story_idx"][ranking.doc[rows]]
    matched = _matched_positions(ranking, cands, pieces, spans, marked)
    words = _matched_words(store, recs, matched)
    anchors = [_anchor(w) if w else None for w in words]
    before = _words_before_anchors(store, recs, anchors)
    texts = _snippets(store, ranking, pieces, spans, matched) if snippets else [""] * len(pieces)
    near = _events_near(store, recs, spans) if snippets else [()] * len(pieces)
    hits = []
    for k, (r, _, _) in enumerate(pieces):
        first, last, start, end, c0, c1 = spans[k]
        rec = info.get(int(recs[k]), {"name": "", "path": ""})
        hits.append(Hit(
            recording_id=int(recs[k]), name=str(rec["name"]), path=str(rec["path"]), start=start, end=end,
            score=float(final[r]), snippet=texts[k], char_start=c0, char_end=c1, first_word=first, last_word=last,
            story_idx=None if story[k] < 0 else int(story[k]), model=model, text_score=float(ranking.score[r]),
            features={name: float(v[r]) for name, v in features.items()}, events=near[k],
            play_from=_play_from(start, anchors[k], before[k]),
            matches=words[k],
        ))
    return hits


def _play_from(start: float, anchor: MatchedWord | None, before: Sequence[MatchedWord] = ()) -> float:
    """Where a hit starting at ``start`` s plays from: its ``anchor`` word (:func:`_anchor`; None: no
    matched word) less the lead-in, to the millisecond, never before the hit's own start (rounding
    down must not leave the hit, or its story). ``before``: the words just before the anchor, in
    order, their text as shown; the lead-in stops at the end of the last of them that ends a
    sentence or a stretch of speech, so the first word heard opens the anchor's sentence (rounded
    up: not a millisecond of the word before)."""
    if anchor is None:
        return start
    lead = round(anchor.start - config.LEAD_IN_SECONDS, 3)
    following = [*before[1:], anchor] if before else []
    for word, after in zip(reversed(before), reversed(following), strict=True):
        if word.end < anchor.start - config.LEAD_IN_SECONDS:
            break
        if ends_sentence(word.text) or after.start - word.end >= config.LEAD_IN_PAUSE_SECONDS:
            lead = max(lead, min(math.ceil(word.end * 1000) / 1000, anchor.start))
            break
    return max(start, lead)


def _matched_positions(ranking: Ranking, cands: Candidates, pieces: list[tuple[int, int, int]],
                       spans: list[tuple[int, int, float, float, int, int]], marked: np.ndarray) -> list[np.ndarray]:
    """Word indices (sorted, unique) of the query words inside each hit's span."""
    out = []
    for k, (r, _, _) in enumerate(pieces):
        first, last = spans[k][0], spans[k][1]
        lo, hi = ranking.tok_lo[r], ranking.tok_hi[r]
        pos = cands.tokens["position"][lo:hi][marked[lo:hi]]
        out.append(np.unique(pos[(pos >= first) & (pos <= last)]))
    return out


def _anchor(words: tuple[MatchedWord, ...]) -> MatchedWord:
    """The word a hit plays from: the first of its densest run of matched words
    (:func:`~engine.search.extents.anchor_run`), so a lone query word at the tail of the story
    before, or in a teaser, does not take the listener there."""
    first, _ = anchor_run(np.array([w.word for w in words]), width=config.ANCHOR_WORDS)
    return next(w for w in words if w.word == first)


def _words_before_anchors(store: Store, recs: np.ndarray, anchors: list[MatchedWord | None]
                          ) -> list[tuple[MatchedWord, ...]]:
    """The ``config.LEAD_IN_WORDS`` words before each hit's anchor (fewer at the recording's start,
    none without an anchor), in order, their text as shown; one query for every hit."""
    ranges = [(int(rec), max(0, a.word - config.LEAD_IN_WORDS), a.word - 1) if a is not None else (int(rec), 0, -1)
              for rec, a in zip(recs, anchors, strict=True)]
    out: list[list[MatchedWord]] = [[] for _ in anchors]
    for key, idx, start, end, text in PassageIndex(store).word_rows(ranges, display=True):
        out[key].append(MatchedWord(int(idx), float(start), float(end), str(text)))
    return [tuple(w) for w in out]


def _matched_words(store: Store, recs: np.ndarray, matched: list[np.ndarray]) -> list[tuple[MatchedWord, ...]]:
    """The first ``config.MAX_MATCHED_WORDS`` matched words of each hit with their times and text."""
    ranges = [(int(rec), int(pos[0]), int(pos[: config.MAX_MATCHED_WORDS][-1])) if len(pos) else (int(rec), 0, -1)
              for rec, pos in zip(recs, matched, strict=True)]
    wanted = [set(pos[: config.MAX_MATCHED_WORDS].tolist()) for pos in matched]
    out: list[list[MatchedWord]] = [[] for _ in matched]
    for key, idx, start, end, text in PassageIndex(store).word_rows(ranges):
        if idx in wanted[key]:
            out[key].append(MatchedWord(int(idx), float(start), float(end), str(text)))
    return [tuple(w) for w in out]


def _snippets(store: Store, ranking: Ranking, pieces: list[tuple[int, int, int]],
              spans: list[tuple[int, int, float, float, int, int]], matched: list[np.ndarray]) -> list[str]:
    """About ``SNIPPET_WORDS`` words of each hit around its densest run of query words, those marked."""
    width = config.SNIPPET_WORDS
    windows, marks = [], []
    for k, (r, _, _) in enumerate(pieces):
        first, last = spans[k][0], spans[k][1]
        pos = matched[k]
        a = first
        if len(pos):
            starts = pos - width // 4
            counts = np.searchsorted(pos, starts + width) - np.searchsorted(pos, starts)
            a = int(starts[int(np.argmax(counts))])
        a = max(first, min(a, last - width + 1))
        windows.append((int(ranking.recording_id[r]), a, min(last, a + width - 1)))
        marks.append(set(pos.tolist()))
    raw: list[list[str]] = [[] for _ in windows]
    words: list[list[str]] = [[] for _ in windows]
    open_mark, close_mark = config.SNIPPET_MARKS
    for key, idx, text in PassageIndex(store).word_texts(windows):
        raw[key].append(text)
        words[key].append(f"{open_mark}{text}{close_mark}" if idx in marks[key] else text)
    out = []
    for k, (_, a, b) in enumerate(windows):  # words stored in pieces ("U" ".S.") shown whole
        text = " ".join("".join(words[k][i] for i in group) for group in written_groups(raw[k]))
        out.append(("… " if a > spans[k][0] else "") + text + (" …" if b < spans[k][1] else ""))
    return out


def _events_near(store: Store, recs: np.ndarray, spans: list[tuple[int, int, float, float, int, int]]
                 ) -> list[tuple[Event, ...]]:
    rows = PassageIndex(store).events_near([int(r) for r in recs])
    margin = config.EVENT_MARGIN_SECONDS
    out = []
    for k, rec in enumerate(recs):
        start, end = spans[k][2], spans[k][3]
        out.append(tuple(
            Event(str(e[1]), float(e[2]), float(e[3]), None if e[4] is None else float(e[4]))
            for e in rows if e[0] == rec and e[2] <= end + margin and e[3] >= start - margin
        ))
    return out
