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


def _greedy_viterbi(scores: list[list[float]], T: np.ndarray, allowed: np.ndarray) -> list[int]:
    """Viterbi over per-token tag scores with the kernel's tie order: the first best tag wins."""
    neg = -1e30
    n, k = len(scores), len(scores[0])
    start = T.shape[0] - 1
    total = [[scores[0][y] + T[start, y] if allowed[start, y] else neg for y in range(k)]]
    back = [[0] * k]
    for t in range(1, n):
        row, arg_row = [], []
        for y in range(k):
            options = [(total[t - 1][p] + T[p, y], p) for p in range(k) if allowed[p, y]]
            best, arg = neg, 0
            for v, p in options:
                if v > best:
                    best, arg = v, p
            row.append(scores[t][y] + best)
            arg_row.append(arg)
        total.append(row)
        back.append(arg_row)
    last = max(range(k), key=lambda y: (total[-1][y], -y))
    path = [last]
    for t in range(n - 1, 0, -1):
        path.append(back[t][path[-1]])
    return path[::-1]


def perceptron_train(features: list[list[list[int]]], gold: list[list[int]], orders: np.ndarray,
                     n_feats: int, n_tags: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The averaged structured perceptron, spelled out: ``features[s][t]`` lists token t's feature ids
    in sequence s, ``gold[s][t]`` its tag; ``orders`` is (epochs, n_seq). Returns the averaged
    (W (n_feats, n_tags), T (n_tags + 1, n_tags)): the mean of the zero weights it starts from and
    the weights after each sequence it learns from."""
    W = np.zeros((n_feats, n_tags))
    T = np.zeros((n_tags + 1, n_tags))
    W_sum = np.zeros_like(W)
    T_sum = np.zeros_like(T)
    steps = 0
    for epoch in orders:
        for s in epoch:
            if not features[s]:
                continue
            scores = [[sum(W[f, y] for f in token) for y in range(n_tags)] for token in features[s]]
            pred = _greedy_viterbi(scores, T, allowed)
            for t, (g, p) in enumerate(zip(gold[s], pred, strict=True)):
                if g != p:
                    for f in features[s][t]:
                        W[f, g] += 1.0
                        W[f, p] -= 1.0
                gp = gold[s][t - 1] if t > 0 else n_tags
                pp = pred[t - 1] if t > 0 else n_tags
                if g != p or gp != pp:
                    T[gp, g] += 1.0
                    T[pp, p] -= 1.0
            W_sum += W
            T_sum += T
            steps += 1
    return W_sum / (steps + 1), T_sum / (steps + 1)
