"""Slow, obvious twins of the tagger kernels, for comparison on random inputs."""

from __future__ import annotations

import numpy as np


def viterbi(unary: np.ndarray, trans: np.ndarray, start: np.ndarray, allowed: np.ndarray) -> list[int]:
    """Best path by brute force over every label sequence (tiny inputs only)."""
    import itertools

    n, k = unary.shape
    best, arg = -np.inf, None
    for path in itertools.product(range(k), repeat=n):
        if not allowed[-1, path[0]] or any(not allowed[path[t - 1], path[t]] for t in range(1, n)):
            continue
        s = start[path[0]] + unary[0, path[0]] + sum(trans[path[t - 1], path[t]] + unary[t, path[t]] for t in range(1, n))
        if s > best:
            best, arg = s, list(path)
    return arg


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
