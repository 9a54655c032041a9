"""Numba kernels of the scorer. They check nothing: the wrappers in ``align`` do.

Edit codes returned by both aligners, in reading order:
``0`` = diagonal (correct or substitution), ``1`` = deletion (reference item only),
``2`` = insertion (hypothesis item only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

DIAG, DEL, INS = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _best(s, d, i):  # pragma: no cover - compiled
    """sclite's tie order, shared by both aligners: the diagonal when it is no worse than
    both others, else deletion when strictly cheaper than insertion, else insertion."""
    if s <= d and s <= i:
        return s, DIAG
    if d < i:
        return d, DEL
    return i, INS


@njit(cache=True, nogil=True, inline="always")
def _dp_start(n, m, zero):  # pragma: no cover - compiled
    """Both aligners' tables: back-pointers (n + 1, m + 1) int8 with the origin set, and two
    (m + 1,) cost rows of ``zero``'s type (int64 word costs, float64 phone costs)."""
    back = np.empty((n + 1, m + 1), dtype=np.int8)
    back[0, 0] = DIAG
    return back, np.full(m + 1, zero), np.full(m + 1, zero)


@njit(cache=True, nogil=True)
def _sclite_dp(ref, hyp, c_ins, c_del, c_sub):  # pragma: no cover - compiled
    """Word Levenshtein with sclite's ties (SCTK ``net_dp.c``, see :func:`_best`).
    ``ref`` and ``hyp`` are int32 word ids; returns int8 edit codes."""
    n = ref.shape[0]
    m = hyp.shape[0]
    back, prev, cur = _dp_start(n, m, np.int64(0))
    for b in range(1, m + 1):
        prev[b] = prev[b - 1] + c_ins
        back[0, b] = INS
    for a in range(1, n + 1):
        cur[0] = prev[0] + c_del
        back[a, 0] = DEL
        ra = ref[a - 1]
        for b in range(1, m + 1):
            s = prev[b - 1] + (0 if ra == hyp[b - 1] else c_sub)
            d = prev[b] + c_del
            i = cur[b - 1] + c_ins
            cur[b], back[a, b] = _best(s, d, i)
        for b in range(m + 1):
            prev[b] = cur[b]
    return _trace(back, n, m)


@njit(cache=True, nogil=True)
def _sclite_columns(ref, hyp, chunks, c_ins, c_del, c_sub):  # pragma: no cover - compiled
    """sclite alignment of many chunks at once. ``chunks`` is (k, 4) int64 rows
    (ref_lo, ref_hi, hyp_lo, hyp_hi); returns (n_columns, 5) int64 rows
    (ref_lo, ref_hi, hyp_lo, hyp_hi, kind) with kinds 0 correct, 1 substitution,
    2 deletion, 3 insertion, chunk after chunk."""
    total = 0
    for c in range(chunks.shape[0]):
        total += (chunks[c, 1] - chunks[c, 0]) + (chunks[c, 3] - chunks[c, 2])
    out = np.empty((total, 5), dtype=np.int64)
    k = 0
    for c in range(chunks.shape[0]):
        r0 = chunks[c, 0]
        h0 = chunks[c, 2]
        ops = _sclite_dp(ref[r0:chunks[c, 1]], hyp[h0:chunks[c, 3]], c_ins, c_del, c_sub)
        a = r0
        b = h0
        for op in ops:
            if op == DIAG:
                out[k, 0] = a
                out[k, 1] = a + 1
                out[k, 2] = b
                out[k, 3] = b + 1
                out[k, 4] = 0 if ref[a] == hyp[b] else 1
                a += 1
                b += 1
            elif op == DEL:
                out[k, 0] = a
                out[k, 1] = a + 1
                out[k, 2] = b
                out[k, 3] = b
                out[k, 4] = 2
                a += 1
            else:
                out[k, 0] = a
                out[k, 1] = a
                out[k, 2] = b
                out[k, 3] = b + 1
                out[k, 4] = 3
                b += 1
            k += 1
    return out[:k].copy()


@njit(cache=True, nogil=True)
def _phone_dp(ref, hyp, sub_cost, indel_cost):  # pragma: no cover - compiled
    """Weighted edit distance over phone ids (0 = word boundary); same tie order as sclite.

    ``sub_cost`` is (n_phones, n_phones) float64 with 0 on the diagonal and a huge value
    where a boundary would meet a phone; ``indel_cost`` is (n_phones,) float64."""
    n = ref.shape[0]
    m = hyp.shape[0]
    back, prev, cur = _dp_start(n, m, np.float64(0.0))
    for b in range(1, m + 1):
        prev[b] = prev[b - 1] + indel_cost[hyp[b - 1]]
        back[0, b] = INS
    for a in range(1, n + 1):
        ra = ref[a - 1]
        cur[0] = prev[0] + indel_cost[ra]
        back[a, 0] = DEL
        for b in range(1, m + 1):
            hb = hyp[b - 1]
            s = prev[b - 1] + sub_cost[ra, hb]
            d = prev[b] + indel_cost[ra]
            i = cur[b - 1] + indel_cost[hb]
            cur[b], back[a, b] = _best(s, d, i)
        for b in range(m + 1):
            prev[b] = cur[b]
    return _trace(back, n, m)


@njit(cache=True, nogil=True)
def _trace(back, n, m):  # pragma: no cover - compiled
    out = np.empty(n + m, dtype=np.int8)
    k = 0
    a = n
    b = m
    while a > 0 or b > 0:
        op = back[a, b]
        out[k] = op
        k += 1
        if op == DIAG:
            a -= 1
            b -= 1
        elif op == DEL:
            a -= 1
        else:
            b -= 1
    return out[:k][::-1].copy()


@njit(cache=True, nogil=True)
def _links(ops, rown, hown, r0, h0, n_ref):  # pragma: no cover - compiled
    """First and last hypothesis word (minus ``h0``) whose phones meet each reference word's
    phones (minus ``r0``) on the diagonal of ``ops``; -1 where none."""
    lo = np.full(n_ref, -1, dtype=np.int64)
    hi = np.full(n_ref, -1, dtype=np.int64)
    a = 0
    b = 0
    for op in ops:
        if op == DIAG:
            r = rown[a]
            h = hown[b]
            if r >= 0 and h >= 0:
                r -= r0
                h -= h0
                if lo[r] < 0:
                    lo[r] = h
                hi[r] = h
            a += 1
            b += 1
        elif op == DEL:
            a += 1
        else:
            b += 1
    return lo, hi


@njit(cache=True, nogil=True)
def _link_columns(lo, hi, n_hyp):  # pragma: no cover - compiled
    """Columns (ref_lo, ref_hi, hyp_lo, hyp_hi) from per-reference-word link ranges (see phonetic)."""
    n = lo.shape[0]
    out = np.empty((n + n_hyp + 1, 4), dtype=np.int64)
    k = 0
    next_hyp = 0
    active = False
    c0 = c1 = c2 = c3 = 0
    pend_lo = 0
    n_pend = 0
    for r in range(n + 1):
        if r < n and lo[r] < 0:
            if n_pend == 0:
                pend_lo = r
            n_pend += 1
            continue
        if r < n and active and lo[r] <= c3:
            c1 = r
            c3 = max(c3, hi[r])
            n_pend = 0
            continue
        if active:
            out[k, 0] = c0
            out[k, 1] = c1 + 1
            out[k, 2] = c2
            out[k, 3] = c3 + 1
            k += 1
            next_hyp = c3 + 1
        for p in range(pend_lo, pend_lo + n_pend):
            out[k, 0] = p
            out[k, 1] = p + 1
            out[k, 2] = next_hyp
            out[k, 3] = next_hyp
            k += 1
        n_pend = 0
        upto = lo[r] if r < n else n_hyp
        ref_at = out[k - 1, 1] if k > 0 else 0
        for h in range(next_hyp, upto):
            out[k, 0] = ref_at
            out[k, 1] = ref_at
            out[k, 2] = h
            out[k, 3] = h + 1
            k += 1
        next_hyp = max(next_hyp, upto)
        if r < n:
            active = True
            c0 = r
            c1 = r
            c2 = lo[r]
            c3 = hi[r]
    return out[:k].copy()
