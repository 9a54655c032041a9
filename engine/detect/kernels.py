"""Numba kernels of the audio detectors. They check nothing; see :mod:`engine.detect.frames`
and the detector modules for the validating wrappers.

Every kernel has a slow, obvious twin in ``tests/engine/detect/naive.py`` and a test comparing
the two on random inputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _hangover_kernel(active, onset, hangover):  # pragma: no cover - compiled
    """Smooth a frame decision sequence (uint8, 0/1).

    A region opens at the first of ``onset`` consecutive active frames and stays open
    until ``hangover`` consecutive inactive frames have passed; it then ends right
    after its last active frame plus ``hangover`` frames (capped at the sequence end).
    """
    n = active.shape[0]
    out = np.zeros(n, dtype=np.uint8)
    run = 0  # consecutive active frames while closed
    quiet = 0  # consecutive inactive frames while open
    is_open = False
    for t in range(n):
        if not is_open:
            if active[t]:
                run += 1
                if run >= onset:
                    is_open = True
                    quiet = 0
                    for k in range(t - run + 1, t + 1):
                        out[k] = 1
            else:
                run = 0
        else:
            if active[t]:
                quiet = 0
                out[t] = 1
            else:
                quiet += 1
                if quiet <= hangover:
                    out[t] = 1
                else:
                    is_open = False
                    run = 0
    return out


@njit(cache=True, nogil=True)
def _hysteresis_kernel(score, high, low):  # pragma: no cover - compiled
    """Frames inside regions where ``score >= low`` that contain at least one frame with ``score >= high``."""
    n = score.shape[0]
    out = np.zeros(n, dtype=np.uint8)
    t = 0
    while t < n:
        if score[t] >= low:
            start = t
            peak = False
            while t < n and score[t] >= low:
                if score[t] >= high:
                    peak = True
                t += 1
            if peak:
                for k in range(start, t):
                    out[k] = 1
        else:
            t += 1
    return out


@njit(cache=True, nogil=True)
def _close_and_prune_kernel(mask, max_gap, min_length):  # pragma: no cover - compiled
    """Fill inactive gaps of at most ``max_gap`` frames between active runs, then drop runs shorter than ``min_length``."""
    n = mask.shape[0]
    out = mask.copy()
    last_end = -1  # index one past the previous active run
    t = 0
    while t < n:
        if out[t]:
            start = t
            while t < n and out[t]:
                t += 1
            if last_end >= 0 and start - last_end <= max_gap:
                for k in range(last_end, start):
                    out[k] = 1
            last_end = t
        else:
            t += 1
    t = 0
    while t < n:
        if out[t]:
            start = t
            while t < n and out[t]:
                t += 1
            if t - start < min_length:
                for k in range(start, t):
                    out[k] = 0
        else:
            t += 1
    return out


@njit(cache=True, nogil=True)
def _envelope_periodicity_kernel(level_db, window, step, range_db, min_lag, max_lag, short_lag):  # pragma: no cover
    """Rhythm of a level envelope in a window of ``window`` frames around every ``step``-th frame.

    The window's levels are floored at ``max - range_db``, centred and autocorrelated
    (normalised by lag 0). Returns ``(peak, dip, lag)``: the highest positive local maximum
    of the autocorrelation at lags ``min_lag..max_lag`` (bursts repeating; 0 if none), the
    lowest autocorrelation from lag ``short_lag`` up to that peak (the trough between
    bursts), and the peak's lag in frames (0 if none). Windows are shifted inside the
    sequence at its ends; a frame between two computed ones takes the values of the one
    before it; flat or too short windows give zeros. Needs ``window > max_lag + 1``.
    """
    n = level_db.shape[0]
    peak = np.zeros(n, dtype=np.float32)
    dip = np.zeros(n, dtype=np.float32)
    lag_at = np.zeros(n, dtype=np.int32)
    half = window // 2
    buf = np.empty(window, dtype=np.float64)
    ac = np.zeros(max_lag + 2, dtype=np.float64)
    for t in range(0, n, step):
        a = max(0, t - half)
        b = min(n, a + window)
        a = max(0, b - window)
        m = b - a
        if m <= max_lag + 1:
            continue
        top = -1e30
        for k in range(m):
            if level_db[a + k] > top:
                top = level_db[a + k]
        mean = 0.0
        for k in range(m):
            v = max(level_db[a + k], top - range_db)
            buf[k] = v
            mean += v
        mean /= m
        energy = 0.0
        for k in range(m):
            buf[k] -= mean
            energy += buf[k] * buf[k]
        if energy <= 1e-9:
            continue
        for lag in range(1, max_lag + 2):
            s = 0.0
            for k in range(m - lag):
                s += buf[k] * buf[k + lag]
            ac[lag] = s / energy
        best = 0.0
        best_lag = 0
        for lag in range(min_lag, max_lag + 1):
            if ac[lag] > best and ac[lag] >= ac[lag - 1] and ac[lag] >= ac[lag + 1]:
                best = ac[lag]
                best_lag = lag
        low = 0.0
        if best_lag > 0:
            low = ac[short_lag]
            for lag in range(short_lag, best_lag):
                if ac[lag] < low:
                    low = ac[lag]
        for k in range(t, min(n, t + step)):
            peak[k] = best
            dip[k] = low
            lag_at[k] = best_lag
    return peak, dip, lag_at


@njit(cache=True, nogil=True)
def _syllable_nuclei_kernel(intensity_db, voicing, in_speech, threshold_db, min_dip_db, min_voicing):  # pragma: no cover
    """Frame indices of syllable nuclei (de Jong and Wempe 2009).

    A nucleus is a local maximum of ``intensity_db`` inside speech, at or above
    ``threshold_db[t]``, voiced (``voicing >= min_voicing``), that rises at least
    ``min_dip_db`` above the lowest intensity between it and the next candidate peak.
    """
    n = intensity_db.shape[0]
    candidates = np.empty(n, dtype=np.int64)
    n_cand = 0
    for t in range(1, n - 1):
        x = intensity_db[t]
        if in_speech[t] and x >= threshold_db[t] and x > intensity_db[t - 1] and x >= intensity_db[t + 1]:
            candidates[n_cand] = t
            n_cand += 1
    out = np.empty(n_cand, dtype=np.int64)
    n_out = 0
    for i in range(n_cand):
        t = candidates[i]
        # lowest point towards the next candidate (or the end of this speech run)
        stop = candidates[i + 1] if i + 1 < n_cand else n
        low = intensity_db[t]
        k = t + 1
        while k < stop and in_speech[k]:
            if intensity_db[k] < low:
                low = intensity_db[k]
            k += 1
        if k < stop:  # speech ended before the next peak: the dip is down to silence
            low = -1e30
        if intensity_db[t] - low >= min_dip_db and voicing[t] >= min_voicing:
            out[n_out] = t
            n_out += 1
    return out[:n_out]


@njit(cache=True, nogil=True)
def _x_duration_kernel(start_frames, end_frames, good, active_cumsum, start_frame):  # pragma: no cover - compiled
    """Untranscribed sound before each word, in frames.

    For word ``i`` the gap runs from the end of the last *good* word before it (or
    ``start_frame``) to its own start; the result counts the active (non-silent)
    frames in that gap, read off ``active_cumsum`` (length n_frames + 1).
    """
    n = start_frames.shape[0]
    n_frames = active_cumsum.shape[0] - 1
    out = np.zeros(n, dtype=np.float64)
    gap_from = start_frame
    for i in range(n):
        a = min(max(gap_from, 0), n_frames)
        b = min(max(start_frames[i], 0), n_frames)
        if b > a:
            out[i] = active_cumsum[b] - active_cumsum[a]
        if good[i]:
            gap_from = max(gap_from, end_frames[i])
    return out


@njit(cache=True, nogil=True)
def _grow_kernel(mask, active, max_frames):  # pragma: no cover - compiled
    """Extend every run of ``mask`` outwards over consecutive ``active`` frames, at most ``max_frames`` each side."""
    n = mask.shape[0]
    out = mask.copy()
    t = 0
    while t < n:
        if mask[t]:
            start = t
            while t < n and mask[t]:
                t += 1
            k = start - 1
            while k >= 0 and start - k <= max_frames and active[k]:
                out[k] = 1
                k -= 1
            k = t
            while k < n and k - t < max_frames and active[k]:
                out[k] = 1
                k += 1
        else:
            t += 1
    return out


@njit(cache=True, nogil=True)
def _dc_block_kernel(x, pole, state):  # pragma: no cover - compiled
    """First-order DC blocker ``y[n] = x[n] - x[n-1] + pole * y[n-1]`` in float64, in the transposed
    direct form (``state`` is the one delay); returns the filtered block and the new state."""
    n = x.shape[0]
    y = np.empty(n, dtype=np.float64)
    z = state
    for t in range(n):
        v = np.float64(x[t])
        y[t] = z + v
        z = pole * y[t] - v
    return y, z
