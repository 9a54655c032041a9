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
