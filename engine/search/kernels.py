"""Numba kernels of passage scoring. They check nothing; the wrappers in
:mod:`engine.search.scoring` validate shapes and values. Slow twins live in
``tests/engine/search/naive.py``.

Conventions: a *unit* (passage, story or variable-length span) is a half-open
range ``[lo, hi)`` of the candidate token array; ``tok_col[i]`` is the column of
token i's term in the scored term list, or -1 when it is not scored.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _range_term_counts(tok_col, lo, hi, n_cols):  # type: ignore[no-untyped-def]
    out = np.zeros((lo.shape[0], n_cols))
    for u in range(lo.shape[0]):
        for i in range(lo[u], hi[u]):
            c = tok_col[i]
            if c >= 0:
                out[u, c] += 1.0
    return out


@njit(cache=True, nogil=True)
def _mixture_cross_entropy(weights, p_coll, unit_tf, unit_len, doc_tf, doc_len, unit_doc, w_coll, w_doc, w_unit):  # type: ignore[no-untyped-def]
    n_units, n_terms = unit_tf.shape
    out = np.empty(n_units)
    for u in range(n_units):
        d = unit_doc[u]
        inv_u = 1.0 / unit_len[u] if unit_len[u] > 0 else 0.0
        inv_d = 1.0 / doc_len[d] if doc_len[d] > 0 else 0.0
        s = 0.0
        for t in range(n_terms):
            p = w_coll * p_coll[t] + w_doc * doc_tf[d, t] * inv_d + w_unit * unit_tf[u, t] * inv_u
            s += weights[t] * np.log(p)
        out[u] = s
    return out


@njit(cache=True, nogil=True)
def _tfidf_scores(query_weight, idf, unit_tf, unit_len, mean_len):  # type: ignore[no-untyped-def]
    n_units, n_terms = unit_tf.shape
    out = np.empty(n_units)
    for u in range(n_units):
        norm = 0.5 + unit_len[u] / (2.0 * mean_len)
        s = 0.0
        for t in range(n_terms):
            tf = unit_tf[u, t]
            if tf > 0:
                s += query_weight[t] * idf[t] * idf[t] * tf / (tf + norm)
        out[u] = s
    return out


@njit(cache=True, nogil=True)
def _marked_runs(tok_radius, doc_lo, doc_hi):  # type: ignore[no-untyped-def]
    n = tok_radius.shape[0]
    run_lo = np.empty(n, dtype=np.int64)
    run_hi = np.empty(n, dtype=np.int64)
    n_runs = 0
    for k in range(doc_lo.shape[0]):
        lo, hi = doc_lo[k], doc_hi[k]
        cover = np.zeros(hi - lo + 1, dtype=np.int64)  # difference array over the document's tokens
        for i in range(lo, hi):
            r = tok_radius[i]
            if r >= 0:
                cover[max(0, i - r - lo)] += 1
                cover[min(hi - lo, i + r + 1 - lo)] -= 1
        depth = 0
        start = -1
        for j in range(hi - lo):
            depth += cover[j]
            if depth > 0 and start < 0:
                start = lo + j
            elif depth == 0 and start >= 0:
                run_lo[n_runs] = start
                run_hi[n_runs] = lo + j
                n_runs += 1
                start = -1
        if start >= 0:
            run_lo[n_runs] = start
            run_hi[n_runs] = hi
            n_runs += 1
    return run_lo[:n_runs], run_hi[:n_runs]
