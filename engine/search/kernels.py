"""Array kernels of passage scoring, in NumPy alone. They check nothing; the wrappers in
:mod:`engine.search.scoring` validate shapes and values. Slow twins live in
``tests/engine/search/naive.py``.

NumPy rather than numba here: every step is a whole-array operation already, and a
command-line search that imports no JIT (numba pulls in SciPy's linear algebra too)
starts in a third of a second less CPU.

Conventions: a *unit* (passage, story or variable-length span) is a half-open
range ``[lo, hi)`` of the candidate token array; ``tok_col[i]`` is the column of
token i's term in the scored term list, or -1 when it is not scored.
"""

from __future__ import annotations

import numpy as np


def _range_term_counts(tok_col: np.ndarray, lo: np.ndarray, hi: np.ndarray, n_cols: int) -> np.ndarray:
    """(U, T) float64 counts of each column's tokens in ``[lo[u], hi[u])``."""
    out = np.zeros((lo.shape[0], n_cols))
    scored = np.flatnonzero(tok_col >= 0)
    cols = tok_col[scored]
    for c in range(n_cols):
        at = scored[cols == c]  # ascending positions of column c's tokens
        out[:, c] = np.searchsorted(at, hi) - np.searchsorted(at, lo)
    return out


def _mixture_cross_entropy(
    weights: np.ndarray, p_coll: np.ndarray, unit_tf: np.ndarray, unit_len: np.ndarray, doc_tf: np.ndarray,
    doc_len: np.ndarray, unit_doc: np.ndarray, w_coll: float, w_doc: float, w_unit: float,
) -> np.ndarray:  # fmt: skip
    """(U,) ``sum_t weights[t] * log(w_coll p_coll[t] + w_doc P(t|D) + w_unit P(t|U))``."""
    inv_u = np.divide(1.0, unit_len, out=np.zeros_like(unit_len), where=unit_len > 0)
    inv_d = np.divide(1.0, doc_len, out=np.zeros_like(doc_len), where=doc_len > 0)
    p = w_coll * p_coll[None, :] + w_doc * doc_tf[unit_doc] * inv_d[unit_doc, None] + w_unit * unit_tf * inv_u[:, None]
    out: np.ndarray = np.log(p) @ weights
    return out


def _tfidf_scores(query_weight: np.ndarray, idf: np.ndarray, unit_tf: np.ndarray, unit_len: np.ndarray,
                  mean_len: float) -> np.ndarray:  # fmt: skip
    """(U,) ``sum_t query_weight[t] idf[t]^2 tf / (tf + 0.5 + len / (2 mean_len))`` over terms with tf > 0."""
    norm = 0.5 + unit_len / (2.0 * mean_len)
    frac = np.where(unit_tf > 0, unit_tf / (unit_tf + norm[:, None]), 0.0)
    out: np.ndarray = frac @ (query_weight * idf * idf)
    return out


def _marked_runs(tok_radius: np.ndarray, doc_lo: np.ndarray, doc_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximal runs ``[lo, hi)`` (int64 each) of tokens within ``tok_radius[i]`` of a marking token i,
    never crossing a document's edge; tokens outside every document mark nothing."""
    n = tok_radius.shape[0]
    marking = np.flatnonzero(tok_radius >= 0)
    doc = np.searchsorted(doc_hi, marking, side="right")  # the first document ending after the token
    inside = doc < doc_lo.shape[0]
    inside[inside] &= doc_lo[doc[inside]] <= marking[inside]
    marking, doc = marking[inside], doc[inside]
    radius = tok_radius[marking]
    cover = np.zeros(n + 1, dtype=np.int64)  # difference array over all tokens
    np.add.at(cover, np.maximum(doc_lo[doc], marking - radius), 1)
    np.add.at(cover, np.minimum(doc_hi[doc], marking + radius + 1), -1)
    marked = np.cumsum(cover[:n]) > 0
    edge = np.zeros(n + 1, dtype=bool)  # a run breaks where one document ends and the next begins
    edge[doc_lo] = True
    edge[doc_hi] = True
    before = np.concatenate(([False], marked))  # before[j]: token j - 1 marked
    after = np.concatenate((marked, [False]))  # after[j]: token j marked
    starts = np.flatnonzero(after & (~before | edge))
    ends = np.flatnonzero(before & (~after | edge))
    return starts.astype(np.int64), ends.astype(np.int64)
