"""Candidate generation: SQLite FTS5 finds blocks, their stories come in whole.

FTS5 finds the blocks holding the query's terms (one MATCH per term, see
``query.match_expressions``); a block scores the IDF of the terms it holds, a
story its best block, and every block of the best stories comes in, within a
budget (``config.CANDIDATE_*``). Everything a model needs afterwards
is in the arrays built here: no more SQL while scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

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
    passages: dict[str, np.ndarray]  # block_lo, block_hi (inclusive), doc, tok_lo, tok_hi
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
    found = [PassageIndex(store).fts_blocks(m) for m, _ in matches]
    if not any(len(f) for f in found):
        return None
    ids, inverse = np.unique(np.concatenate(found), return_inverse=True)
    weight = np.bincount(inverse, weights=np.repeat([w for _, w in matches], [len(f) for f in found]))
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
    # Passage k of a document is blocks k and k+1; a one-block document is its own passage.
    n_in_doc = docs["n_blocks"][blocks["doc"]]
    opens = (blocks["idx"] < n_in_doc - 1) | (n_in_doc == 1)
    lo = np.flatnonzero(opens)
    hi = lo + (n_in_doc[lo] > 1)
    passages = {
        "block_lo": lo, "block_hi": hi, "doc": blocks["doc"][lo],
        "tok_lo": blocks["tok_lo"][lo], "tok_hi": blocks["tok_hi"][hi],
    }
    return Candidates(docs, blocks, tokens, passages, matched)
