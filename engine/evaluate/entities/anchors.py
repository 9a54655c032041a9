"""Coarse alignment (section 2.1): runs of three or more identical words that anchor the fine one.

Candidate anchors are word trigrams found in both texts: with word times on both sides,
any pair of equal trigrams that lie within a time window; without times, only trigrams
that occur once in each text. The longest chain of candidates increasing in both texts
is kept, and consecutive candidates merge into runs.
"""

from __future__ import annotations

import bisect

import numpy as np

from engine.entities import config


def find_anchors(ref_ids: np.ndarray, hyp_ids: np.ndarray, ref_times: np.ndarray | None = None,
                 hyp_times: np.ndarray | None = None, *, min_run: int = config.ANCHOR_MIN_RUN,
                 window: float = config.ANCHOR_TIME_WINDOW) -> list[tuple[int, int, int]]:
    """Runs ``(ref_start, hyp_start, length)`` of identical words, increasing and disjoint in both texts.

    Parameters
    ----------
    ref_ids, hyp_ids : ndarray of int, shape (n,) and (m,)
        Words as ids of one shared vocabulary.
    ref_times, hyp_times : ndarray of float, shape (n,) and (m,), optional
        Word start times in seconds; both or neither.
    min_run : int
        Shortest run kept, in words (at least 2).
    window : float
        Largest time difference, in seconds, between the two starts of a candidate.
    """
    n, m = len(ref_ids), len(hyp_ids)
    if n < min_run or m < min_run:
        return []
    vocab = int(max(ref_ids.max(), hyp_ids.max())) + 1
    ref_keys = _gram_keys(ref_ids, min_run, vocab)
    hyp_keys = _gram_keys(hyp_ids, min_run, vocab)
    order = np.argsort(hyp_keys, kind="stable")
    sorted_keys = hyp_keys[order]
    lo = np.searchsorted(sorted_keys, ref_keys, side="left")
    hi = np.searchsorted(sorted_keys, ref_keys, side="right")
    counts = hi - lo
    timed = ref_times is not None and hyp_times is not None
    if not timed:  # only grams that occur once on each side
        ref_sorted = np.sort(ref_keys)
        ref_counts = np.searchsorted(ref_sorted, ref_keys, side="right") - np.searchsorted(ref_sorted, ref_keys, side="left")
        counts = np.where((counts == 1) & (ref_counts == 1), 1, 0)
    i = np.repeat(np.arange(len(ref_keys)), counts)
    j = order[np.repeat(lo, counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))]
    if timed:
        assert ref_times is not None and hyp_times is not None
        near = np.abs(hyp_times[j] - ref_times[i]) <= window
        i, j = i[near], j[near]
    chain = _longest_chain(list(zip(i.tolist(), j.tolist(), strict=True)))
    runs: list[tuple[int, int, int]] = []
    ref_end = hyp_end = 0
    for a, b in chain:
        if runs and a == runs[-1][0] + runs[-1][2] - min_run + 1 and b == runs[-1][1] + runs[-1][2] - min_run + 1:
            s_i, s_j, length = runs[-1]
            runs[-1] = (s_i, s_j, length + 1)
        elif a >= ref_end and b >= hyp_end:
            runs.append((a, b, min_run))
        else:
            continue
        ref_end, hyp_end = runs[-1][0] + runs[-1][2], runs[-1][1] + runs[-1][2]
    return runs


def _gram_keys(ids: np.ndarray, size: int, vocab: int) -> np.ndarray:
    """One int64 per run of ``size`` words (exact while vocab ** size < 2 ** 63, else hashed)."""
    ids = ids.astype(np.int64)
    keys = np.zeros(len(ids) - size + 1, dtype=np.int64)
    with np.errstate(over="ignore"):
        for k in range(size):
            keys = keys * vocab + ids[k:len(ids) - size + 1 + k]
    return keys


def _longest_chain(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest subsequence strictly increasing in both coordinates (pairs sorted by i)."""
    pairs.sort(key=lambda p: (p[0], -p[1]))
    tails: list[int] = []  # smallest j ending a chain of each length
    tail_idx: list[int] = []
    parent = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos] = j
            tail_idx[pos] = k
        parent[k] = tail_idx[pos - 1] if pos > 0 else -1
    chain = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        chain.append(pairs[k])
        k = parent[k]
    return chain[::-1]
