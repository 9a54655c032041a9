"""Frame-sequence tools shared by the detectors: validating wrappers around the kernels,
moving averages, the silence floor, and turning frame masks into time spans.

All frame arrays are one-dimensional; times are in seconds; a frame ``t`` stands for
the time ``t * frame_seconds`` (its centre).
"""

from __future__ import annotations

import numpy as np

from engine.detect import config
from engine.detect.kernels import (
    _close_and_prune_kernel,
    _envelope_periodicity_kernel,
    _grow_kernel,
    _hangover_kernel,
    _hysteresis_kernel,
)
from engine.errors import ParameterError


def as_frames(name: str, values: np.ndarray, *, dtype: type = np.float64) -> np.ndarray:
    """``values`` as a contiguous one-dimensional array of ``dtype``; ParameterError if not 1-D or not finite."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ParameterError(f"{name} must be one-dimensional (one value per frame), got shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=dtype)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ParameterError(f"{name} must be finite; frame {bad} is {arr[bad]}")
    return arr


def same_length(**arrays: np.ndarray) -> int:
    """The common length of the named arrays; ParameterError naming them all if they differ."""
    lengths = {name: int(np.shape(a)[0]) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ParameterError("frame arrays must have the same length, got " + ", ".join(f"{k}={v}" for k, v in lengths.items()))
    return next(iter(lengths.values()), 0)


def positive(name: str, value: float) -> float:
    value = float(value)
    if not value > 0 or not np.isfinite(value):
        raise ParameterError(f"{name} must be a positive number, got {value}")
    return value


def frames_of(seconds: float, frame_seconds: float, *, minimum: int = 1) -> int:
    """A duration in seconds as a whole number of frames, at least ``minimum``."""
    return max(minimum, round(seconds / frame_seconds))


def moving_mean(values: np.ndarray, *, width: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Mean over a centred window of ``width`` frames (clipped at the ends), shape like ``values``.

    With ``weights`` (e.g. a 0/1 activity mask), a weighted mean; windows whose weights sum
    to zero give 0.
    """
    x = as_frames("values", values)
    if width < 1:
        raise ParameterError(f"width must be at least 1 frame, got {width}")
    n = x.shape[0]
    if weights is None:
        sums, total = window_sums(x, width), window_sums(np.ones(n), width)
    else:
        w = as_frames("weights", weights)
        same_length(values=x, weights=w)
        sums, total = window_sums(x * w, width), window_sums(w, width)
    return np.divide(sums, total, out=np.zeros(n), where=total > 1e-12)


def window_sums(values: np.ndarray, width: int) -> np.ndarray:
    """Sum over a centred window of ``width`` frames (clipped at the ends) of float64 ``values``, shape (n,).

    One padded running sum read at two offsets: frame i sums frames [i - width // 2, i - width // 2 + width),
    with no index arrays (an hour of 10 ms frames costs two float64 arrays of its length, not eight).
    """
    n = values.shape[0]
    running = _running_sum(values, width)
    return running[width : width + n] - running[:n]


def window_stats_at(values: np.ndarray, width: int, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of float64 ``values`` over :func:`moving_mean`'s centred windows of
    ``width`` frames, read at the frame indices ``at`` only, each float64 shape (len(at),): the numbers of
    ``moving_mean(values)[at]`` and of the deviation from ``moving_mean(values ** 2)``, holding one
    frame-long running sum at a time instead of six frame-long arrays."""
    n, half = values.shape[0], width // 2
    total = (np.minimum(at - half + width, n) - np.maximum(at - half, 0)).astype(np.float64)  # frames per window
    running = _running_sum(values, width)
    mean = np.divide(running[at + width] - running[at], total, out=np.zeros(len(at)), where=total > 1e-12)
    running = _running_sum(values * values, width)
    square = np.divide(running[at + width] - running[at], total, out=np.zeros(len(at)), where=total > 1e-12)
    return mean, np.sqrt(np.maximum(square - mean * mean, 0.0))


def _running_sum(values: np.ndarray, width: int) -> np.ndarray:
    """``running[j]`` = sum of ``values[: j - width // 2]``, held flat past both ends, shape (n + width + 1,)."""
    n, half = values.shape[0], width // 2
    running = np.empty(n + width + 1)
    running[: half + 1] = 0.0
    np.cumsum(values, out=running[half + 1 : half + 1 + n])
    running[half + 1 + n :] = running[half + n]
    return running


def silence_floor_db(energy_db: np.ndarray) -> float:
    """The recording's background level: a low percentile of frame levels, in dBFS."""
    e = as_frames("energy_db", energy_db)
    if e.size == 0:
        return config.FLOOR_DBFS
    return float(np.percentile(e, config.FLOOR_PERCENTILE))


def active_frames(energy_db: np.ndarray, *, margin_db: float = config.SILENCE_MARGIN_DB) -> np.ndarray:
    """Frames that are not silence (bool): louder than the background by ``margin_db``, and than
    ACTIVE_MIN_DBFS; anything louder than ACTIVE_MAX_DBFS is sound even in a recording without
    a quiet moment (whose low percentile is no background)."""
    e = as_frames("energy_db", energy_db)
    threshold = min(max(silence_floor_db(e) + margin_db, config.ACTIVE_MIN_DBFS), config.ACTIVE_MAX_DBFS)
    return e > threshold


def island_seconds(active: np.ndarray, *, frame_seconds: float, max_gap_seconds: float) -> np.ndarray:
    """Per frame, the length in seconds of the stretch of sound it belongs to (0 in silence).

    A stretch is a run of ``active`` frames with pauses up to ``max_gap_seconds`` bridged.
    """
    fs = positive("frame_seconds", frame_seconds)
    mask = close_and_prune(as_frames("active", active, dtype=np.uint8),
                           max_gap=frames_of(max_gap_seconds, fs, minimum=0), min_length=1)  # fmt: skip
    out = np.zeros(mask.shape[0])
    for a, b in mask_spans(mask):
        out[a:b] = (b - a) * fs
    return out


def smooth_hangover(active: np.ndarray, *, onset: int, hangover: int) -> np.ndarray:
    """Open a region after ``onset`` consecutive active frames; close it ``hangover`` frames after the last.

    Returns uint8 of the same shape. ``onset`` >= 1 and ``hangover`` >= 0, in frames.
    """
    a = as_frames("active", active, dtype=np.uint8)
    if onset < 1 or hangover < 0:
        raise ParameterError(f"onset must be >= 1 and hangover >= 0 frames, got {onset} and {hangover}")
    return _hangover_kernel(a, int(onset), int(hangover))


def hysteresis(score: np.ndarray, *, high: float, low: float) -> np.ndarray:
    """Frames of every run with ``score >= low`` that reaches ``high`` somewhere (uint8)."""
    s = as_frames("score", score)
    if not low <= high:
        raise ParameterError(f"hysteresis needs low <= high, got low={low}, high={high}")
    return _hysteresis_kernel(s, float(high), float(low))


def close_and_prune(mask: np.ndarray, *, max_gap: int, min_length: int) -> np.ndarray:
    """Bridge gaps of at most ``max_gap`` frames, then drop runs shorter than ``min_length`` frames (uint8)."""
    m = as_frames("mask", mask, dtype=np.uint8)
    if max_gap < 0 or min_length < 1:
        raise ParameterError(f"max_gap must be >= 0 and min_length >= 1 frames, got {max_gap} and {min_length}")
    return _close_and_prune_kernel(m, int(max_gap), int(min_length))


def grow_over(mask: np.ndarray, active: np.ndarray, *, max_frames: int) -> np.ndarray:
    """Extend each run of ``mask`` over adjoining ``active`` frames, at most ``max_frames`` on each side (uint8)."""
    m = as_frames("mask", mask, dtype=np.uint8)
    a = as_frames("active", active, dtype=np.uint8)
    same_length(mask=m, active=a)
    if max_frames < 0:
        raise ParameterError(f"max_frames must be >= 0, got {max_frames}")
    return _grow_kernel(m, a, int(max_frames))


def envelope_periodicity(
    level_db: np.ndarray, *, window: int, step: int = 1, range_db: float, min_lag: int, max_lag: int, short_lag: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Burst rhythm of a level envelope: ``(peak, dip, lag)`` per frame, see ``_envelope_periodicity_kernel``.

    Lags are in frames: ``1 <= short_lag < min_lag <= max_lag < window``.
    """
    x = as_frames("level_db", level_db)
    if not (1 <= short_lag < min_lag <= max_lag < window) or step < 1 or range_db <= 0:
        raise ParameterError(
            "envelope_periodicity needs 1 <= short_lag < min_lag <= max_lag < window, step >= 1 and range_db > 0; "
            f"got short_lag={short_lag}, min_lag={min_lag}, max_lag={max_lag}, window={window}, step={step}, "
            f"range_db={range_db}"
        )
    return _envelope_periodicity_kernel(x, int(window), int(step), float(range_db), int(min_lag), int(max_lag), int(short_lag))


def mask_spans(mask: np.ndarray) -> list[tuple[int, int]]:
    """Runs of non-zero frames as ``(first, one_past_last)`` frame indices."""
    m = np.asarray(mask).astype(bool)
    if m.ndim != 1:
        raise ParameterError(f"mask must be one-dimensional, got shape {m.shape}")
    edges = np.diff(np.concatenate([[0], m.view(np.uint8), [0]]).astype(np.int8))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(), strict=True))


def ramp(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """0 at or below ``lo``, 1 at or above ``hi``, linear between (``hi < lo`` gives the falling ramp)."""
    if lo == hi:
        raise ParameterError(f"ramp needs lo != hi, got {lo}")
    return np.clip((np.asarray(x, dtype=np.float64) - lo) / (hi - lo), 0.0, 1.0)
