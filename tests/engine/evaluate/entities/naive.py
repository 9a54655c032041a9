"""Slow, obvious twins of the entity kernels, for comparison on random inputs."""

from __future__ import annotations

import numpy as np


def edit_ops(ref, hyp, sub_cost, ins_cost, del_cost):
    """Full-matrix weighted Levenshtein with sclite's tie order (diagonal, deletion, insertion).

    ``sub_cost(a, b)``, ``ins_cost(b)``, ``del_cost(a)`` are callables. Returns a list of
    codes 0 (diagonal), 1 (deletion), 2 (insertion) in reading order."""
    n, m = len(ref), len(hyp)
    D = [[0.0] * (m + 1) for _ in range(n + 1)]
    B = [[0] * (m + 1) for _ in range(n + 1)]
    for b in range(1, m + 1):
        D[0][b] = D[0][b - 1] + ins_cost(hyp[b - 1])
        B[0][b] = 2
    for a in range(1, n + 1):
        D[a][0] = D[a - 1][0] + del_cost(ref[a - 1])
        B[a][0] = 1
        for b in range(1, m + 1):
            s = D[a - 1][b - 1] + sub_cost(ref[a - 1], hyp[b - 1])
            d = D[a - 1][b] + del_cost(ref[a - 1])
            i = D[a][b - 1] + ins_cost(hyp[b - 1])
            if s <= d and s <= i:
                D[a][b], B[a][b] = s, 0
            elif d < i:
                D[a][b], B[a][b] = d, 1
            else:
                D[a][b], B[a][b] = i, 2
    ops = []
    a, b = n, m
    while a or b:
        ops.append(B[a][b])
        if B[a][b] == 0:
            a, b = a - 1, b - 1
        elif B[a][b] == 1:
            a -= 1
        else:
            b -= 1
    return ops[::-1]


def sclite_ops(ref, hyp):
    return edit_ops(ref, hyp, lambda x, y: 0 if x == y else 4, lambda y: 3, lambda x: 3)


def link_columns(lo: np.ndarray, hi: np.ndarray, n_hyp: int) -> list[tuple[int, int, int, int]]:
    """Alignment columns ``(ref_lo, ref_hi, hyp_lo, hyp_hi)`` (half-open, chunk-relative) from word links.

    Linked words sharing a hypothesis word fall in one column; unlinked reference words
    between two words of a column join it; other unlinked words are deletions and
    insertions of their own.
    """
    cols: list[tuple[int, int, int, int]] = []
    next_hyp = 0
    cur: list[int] | None = None  # [ref_lo, ref_hi, hyp_lo, hyp_hi], inclusive
    pending: list[int] = []

    def flush(upto_hyp: int) -> None:
        nonlocal next_hyp
        cols.extend((r, r + 1, next_hyp, next_hyp) for r in pending)
        pending.clear()
        cols.extend((r_at, r_at, h, h + 1) for r_at, h in ((cur_ref_end(), h) for h in range(next_hyp, upto_hyp)))
        next_hyp = max(next_hyp, upto_hyp)

    def cur_ref_end() -> int:
        return cols[-1][1] if cols else 0

    for r in range(len(lo)):
        if lo[r] < 0:
            pending.append(r)
            continue
        if cur is not None and lo[r] <= cur[3]:
            cur[1] = r
            cur[3] = max(cur[3], int(hi[r]))
            pending.clear()
            continue
        if cur is not None:
            cols.append((cur[0], cur[1] + 1, cur[2], cur[3] + 1))
            next_hyp = cur[3] + 1
        flush(int(lo[r]))
        cur = [r, r, int(lo[r]), int(hi[r])]
    if cur is not None:
        cols.append((cur[0], cur[1] + 1, cur[2], cur[3] + 1))
        next_hyp = cur[3] + 1
    flush(n_hyp)
    return cols
