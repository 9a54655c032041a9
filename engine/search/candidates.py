"""Candidate generation: SQLite FTS5 finds blocks, their stories (or their surroundings) come in.

FTS5 finds the blocks holding the query's terms (one MATCH per term, see
``query.match_expressions``); a block scores the IDF of the terms it holds, a
story its best block, and every block of the best stories comes in, within a
budget (``config.CANDIDATE_*``). With context windows in place of stories
(:func:`gather_context`) the blocks around the best blocks come in instead, whatever
story the segmenter put them in. Everything a model needs afterwards is in the
arrays built here: no more SQL while scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.search import config
from engine.storage.passages import Filters, PassageIndex
from engine.storage.store import Store


@dataclass(frozen=True)
class CandidateLimits:
    blocks: int
    docs: int
    block_budget: int


@dataclass
class Candidates:
    """Documents, blocks, tokens and fixed passages of one query's candidate set.

    Blocks are grouped by document (in document order), tokens by block, so a
    document, a passage and any span is a contiguous token range ``[lo, hi)``.
    """

    docs: dict[str, np.ndarray]  # DOC_COLUMNS + block_lo, block_hi, tok_lo, tok_hi
    blocks: dict[str, np.ndarray]  # BLOCK_COLUMNS + doc (row in docs), tok_lo, tok_hi
    tokens: dict[str, np.ndarray]  # term, position (word index)
    #: block_lo, block_hi (inclusive), doc, tok_lo, tok_hi; with context windows also ctx_lo, ctx_hi
    #: (the window's token range) and ctx_story (the window is clipped to a story given with the transcript).
    passages: dict[str, np.ndarray]
    matched_blocks: np.ndarray  # ids of the blocks FTS5 returned

    @property
    def n_docs(self) -> int:
        return len(self.docs["id"])

    @property
    def n_tokens(self) -> int:
        return len(self.tokens["term"])


def gather(store: Store, matches: Sequence[tuple[str, float]], *, limits: CandidateLimits,
           filters: Filters | None, with_word_chars: bool = False) -> Candidates | None:
    """The candidate set, or None when nothing matches.

    ``matches`` are FTS5 MATCH expressions with a weight each (a term's IDF): a block
    scores the weights of the expressions it matches, a document its best block, and
    the best documents come in whole (``limits``).
    """
    scored = _matched(store, matches)
    if scored is None:
        return None
    ids, weight = scored
    block_ids, doc_ids = PassageIndex(store).block_docs(ids, filters)
    if len(block_ids) == 0:
        return None
    score = weight[np.searchsorted(ids, block_ids)]
    best = np.lexsort((-block_ids, -score))[: limits.blocks]
    block_ids, doc_ids = block_ids[best], doc_ids[best]
    _, first_seen = np.unique(doc_ids, return_index=True)
    ranked_docs = doc_ids[np.sort(first_seen)][: 2 * limits.docs]  # best block first
    ranked = PassageIndex(store).doc_rows(ranked_docs)
    within = np.cumsum(ranked["n_blocks"]) <= limits.block_budget
    within[0] = True
    keep = np.flatnonzero(within)[: limits.docs]
    docs = {c: v[keep] for c, v in ranked.items()}
    blocks, tokens = PassageIndex(store).block_rows(docs["id"], with_word_chars=with_word_chars)
    return _assemble(docs, blocks, tokens, block_ids)


def gather_context(store: Store, matches: Sequence[tuple[str, float]], *, limits: CandidateLimits,
                   filters: Filters | None, context_words: int, given_whole: bool = config.CONTEXT_GIVEN_WHOLE,
                   with_word_chars: bool = False) -> Candidates | None:
    """The candidate set of the mixture model with context windows (``context_words`` = K > 0), or None.

    Blocks score as in :func:`gather`. Around the best ``limits.blocks`` of them, best first, every block
    whose first word lies within ``2 K + config.CONTEXT_FETCH_WORDS`` words comes in (not beyond the edges
    of a story given with the transcript), until ``limits.docs`` separate stretches or about
    ``limits.block_budget`` blocks. A passage is a candidate when it lies within K words of a matched block;
    its context window (``passages["ctx_lo"]``, ``["ctx_hi"]``) is the tokens within K words either side
    of it, clipped at stories given with the transcript, never at the segmenter's. With ``given_whole`` a
    story given with the transcript that holds a matched block comes in whole and is the document of each
    of its passages (as :func:`gather` does), whatever K.
    """
    if context_words < 1:
        raise ParameterError(f"context_words must be >= 1, got {context_words}")
    scored = _matched(store, matches)
    if scored is None:
        return None
    ids, weight = scored
    index = PassageIndex(store)
    places = index.block_places(ids, filters)
    if not len(places["id"]):
        return None
    best = np.lexsort((-places["id"], -weight[np.searchsorted(ids, places["id"])]))[: limits.blocks]
    places = {c: v[best] for c, v in places.items()}
    stretches = fetch_stretches(places, reach=2 * context_words + config.CONTEXT_FETCH_WORDS,
                                max_stretches=limits.docs, block_budget=limits.block_budget, given_whole=given_whole)
    blocks, tokens = index.blocks_in_ranges(stretches, with_word_chars=with_word_chars)
    if not len(blocks["id"]):
        return None
    _, first_seen = np.unique(blocks["doc_id"], return_index=True)
    docs = index.doc_rows(blocks["doc_id"][np.sort(first_seen)])  # in block order
    cands = _assemble(docs, blocks, tokens, places["id"])
    given = index.given_docs(cands.docs["id"])
    cands.passages = context_windows(cands, given, places, context_words=context_words, given_whole=given_whole)
    return cands


def fetch_stretches(places: dict[str, np.ndarray], *, reach: int, max_stretches: int, block_budget: int,
                    given_whole: bool = False) -> list[tuple[int, int, int]]:
    """(recording id, first word, last word) stretches around the matched blocks ``places`` (best first;
    columns of ``PassageIndex.block_places``): ``reach`` words either side of each, clipped to its story
    when that came with the transcript (that story whole with ``given_whole``), merged where they overlap,
    sorted. Stops before a block that
    would open stretch number ``max_stretches + 1``, or take the words past ``block_budget`` blocks'
    worth (at the matched blocks' median words a block; the first block's stretch always comes in)."""
    words_per_block = max(1.0, float(np.median(places["last_word"] - places["first_word"] + 1)))
    budget = block_budget * words_per_block
    taken: dict[int, list[list[int]]] = {}
    n_stretches, n_words = 0, 0
    for k in range(len(places["id"])):
        rec = int(places["recording_id"][k])
        lo, hi = int(places["first_word"][k]) - reach, int(places["last_word"][k]) + reach
        if places["given"][k] and given_whole:
            lo, hi = int(places["doc_first_word"][k]), int(places["doc_last_word"][k])
        elif places["given"][k]:
            lo, hi = max(lo, int(places["doc_first_word"][k])), min(hi, int(places["doc_last_word"][k]))
        lo = max(lo, 0)
        merged, added, opened = _merge(taken.get(rec, []), lo, hi)
        if n_words and (n_stretches + opened > max_stretches or n_words + added > budget):
            break
        taken[rec] = merged
        n_stretches += opened
        n_words += added
    return [(rec, a, b) for rec in sorted(taken) for a, b in taken[rec]]


def _merge(stretches: list[list[int]], lo: int, hi: int) -> tuple[list[list[int]], int, int]:
    """``stretches`` (sorted, disjoint [first, last] word pairs) with [lo, hi] added: the new list, the
    words it adds and how many more stretches there are (1 when [lo, hi] touches none, else <= 0)."""
    touches = [s[1] >= lo - 1 and s[0] <= hi + 1 for s in stretches]
    inside = [s for s, t in zip(stretches, touches, strict=True) if t]
    outside = [s for s, t in zip(stretches, touches, strict=True) if not t]
    new = [min([lo, *(s[0] for s in inside)]), max([hi, *(s[1] for s in inside)])]
    added = (new[1] - new[0] + 1) - sum(s[1] - s[0] + 1 for s in inside)
    return sorted([*outside, new]), added, 1 - len(inside)


def context_windows(cands: Candidates, given: np.ndarray, places: dict[str, np.ndarray], *, context_words: int,
                    given_whole: bool = False) -> dict[str, np.ndarray]:
    """The candidates' passages within ``context_words`` (K) words of a matched block (``places``), each with
    its context window: tokens ``ctx_lo <= i < ctx_hi`` within K words of the passage, in its recording and
    inside the same *walled stretch*: a story given with the transcript (``given``, per document) is a
    stretch of its own, and any other documents in a row of one recording share one. With ``given_whole``
    the passages of a given story are candidates when the story holds a matched block, and their window is
    the story (its candidate tokens: all of them, as :func:`gather_context` fetched it whole).

    Candidates come ordered by recording and word (:func:`gather_context`), so a window is a token range.
    """
    b, p = cands.blocks, cands.passages
    doc = b["doc"]
    wall = np.zeros(len(doc), dtype=bool)
    wall[1:] = (b["recording_id"][1:] != b["recording_id"][:-1]) | (
        (doc[1:] != doc[:-1]) & (given[doc[1:]] | given[doc[:-1]]))
    stride = np.int64(1) << 32  # word indexes are int32
    stretch = np.cumsum(wall)
    key = np.repeat(stretch, b["n_tokens"]) * stride + cands.tokens["position"]
    first, last = b["first_word"][p["block_lo"]], b["last_word"][p["block_hi"]]
    rec = b["recording_id"][p["block_lo"]]
    # a passage is a candidate when a matched block ends at most K words before it or starts at most K after
    order = np.argsort(places["recording_id"] * stride + places["first_word"], kind="stable")
    m_first = places["recording_id"][order] * stride + places["first_word"][order]
    m_last = np.maximum.accumulate(places["recording_id"][order] * stride + places["last_word"][order])
    k = np.searchsorted(m_first, rec * stride + last + context_words, "right") - 1
    near = (k >= 0) & (m_last[np.maximum(k, 0)] >= rec * stride + first - context_words)
    whole = given[p["doc"]] & given_whole
    if given_whole:
        near = np.where(whole, np.isin(cands.docs["id"][p["doc"]], places["doc_id"]), near)
    keep = np.flatnonzero(near)
    out = {c: v[keep] for c, v in p.items()}
    base = stretch[out["block_lo"]] * stride
    whole = whole[keep]
    out["ctx_lo"] = np.where(whole, cands.docs["tok_lo"][out["doc"]],
                             np.searchsorted(key, base + first[keep] - context_words, "left"))
    out["ctx_hi"] = np.where(whole, cands.docs["tok_hi"][out["doc"]],
                             np.searchsorted(key, base + last[keep] + context_words, "right"))
    out["ctx_story"] = given[out["doc"]]
    return out


def _matched(store: Store, matches: Sequence[tuple[str, float]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Ids of the blocks the MATCH expressions find (sorted) and each one's summed expression weight."""
    found = [PassageIndex(store).fts_blocks(m) for m, _ in matches]
    if not any(len(f) for f in found):
        return None
    ids, inverse = np.unique(np.concatenate(found), return_inverse=True)
    return ids, np.bincount(inverse, weights=np.repeat([w for _, w in matches], [len(f) for f in found]))


def _assemble(docs: dict[str, np.ndarray], blocks: dict[str, np.ndarray], tokens: dict[str, np.ndarray],
              matched: np.ndarray) -> Candidates:
    order = np.argsort(docs["id"])
    blocks["doc"] = order[np.searchsorted(docs["id"][order], blocks["doc_id"])]
    tok_hi = np.cumsum(blocks["n_tokens"])
    blocks["tok_lo"], blocks["tok_hi"] = tok_hi - blocks["n_tokens"], tok_hi
    n_docs = len(docs["id"])
    docs["block_lo"] = np.searchsorted(blocks["doc"], np.arange(n_docs), "left")
    docs["block_hi"] = np.searchsorted(blocks["doc"], np.arange(n_docs), "right")
    docs["tok_lo"] = blocks["tok_lo"][docs["block_lo"]]
    docs["tok_hi"] = blocks["tok_hi"][docs["block_hi"] - 1]
    # Passage k of a document is blocks k and k+1 (when both came in); a one-block document is its own passage.
    n_in_doc = docs["n_blocks"][blocks["doc"]]
    pair = np.zeros(len(blocks["doc"]), dtype=bool)
    pair[:-1] = (blocks["doc"][1:] == blocks["doc"][:-1]) & (blocks["idx"][1:] == blocks["idx"][:-1] + 1)
    lo = np.flatnonzero(pair | (n_in_doc == 1))
    hi = lo + pair[lo]
    passages = {
        "block_lo": lo, "block_hi": hi, "doc": blocks["doc"][lo],
        "tok_lo": blocks["tok_lo"][lo], "tok_hi": blocks["tok_hi"][hi],
    }
    return Candidates(docs, blocks, tokens, passages, matched)
