"""Soft passage extents: where a hit starts and ends, chosen per query from the boundary evidence.

A ranked passage is two 50-token blocks of one indexed story, so a story boundary the segmenter
missed runs through it and one it placed wrongly cuts the story it belongs to. Here each hit
instead grows outward from its densest run of query words (its *anchor*) to the nearest strong
boundary evidence on either side, within ``config.EXTENT_REACH_WORDS``: a story start in the
index, a pause, the end of a sentence, weighed together (:func:`boundary_evidence`). The index's
story cuts are evidence like the others, not walls: a hit may cross a cut whose evidence is weak
and stop at a long pause inside a story. Hits that would cover words an earlier hit covers are
trimmed to their own side of it, or dropped when their anchor is already covered.

A boundary the segmenter missed without a pause leaves no evidence at all; the query gives one.
The relevant story's own sentences share words (names, topic words) with the hit's *core* (its
anchor run and the words around it) while a neighbouring story's do not, so a gap followed (on
the far side from the core) by a stretch of words sharing no term with the core is evidence too
(:func:`cohesion_drop`, ``ExtentParams.cohesion_weight``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.search import config
from engine.search.text import word_terms
from engine.storage.passages import PassageIndex, WordRun
from engine.storage.store import Store
from engine.writing import ends_sentence

#: (first word, last word, start s, end s, char start, char end exclusive) of a hit.
SpanTuple = tuple[int, int, float, float, int, int]


@dataclass(frozen=True)
class ExtentParams:
    """Weights of the boundary cues (a gap is a boundary when its evidence reaches 1) and the reach."""

    reach_words: int = config.EXTENT_REACH_WORDS
    story_weight: float = config.EXTENT_STORY_WEIGHT
    pause_weight: float = config.EXTENT_PAUSE_WEIGHT
    pause_seconds: float = config.EXTENT_PAUSE_SECONDS
    sentence_weight: float = config.EXTENT_SENTENCE_WEIGHT
    #: Added to a sentence end's weight before the anchor only (where the hit opens).
    opening_weight: float = config.EXTENT_OPENING_WEIGHT
    min_words: int = config.EXTENT_MIN_WORDS
    #: Pauses and sentence ends count only inside documents of at least this many words (0: all).
    pause_inside_words: int = config.EXTENT_PAUSE_INSIDE_WORDS
    #: Stories given with the transcript (no posterior stored: caption markers, an older index's
    #: hand-made stories) are kept whole: pauses and sentence ends inside them do not count.
    trust_given_stories: bool = config.EXTENT_TRUST_GIVEN_STORIES
    #: Whether an extent may end inside the ranked passage (else it only grows).
    shrink: bool = config.EXTENT_SHRINK
    #: Evidence added where the words beyond a gap share no term with the hit's core (0: off).
    cohesion_weight: float = config.EXTENT_COHESION_WEIGHT
    #: Words in the stretch beyond a gap that must share no term with the core, and words either
    #: side of the anchor run that make up the core.
    cohesion_words: int = config.EXTENT_COHESION_WORDS
    #: Terms in the cores of at least two of this many best hits count as every hit's core (0: off).
    cohesion_feedback: int = config.EXTENT_COHESION_FEEDBACK

    def __post_init__(self) -> None:
        if self.pause_inside_words < 0:
            raise ParameterError(f"pause_inside_words must be >= 0, got {self.pause_inside_words}")
        if self.reach_words < 0 or self.min_words < 1:
            raise ParameterError(f"extent reach must be >= 0 and floor >= 1 words, got {self.reach_words}, "
                                 f"{self.min_words}")
        if self.cohesion_weight < 0 or self.cohesion_words < 1 or self.cohesion_feedback < 0:
            raise ParameterError(f"cohesion weight and feedback hits must be >= 0 and its stretch >= 1 words, got "
                                 f"{self.cohesion_weight}, {self.cohesion_feedback}, {self.cohesion_words}")
        if min(self.story_weight, self.pause_weight, self.sentence_weight, self.opening_weight) < 0 \
                or self.pause_seconds <= 0:
            raise ParameterError("extent cue weights must be >= 0 and the pause scale > 0 s, got "
                                 f"{self.story_weight}, {self.pause_weight}, {self.sentence_weight}, "
                                 f"{self.opening_weight}, {self.pause_seconds}")


def boundary_evidence(starts: np.ndarray, ends: np.ndarray, story_start: np.ndarray, sentence_end: np.ndarray,
                      params: ExtentParams, *, trusted: np.ndarray | None = None) -> np.ndarray:
    """Evidence of a boundary just before each word of a run of consecutive words.

    Parameters
    ----------
    starts, ends : (n,) seconds of each word
    story_start : (n,) float in [0, 1], the index starts a story (search document) at the word, times the
        posterior the segmenter gave that boundary (1 for a story it did not find: given, or edited)
    sentence_end : (n,) bool, the word ends a sentence (its display text ends in . ? !)
    trusted : (n,) bool, pauses and sentence ends before the word count (default: everywhere);
        inside a short story the index found they do not (only its own cuts do)

    Returns
    -------
    (n,) float, ``story_weight * story_start[j] + pause_weight * min(pause / pause_seconds, 1)
    + sentence_weight * sentence_end[j - 1]``, the pause being ``starts[j] - ends[j - 1]``; 0 for
    the first word (nothing is known before it).
    """
    n = len(starts)
    if not (len(ends) == len(story_start) == len(sentence_end) == n):
        raise ParameterError(f"boundary cues must have one value per word, got {len(starts)}, {len(ends)}, "
                             f"{len(story_start)}, {len(sentence_end)}")
    out = np.zeros(n)
    if n < 2:
        return out
    pause = np.clip((np.asarray(starts[1:]) - np.asarray(ends[:-1])) / params.pause_seconds, 0.0, 1.0)
    inner = params.pause_weight * pause + params.sentence_weight * np.asarray(sentence_end[:-1], dtype=np.float64)
    if trusted is not None:
        inner = np.where(np.asarray(trusted[1:], dtype=bool), inner, 0.0)
    out[1:] = params.story_weight * np.asarray(story_start[1:], dtype=np.float64) + inner
    return out


def extent_edges(evidence: np.ndarray, anchor_lo: int, anchor_hi: int, fallback: tuple[int, int], *,
                 min_words: int) -> tuple[int, int]:
    """First and last word (indexes into ``evidence``) of the extent around the anchor words.

    The extent starts at the nearest word at or before ``anchor_lo`` with evidence >= 1 and
    ends just before the nearest word after ``anchor_hi`` with evidence >= 1; a side with no
    such word within ``evidence`` keeps its ``fallback`` edge. An extent shorter than
    ``min_words`` words is ``fallback`` whole.
    """
    n = len(evidence)
    if not 0 <= anchor_lo <= anchor_hi < n or not 0 <= fallback[0] <= fallback[1] < n:
        raise ParameterError(f"anchor {anchor_lo}..{anchor_hi} and fallback {fallback} must lie in 0..{n - 1}")
    strong = evidence >= 1.0
    left = np.flatnonzero(strong[: anchor_lo + 1])
    right = np.flatnonzero(strong[anchor_hi + 1 :])
    first = int(left[-1]) if len(left) else min(fallback[0], anchor_lo)
    last = anchor_hi + int(right[0]) if len(right) else max(fallback[1], anchor_hi)
    if last - first + 1 < min_words:
        return fallback
    return first, last


def cohesion_terms(display: Sequence[str], ids: dict[str, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Term ids (t,) and the word (index into ``display``) each comes from (t,), for cohesion:
    terms of at least ``config.COHESION_MIN_CHARS`` characters, a final "s" dropped. ``ids`` maps
    terms to ids and grows with new ones (pass one dict to compare the ids of several runs)."""
    found, where = word_terms(display)
    ids = {} if ids is None else ids
    term_id, term_word = [], []
    for term, word in zip(found, where, strict=True):
        if len(term) >= config.COHESION_MIN_CHARS:
            term_id.append(ids.setdefault(term[:-1] if term.endswith("s") else term, len(ids)))
            term_word.append(word)
    return np.asarray(term_id, dtype=np.int64), np.asarray(term_word, dtype=np.int64)


def cohesion_drop(term_id: np.ndarray, term_word: np.ndarray, n: int, core: tuple[int, int], *, words: int,
                  topic_terms: np.ndarray | None = None) -> np.ndarray:
    """Where the text leaves the core's vocabulary: 1 before word ``j`` when the ``words`` words on
    the far side of the gap from the core share no term with words ``core[0]..core[1]``, else 0.

    Parameters
    ----------
    term_id, term_word : (t,) term ids and the word index (0..n-1) each comes from (:func:`cohesion_terms`)
    n : words in the run
    core : first and last word of the core (0 <= core[0] <= core[1] < n)
    words : length of the stretch beyond a gap, in words; a stretch that would run past the run's
        ends is not judged (0)
    topic_terms : (k,) term ids that count as the core's wherever they occur (the words the best
        hits' cores share: pseudo-relevance feedback)

    Returns
    -------
    (n,) float in {0, 1}: for ``j > core[1]`` the stretch is words ``j..j+words-1``; for
    ``j <= core[0]`` it is ``j-words..j-1``; 0 inside the core.
    """
    if not 0 <= core[0] <= core[1] < n or words < 1:
        raise ParameterError(f"core {core} must lie in 0..{n - 1} and the stretch be >= 1 words, got {words}")
    in_core = (term_word >= core[0]) & (term_word <= core[1])
    shared = np.zeros(n + 1)
    vocab = np.unique(term_id[in_core]) if topic_terms is None else np.union1d(term_id[in_core], topic_terms)
    if len(vocab):
        np.add.at(shared, term_word[np.isin(term_id, vocab) & ~in_core] + 1, 1.0)
    total = np.cumsum(shared)  # total[j] = shared terms in words 0..j-1
    out = np.zeros(n)
    right = np.arange(core[1] + 1, n - words + 1)
    out[right] = total[right + words] == total[right]
    left = np.arange(words, core[0] + 1)
    out[left] = total[left] == total[left - words]
    return out


def anchor_run(positions: np.ndarray, *, width: int = config.ANCHOR_WORDS) -> tuple[int, int]:
    """First and last word of the densest run of matched words: the most within ``width`` words.

    ``positions`` (m,) sorted word indexes of the matched words, m >= 1.
    """
    if not len(positions):
        raise ParameterError("an anchor needs at least one matched word")
    counts = np.searchsorted(positions, positions + width, "left") - np.arange(len(positions))
    k = int(np.argmax(counts))
    return int(positions[k]), int(positions[k + counts[k] - 1])


def soft_spans(store: Store, recording_ids: Sequence[int], spans: Sequence[SpanTuple],
               matched: Sequence[np.ndarray], *, limit: int, params: ExtentParams | None = None
               ) -> list[tuple[int, SpanTuple]]:
    """The hits' extents from the boundary evidence, best hit first, overlaps removed.

    ``recording_ids``, ``spans`` (the ranked passages' own extents) and ``matched`` (each
    passage's matched word indexes, sorted) are in rank order. Returns (row in that order,
    new span) for at most ``limit`` hits.
    """
    params = params or ExtentParams()
    anchors = [anchor_run(m) if len(m) else (s[0], s[1]) for m, s in zip(matched, spans, strict=True)]
    reach = params.reach_words
    ranges = [(int(r), max(0, min(s[0], a[0] - reach)), max(s[1], a[1] + reach))
              for r, s, a in zip(recording_ids, spans, anchors, strict=True)]
    index = PassageIndex(store)
    cuts: dict[int, list[tuple[int, int, bool, float | None]]] = defaultdict(list)
    for rec, first_word, last_word, is_story, confidence in index.doc_extents(sorted({r for r, _, _ in ranges})):
        cuts[rec].append((first_word, last_word, is_story, confidence))
    covered: dict[int, list[tuple[int, int]]] = defaultdict(list)
    out: list[tuple[int, SpanTuple]] = []
    vocab: dict[str, int] = {}  # cohesion term ids, shared by every run of this search
    topic: np.ndarray | None = None
    for batch in range(0, len(ranges), limit):  # most hits survive: read the words of `limit` at a time
        rows = range(batch, min(batch + limit, len(ranges)))
        runs = index.word_runs([ranges[k] for k in rows],
                               with_display=params.sentence_weight > 0 or params.opening_weight > 0
                               or params.cohesion_weight > 0)
        evidence = {rec: [_Evidence.of(run, cuts[rec], params, vocab) for run in rec_runs]
                    for rec, rec_runs in runs.items()}
        if topic is None and params.cohesion_weight > 0 and params.cohesion_feedback > 0:
            topic = _topic_terms([(_evidence_at(evidence, ranges[k]), anchors[k])
                                  for k in rows[: params.cohesion_feedback]], params.cohesion_words)
        for k in rows:
            rec, lo, hi = ranges[k]
            ev = _evidence_at(evidence, ranges[k])
            span, anchor = spans[k], anchors[k]
            usable = ev is not None and ev.covers(min(span[0], anchor[0]), max(span[1], anchor[1]))
            first, last = ev.edges(lo, hi, span, anchor, params, topic) if usable and ev else (span[0], span[1])
            edges = _uncovered(first, last, anchor, covered[rec])
            if edges is None:
                continue
            covered[rec].append(edges)
            out.append((k, ev.span(*edges, span) if usable and ev else span))
            if len(out) == limit:
                return out
    return out


@dataclass(frozen=True)
class _Evidence:
    """Boundary evidence over a run of one recording's consecutive words, and their characters."""

    base: int  # word index of the run's first word
    starts: np.ndarray  # (n,) seconds
    ends: np.ndarray
    evidence: np.ndarray  # (n,) before each word (inf at the recording's first word)
    chars_at: np.ndarray  # (n + 1,) characters from the run's start to each word (words joined by spaces)
    lengths: np.ndarray  # (n,) characters of each word
    trusted: np.ndarray  # (n,) bool, pauses and query-time cohesion count before the word
    opening: np.ndarray  # (n,) float, a trusted sentence end just before the word (1) or not (0)
    term_id: np.ndarray  # (t,) cohesion terms of the run (empty when cohesion is off)
    term_word: np.ndarray  # (t,) run offset of the word each term comes from

    @classmethod
    def of(cls, run: WordRun, docs: Sequence[tuple[int, int, bool, float | None]], params: ExtentParams,
           vocab: dict[str, int] | None = None) -> _Evidence | None:
        """The evidence over ``run``; ``docs`` are the recording's documents (first word, last word,
        whether it is a story, the posterior of the boundary opening it or None)."""
        n = len(run.idx)
        if n == 0 or np.any(np.diff(run.idx) != 1):
            return None  # not the consecutive words the extents need
        base = int(run.idx[0])
        story = np.zeros(n)
        long_doc = np.zeros(n, dtype=bool)  # words of a document long enough to trust its pauses
        for first, last, is_story, confidence in docs:
            given = is_story and confidence is None  # a story that came with the transcript, not found
            if base < first < base + n:
                story[first - base] = 1.0 if confidence is None else np.clip(np.nan_to_num(confidence, nan=1.0), 0, 1)
            if not (given and params.trust_given_stories) and last - first + 1 >= params.pause_inside_words:
                long_doc[max(first - base, 0) : max(last - base + 1, 0)] = True
        sentence = np.zeros(n, dtype=bool)
        if params.sentence_weight > 0 or params.opening_weight > 0:
            sentence = np.fromiter((ends_sentence(t) for t in run.display),
                                   dtype=bool, count=n)
        evidence = boundary_evidence(run.starts, run.ends, story, sentence, params, trusted=long_doc)
        if base == 0:
            evidence[0] = np.inf  # the recording starts here
        lengths = run.lengths
        cohesive = params.cohesion_weight > 0 and bool(long_doc.any())  # it counts only where pauses do
        none = np.zeros(0, dtype=np.int64)
        term_id, term_word = cohesion_terms(run.display, vocab) if cohesive else (none, none)
        opening = np.zeros(n)
        opening[1:] = sentence[:-1] & long_doc[1:]
        return cls(base, run.starts, run.ends, evidence, np.concatenate([[0], np.cumsum(lengths + 1)]), lengths,
                   long_doc, opening, term_id, term_word)

    def covers(self, first: int, last: int) -> bool:
        return self.base <= first and last < self.base + len(self.starts)

    def edges(self, lo: int, hi: int, span: SpanTuple, anchor: tuple[int, int], params: ExtentParams,
              topic_terms: np.ndarray | None = None) -> tuple[int, int]:
        """First and last word index of the extent of the hit whose window is words ``lo..hi``."""
        lo, hi = max(min(lo, span[0]), self.base), min(max(hi, span[1]), self.base + len(self.starts) - 1)
        window = self.evidence[lo - self.base : hi - self.base + 1]
        if params.cohesion_weight > 0:
            window = window + params.cohesion_weight * self._cohesion(lo, hi, anchor, params.cohesion_words,
                                                                          topic_terms)
        fallback = (span[0] - lo, span[1] - lo)
        first, last = extent_edges(window, anchor[0] - lo, anchor[1] - lo, fallback, min_words=params.min_words)
        if params.opening_weight > 0:
            opening = window + params.opening_weight * self.opening[lo - self.base : hi - self.base + 1]
            first = extent_edges(opening, anchor[0] - lo, anchor[1] - lo, fallback, min_words=1)[0]
            if last - first + 1 < params.min_words:
                first, last = fallback
        if not params.shrink:
            first, last = min(first, span[0] - lo), max(last, span[1] - lo)
        return lo + first, lo + last

    def core_terms(self, anchor: tuple[int, int], words: int) -> np.ndarray:
        """Distinct cohesion term ids of the core: the anchor run and ``words`` words either side."""
        a, b = anchor[0] - words - self.base, anchor[1] + words - self.base
        return np.unique(self.term_id[(self.term_word >= a) & (self.term_word <= b)])

    def _cohesion(self, lo: int, hi: int, anchor: tuple[int, int], words: int,
                  topic_terms: np.ndarray | None = None) -> np.ndarray:
        """(hi - lo + 1,) :func:`cohesion_drop` over words ``lo..hi`` around the anchor's core, where trusted."""
        a, b = lo - self.base, hi - self.base
        keep = (self.term_word >= a) & (self.term_word <= b)
        n = b - a + 1
        core = (max(anchor[0] - lo - words, 0), min(anchor[1] - lo + words, n - 1))
        drop = cohesion_drop(self.term_id[keep], self.term_word[keep] - a, n, core, words=words,
                             topic_terms=topic_terms)
        return np.where(self.trusted[a : b + 1], drop, 0.0)

    def span(self, first: int, last: int, passage: SpanTuple) -> SpanTuple:
        """Words ``first..last`` as a span; characters counted from the passage's own first word."""
        a, b, p = first - self.base, last - self.base, passage[0] - self.base
        origin = passage[4] - int(self.chars_at[p])
        return (first, last, float(self.starts[a]), float(self.ends[b]), origin + int(self.chars_at[a]),
                origin + int(self.chars_at[b] + self.lengths[b]))


def _evidence_at(evidence: dict[int, list[_Evidence | None]], where: tuple[int, int, int]) -> _Evidence | None:
    """The evidence run holding the first word of ``where`` (recording id, first word, last word)."""
    rec, lo, _ = where
    return next((e for e in evidence.get(rec, []) if e is not None and e.covers(lo, lo)), None)


def _topic_terms(hits: Sequence[tuple[_Evidence | None, tuple[int, int]]], words: int) -> np.ndarray:
    """Term ids found in the cores of at least two of the hits (evidence, anchor run)."""
    cores = [ev.core_terms(anchor, words) for ev, anchor in hits if ev is not None]
    if len(cores) < 2:
        return np.zeros(0, dtype=np.int64)
    ids, counts = np.unique(np.concatenate(cores), return_counts=True)
    return ids[counts >= 2]


def _uncovered(first: int, last: int, anchor: tuple[int, int], covered: list[tuple[int, int]]
               ) -> tuple[int, int] | None:
    """Words ``first..last`` trimmed to the anchor's side of every covered word range; None when
    the anchor itself is covered."""
    a_lo, a_hi = max(anchor[0], first), min(anchor[1], last)
    for lo, hi in covered:
        if lo <= a_hi and hi >= a_lo:
            return None
        if hi < a_lo:
            first = max(first, hi + 1)
        elif lo > a_hi:
            last = min(last, lo - 1)
    return first, last
