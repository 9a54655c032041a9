"""Scoring functions of the retrieval models (Wade and Allan, section 3), vectorised.

Public wrappers validate their inputs and call the numba kernels of
:mod:`engine.search.kernels`. Shapes: ``U`` units (passages, stories or spans),
``D`` documents, ``T`` scored terms, ``N`` candidate tokens.
"""

from __future__ import annotations

import numpy as np

from engine.errors import ParameterError
from engine.search import kernels


def range_term_counts(tok_col: np.ndarray, lo: np.ndarray, hi: np.ndarray, *, n_cols: int) -> np.ndarray:
    """Term counts of token ranges.

    Parameters
    ----------
    tok_col : (N,) int, column of each token's term in ``[0, n_cols)``, or -1 (not counted)
    lo, hi : (U,) int, each unit is the tokens ``lo[u] <= i < hi[u]``
    n_cols : number of scored terms T

    Returns
    -------
    (U, T) float64 counts
    """
    tok_col = np.ascontiguousarray(tok_col, dtype=np.int64)
    lo = np.ascontiguousarray(lo, dtype=np.int64)
    hi = np.ascontiguousarray(hi, dtype=np.int64)
    if lo.shape != hi.shape or lo.ndim != 1:
        raise ParameterError(f"lo and hi must be 1-d arrays of one length, got shapes {lo.shape} and {hi.shape}")
    if len(lo) and (lo.min() < 0 or hi.max() > len(tok_col) or np.any(hi < lo)):
        raise ParameterError(f"token ranges must lie in [0, {len(tok_col)}] with lo <= hi")
    if len(tok_col) and (tok_col.max() >= n_cols or tok_col.min() < -1):
        raise ParameterError(f"token columns must be -1 or in [0, {n_cols}), got {tok_col.min()}..{tok_col.max()}")
    return kernels._range_term_counts(tok_col, lo, hi, int(n_cols))


def mixture_log_likelihood(
    weights: np.ndarray,
    p_coll: np.ndarray,
    unit_tf: np.ndarray,
    unit_len: np.ndarray,
    doc_tf: np.ndarray,
    doc_len: np.ndarray,
    unit_doc: np.ndarray,
    *,
    w_coll: float,
    w_doc: float,
    w_unit: float,
) -> np.ndarray:
    """``sum_t weights[t] * log(w_coll P(t|C) + w_doc P(t|D) + w_unit P(t|U))`` for every unit.

    With ``weights`` the query's term counts and ``w_doc = 0`` this is the log
    query likelihood under Jelinek-Mercer smoothing (eq. 7-8); with ``weights``
    a relevance model it is the cross entropy whose negation ranks like the
    negative KL divergence of eq. 12 and 15. P(t|D) and P(t|U) are maximum
    likelihood estimates ``tf / length``.

    Parameters
    ----------
    weights : (T,) nonnegative
    p_coll : (T,) collection probabilities, all > 0
    unit_tf : (U, T) counts; unit_len : (U,) lengths in tokens
    doc_tf : (D, T) counts; doc_len : (D,) lengths; unit_doc : (U,) row of each unit's document
    w_coll, w_doc, w_unit : mixture weights, nonnegative, summing to 1
    """
    mix = np.array([w_coll, w_doc, w_unit], dtype=np.float64)
    if np.any(mix < 0) or abs(mix.sum() - 1.0) > 1e-9:
        raise ParameterError(f"mixture weights must be >= 0 and sum to 1, got {w_coll}, {w_doc}, {w_unit}")
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    p_coll = np.ascontiguousarray(p_coll, dtype=np.float64)
    unit_tf = np.ascontiguousarray(unit_tf, dtype=np.float64)
    doc_tf = np.ascontiguousarray(doc_tf, dtype=np.float64)
    unit_len = np.ascontiguousarray(unit_len, dtype=np.float64)
    doc_len = np.ascontiguousarray(doc_len, dtype=np.float64)
    unit_doc = np.ascontiguousarray(unit_doc, dtype=np.int64)
    n_terms = len(weights)
    if p_coll.shape != (n_terms,) or unit_tf.ndim != 2 or unit_tf.shape[1] != n_terms:
        raise ParameterError(f"shapes disagree: weights {weights.shape}, p_coll {p_coll.shape}, unit_tf {unit_tf.shape}")
    if doc_tf.ndim != 2 or doc_tf.shape[1] != n_terms or doc_len.shape != (doc_tf.shape[0],):
        raise ParameterError(f"shapes disagree: doc_tf {doc_tf.shape}, doc_len {doc_len.shape}")
    if unit_len.shape != (unit_tf.shape[0],) or unit_doc.shape != (unit_tf.shape[0],):
        raise ParameterError(f"shapes disagree: unit_tf {unit_tf.shape}, unit_len {unit_len.shape}, unit_doc {unit_doc.shape}")
    if n_terms and (np.any(p_coll <= 0) or w_coll <= 0):
        raise ParameterError("collection probabilities and their weight must be > 0 (unknown terms are dropped first)")
    if len(unit_doc) and (unit_doc.min() < 0 or unit_doc.max() >= doc_tf.shape[0]):
        raise ParameterError(f"unit_doc must index the {doc_tf.shape[0]} documents")
    return kernels._mixture_cross_entropy(
        weights, p_coll, unit_tf, unit_len, doc_tf, doc_len, unit_doc, float(w_coll), float(w_doc), float(w_unit)
    )


def idf(n_docs: int, df: np.ndarray) -> np.ndarray:
    """Inverse document frequency of eq. 6: ``log((N + 1) / (0.5 + df))``."""
    df = np.asarray(df, dtype=np.float64)
    if n_docs < 0 or np.any(df < 0) or np.any(df > n_docs):
        raise ParameterError(f"need 0 <= df <= N, got N={n_docs}, df={df.min(initial=0)}..{df.max(initial=0)}")
    return np.log((n_docs + 1.0) / (0.5 + df))


def tfidf_scores(query_tf: np.ndarray, idf_t: np.ndarray, unit_tf: np.ndarray, unit_len: np.ndarray, *,
                 mean_len: float) -> np.ndarray:
    """Lemur's TFIDF (eq. 4-6): the inner product of the query and passage TF*IDF vectors.

    ``TF(t|p) = c / (c + 0.5 + len / (2 mean_len))``, ``TF(t|q) = c / (c + 1)``.

    Parameters
    ----------
    query_tf : (T,) counts of each term in the query
    idf_t : (T,) IDF of each term
    unit_tf : (U, T) counts; unit_len : (U,) lengths in tokens
    mean_len : mean passage length in the collection, tokens (> 0)
    """
    query_tf = np.asarray(query_tf, dtype=np.float64)
    if mean_len <= 0:
        raise ParameterError(f"mean passage length must be > 0, got {mean_len}")
    unit_tf = np.ascontiguousarray(unit_tf, dtype=np.float64)
    if unit_tf.ndim != 2 or unit_tf.shape[1] != len(query_tf) or len(idf_t) != len(query_tf):
        raise ParameterError(f"shapes disagree: query_tf {query_tf.shape}, idf {np.shape(idf_t)}, unit_tf {unit_tf.shape}")
    if np.shape(unit_len) != (unit_tf.shape[0],):
        raise ParameterError(f"unit_len has shape {np.shape(unit_len)}, expected ({unit_tf.shape[0]},)")
    return kernels._tfidf_scores(
        query_tf / (query_tf + 1.0), np.ascontiguousarray(idf_t, dtype=np.float64), unit_tf,
        np.ascontiguousarray(unit_len, dtype=np.float64), float(mean_len),
    )


def marked_runs(tok_radius: np.ndarray, doc_lo: np.ndarray, doc_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Query-word-density spans (section 3.6): mark every token with radius r >= 0 and r tokens
    either side of it, within its document; return the maximal marked runs as ``[lo, hi)``.

    Parameters
    ----------
    tok_radius : (N,) int, -1 for tokens that mark nothing
    doc_lo, doc_hi : (D,) int, the documents' token ranges (disjoint, ascending)
    """
    tok_radius = np.ascontiguousarray(tok_radius, dtype=np.int64)
    doc_lo = np.ascontiguousarray(doc_lo, dtype=np.int64)
    doc_hi = np.ascontiguousarray(doc_hi, dtype=np.int64)
    if doc_lo.shape != doc_hi.shape or np.any(doc_hi < doc_lo):
        raise ParameterError("document ranges must be pairs with lo <= hi")
    if len(doc_lo) and (doc_lo.min() < 0 or doc_hi.max() > len(tok_radius) or np.any(doc_lo[1:] < doc_hi[:-1])):
        raise ParameterError(f"document ranges must be disjoint, ascending and inside [0, {len(tok_radius)}]")
    return kernels._marked_runs(tok_radius, doc_lo, doc_hi)


def relevance_model(
    tok_term: np.ndarray,
    unit_lo: np.ndarray,
    unit_hi: np.ndarray,
    unit_loglik: np.ndarray,
    *,
    max_terms: int,
    min_prob: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Lavrenko and Croft's relevance model, method 1 (eq. 9-10), truncated (section 3.3).

    ``P(w|R) ∝ sum_u P(u) P(w|u) prod_i P(q_i|u)`` over the feedback units with a
    uniform prior ``P(u)``, ``prod_i P(q_i|u) = exp(unit_loglik[u])`` and
    ``P(w|u)`` the unit's maximum-likelihood model. Keeps the ``max_terms`` most
    probable terms with ``P >= min_prob`` (at least the most probable one) and
    renormalises them.

    Parameters
    ----------
    tok_term : (N,) int term id of every candidate token
    unit_lo, unit_hi : (U,) token range of each feedback unit
    unit_loglik : (U,) log query likelihood of each unit

    Returns
    -------
    (term ids, probabilities), most probable first
    """
    lengths = np.asarray(unit_hi, dtype=np.int64) - np.asarray(unit_lo, dtype=np.int64)
    keep = lengths > 0
    if not np.any(keep):
        return np.array([], dtype=np.int64), np.array([], dtype=np.float64)
    lo, lengths, loglik = np.asarray(unit_lo)[keep], lengths[keep], np.asarray(unit_loglik, dtype=np.float64)[keep]
    prior = np.exp(loglik - loglik.max())
    prior /= prior.sum()
    unit_of = np.repeat(np.arange(len(lo)), lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    token = lo[unit_of] + np.arange(len(unit_of)) - starts[unit_of]
    ids, inverse = np.unique(tok_term[token], return_inverse=True)
    p = np.bincount(inverse, weights=prior[unit_of] / lengths[unit_of], minlength=len(ids))
    p = p / p.sum()
    order = np.argsort(-p, kind="stable")[:max_terms]
    order = order[(p[order] >= min_prob) | (np.arange(len(order)) == 0)]
    kept = p[order]
    return ids[order], kept / kept.sum()
