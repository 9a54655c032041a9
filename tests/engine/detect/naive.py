"""Slow, obvious twins of the detectors' numba kernels, for comparison on random inputs."""

from __future__ import annotations

import itertools

import numpy as np


def runs(mask) -> list[tuple[int, int]]:
    """(first, one past last) of every run of truthy values."""
    out, start = [], None
    for t, v in enumerate([*list(mask), 0]):
        if v and start is None:
            start = t
        elif not v and start is not None:
            out.append((start, t))
            start = None
    return out


def hangover(active, onset: int, hangover: int) -> np.ndarray:
    """Speech opens at the first of ``onset`` active frames in a row; after ``hangover``
    inactive frames in a row it has closed, keeping those frames up to ``hangover``."""
    n = len(active)
    out = np.zeros(n, dtype=np.uint8)
    t = 0
    while t < n:
        # find the next run of `onset` active frames
        if all(active[t : t + onset]) and t + onset <= n:
            k = t
            last_active = t
            while k < n:
                if active[k]:
                    last_active = k
                elif k - last_active > hangover:
                    break
                k += 1
            out[t : min(n, last_active + hangover + 1)] = 1
            t = k
        else:
            t += 1
    return out


def hysteresis(score, high: float, low: float) -> np.ndarray:
    out = np.zeros(len(score), dtype=np.uint8)
    for a, b in runs([s >= low for s in score]):
        if any(s >= high for s in score[a:b]):
            out[a:b] = 1
    return out


def close_and_prune(mask, max_gap: int, min_length: int) -> np.ndarray:
    out = np.array(mask, dtype=np.uint8)
    spans = runs(out)
    for (_, b), (c, _) in itertools.pairwise(spans):
        if c - b <= max_gap:
            out[b:c] = 1
    for a, b in runs(out):
        if b - a < min_length:
            out[a:b] = 0
    return out


def grow(mask, active, max_frames: int) -> np.ndarray:
    out = np.array(mask, dtype=np.uint8)
    n = len(mask)
    for a, b in runs(mask):
        for k in range(1, max_frames + 1):
            if a - k < 0 or not active[a - k]:
                break
            out[a - k] = 1
        for k in range(max_frames):
            if b + k >= n or not active[b + k]:
                break
            out[b + k] = 1
    return out


def autocorrelation(window_levels, range_db: float, max_lag: int) -> np.ndarray:
    x = np.maximum(np.asarray(window_levels, dtype=np.float64), max(window_levels) - range_db)
    x = x - x.mean()
    energy = float(x @ x)
    ac = np.zeros(max_lag + 2)
    if energy <= 1e-9:
        return ac
    for lag in range(1, max_lag + 2):
        ac[lag] = float(x[:-lag] @ x[lag:]) / energy
    return ac


def envelope_periodicity(level_db, window, step, range_db, min_lag, max_lag, short_lag):
    n = len(level_db)
    peak, dip, lag_at = np.zeros(n), np.zeros(n), np.zeros(n, dtype=int)
    for t in range(0, n, step):
        b = min(n, max(0, t - window // 2) + window)
        a = max(0, b - window)
        if b - a <= max_lag + 1:
            continue
        ac = autocorrelation(level_db[a:b], range_db, max_lag)
        if not ac.any():
            continue
        peaks = [k for k in range(min_lag, max_lag + 1) if ac[k] > 0 and ac[k] >= ac[k - 1] and ac[k] >= ac[k + 1]]
        if peaks:
            best = max(peaks, key=lambda k: (ac[k], -k))
            p, d, lag = ac[best], min(ac[short_lag:best]), best
        else:
            p, d, lag = 0.0, 0.0, 0
        peak[t : t + step], dip[t : t + step], lag_at[t : t + step] = p, d, lag
    return peak, dip, lag_at


def syllable_nuclei(intensity, voicing, in_speech, threshold, min_dip, min_voicing) -> list[int]:
    n = len(intensity)
    cands = [t for t in range(1, n - 1) if in_speech[t] and intensity[t] >= threshold[t]
             and intensity[t] > intensity[t - 1] and intensity[t] >= intensity[t + 1]]  # fmt: skip
    out = []
    for i, t in enumerate(cands):
        stop = cands[i + 1] if i + 1 < len(cands) else n
        between = range(t + 1, stop)
        # a dip down to the end of speech counts as deep as can be
        low = min([intensity[t], *[intensity[k] for k in between]]) if all(in_speech[k] for k in between) else -np.inf
        if intensity[t] - low >= min_dip and voicing[t] >= min_voicing:
            out.append(t)
    return out


def x_duration(start_frames, end_frames, good, active) -> np.ndarray:
    """For each word, active frames between the last good word's end and its start."""
    out = np.zeros(len(start_frames))
    for i, s in enumerate(start_frames):
        ends = [end_frames[j] for j in range(i) if good[j]]
        gap_from = max([0, *ends])
        out[i] = sum(1 for t in range(max(gap_from, 0), min(s, len(active))) if active[t])
    return out


def dc_block(x, pole: float, state: float) -> tuple[np.ndarray, float]:
    """y[n] = x[n] - x[n-1] + pole * y[n-1], the previous input and output carried in one delay."""
    y = np.zeros(len(x))
    for n, v in enumerate(np.asarray(x, dtype=np.float64)):
        y[n] = state + v
        state = pole * y[n] - v
    return y, state
