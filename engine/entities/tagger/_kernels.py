"""Numba kernels of the structured perceptron: Viterbi decoding and training passes.

Sequences are stored flat: token features in CSR form (``feat_ptr``, ``feat_idx``),
sequence boundaries in ``seq_ptr``. ``allowed`` is an (n_tags + 1, n_tags) bool matrix
of permitted transitions; its last row is the start of a sequence.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEG = -1e30


@njit(cache=True, nogil=True)
def _viterbi(feat_ptr, feat_idx, lo, hi, W, T, allowed):  # pragma: no cover - compiled
    n = hi - lo
    n_tags = W.shape[1]
    start = T.shape[0] - 1
    score = np.empty((n, n_tags))
    back = np.zeros((n, n_tags), dtype=np.int64)
    for t in range(n):
        for y in range(n_tags):
            s = 0.0
            for k in range(feat_ptr[lo + t], feat_ptr[lo + t + 1]):
                s += W[feat_idx[k], y]
            score[t, y] = s
    for y in range(n_tags):
        score[0, y] = score[0, y] + T[start, y] if allowed[start, y] else NEG
    for t in range(1, n):
        for y in range(n_tags):
            best = NEG
            arg = 0
            for p in range(n_tags):
                if allowed[p, y]:
                    v = score[t - 1, p] + T[p, y]
                    if v > best:
                        best = v
                        arg = p
            score[t, y] += best
            back[t, y] = arg
    out = np.empty(n, dtype=np.int64)
    best = NEG
    for y in range(n_tags):
        if score[n - 1, y] > best:
            best = score[n - 1, y]
            out[n - 1] = y
    for t in range(n - 1, 0, -1):
        out[t - 1] = back[t, out[t]]
    return out


@njit(cache=True, nogil=True)
def _train(feat_ptr, feat_idx, seq_ptr, gold, orders, n_feats, n_tags, allowed):  # pragma: no cover - compiled
    """Averaged structured perceptron; ``orders`` is (epochs, n_seq) visiting orders.
    Returns averaged (W, T)."""
    W = np.zeros((n_feats, n_tags))
    T = np.zeros((n_tags + 1, n_tags))
    Wu = np.zeros((n_feats, n_tags))  # updates weighted by time, for averaging
    Tu = np.zeros((n_tags + 1, n_tags))
    c = 1.0
    start = n_tags
    for e in range(orders.shape[0]):
        for s in orders[e]:
            lo = seq_ptr[s]
            hi = seq_ptr[s + 1]
            if hi <= lo:
                continue
            pred = _viterbi(feat_ptr, feat_idx, lo, hi, W, T, allowed)
            for t in range(hi - lo):
                g = gold[lo + t]
                p = pred[t]
                if g != p:
                    for k in range(feat_ptr[lo + t], feat_ptr[lo + t + 1]):
                        f = feat_idx[k]
                        W[f, g] += 1.0
                        W[f, p] -= 1.0
                        Wu[f, g] += c
                        Wu[f, p] -= c
                gp = gold[lo + t - 1] if t > 0 else start
                pp = pred[t - 1] if t > 0 else start
                if g != p or gp != pp:
                    T[gp, g] += 1.0
                    T[pp, p] -= 1.0
                    Tu[gp, g] += c
                    Tu[pp, p] -= c
            c += 1.0
    return W - Wu / c, T - Tu / c
