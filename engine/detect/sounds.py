"""Music, applause, laughter and steady-noise detectors: window statistics of frame features, a score per
frame in [0, 1], hysteresis, and events.

Every function is pure and takes feature arrays of one value per frame (see
:mod:`engine.detect.features`) as keyword arguments, with ``sr`` (Hz) and ``hop_length``
(samples) giving the frame rate. Thresholds come from :mod:`engine.detect.config`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.detect import config
from engine.detect.events import Event, events_from_mask
from engine.detect.frames import (
    active_frames,
    as_frames,
    close_and_prune,
    envelope_periodicity,
    frames_of,
    grow_over,
    hysteresis,
    island_seconds,
    moving_mean,
    positive,
    ramp,
    same_length,
)
from engine.errors import ParameterError


def _frame_seconds(sr: int, hop_length: int) -> float:
    if int(sr) != sr or sr <= 0 or int(hop_length) != hop_length or hop_length <= 0:
        raise ParameterError(f"sr and hop_length must be positive integers, got sr={sr}, hop_length={hop_length}")
    return hop_length / sr


def _framed(
    sr: int, hop_length: int, window_seconds: float, *, as_given: bool = False, **features: np.ndarray
) -> tuple[dict[str, np.ndarray], int, float]:
    """Checked frame features (one float64 array each, all one length; with ``as_given``, each in its own
    dtype, for a caller that converts one at a time), the window in frames, and the frame hop in s."""
    frame_seconds = _frame_seconds(sr, hop_length)
    arrays = {k: as_frames(k, v, dtype=np.asarray(v).dtype.type if as_given else np.float64) for k, v in features.items()}
    same_length(**arrays)
    return arrays, frames_of(positive("window_seconds", window_seconds), frame_seconds), frame_seconds


def _sensitivity(value: float) -> float:
    if not 0.0 < value < 1.0:
        raise ParameterError(f"sensitivity must lie strictly between 0 and 1, got {value}")
    return float(value)


def score_to_events(
    kind: str,
    score: np.ndarray,
    value: np.ndarray,
    *,
    frame_seconds: float,
    sensitivity: float,
    min_seconds: float,
    max_gap_seconds: float,
    active: np.ndarray | None = None,
    grow_seconds: float = 0.0,
    min_core_seconds: float = 0.0,
    low_fraction: float = config.LOW_FRACTION,
) -> list[Event]:
    """Events of ``kind`` where ``score`` (per frame, in [0, 1]) is high; ``value`` is averaged over each.

    An event opens where ``score`` reaches ``1 - sensitivity`` and holds while it stays above
    ``low_fraction`` of that (hysteresis).

    With ``active`` (bool per frame), each region first grows over adjoining active frames
    by up to ``grow_seconds`` on each side: a window score is high only near the middle
    of a short sound, while the sound itself runs from silence to silence. Regions shorter
    than ``min_core_seconds`` are dropped before they grow.
    """
    high = 1.0 - _sensitivity(sensitivity)
    mask = hysteresis(score, high=high, low=high * low_fraction)
    if min_core_seconds > 0:
        mask = close_and_prune(mask, max_gap=0, min_length=frames_of(min_core_seconds, frame_seconds))
    if active is not None and grow_seconds > 0:
        mask = grow_over(mask, active, max_frames=frames_of(grow_seconds, frame_seconds, minimum=0))
    mask = close_and_prune(
        mask,
        max_gap=frames_of(max_gap_seconds, frame_seconds, minimum=0),
        min_length=frames_of(min_seconds, frame_seconds),
    )
    return events_from_mask(kind, mask, score, value, frame_seconds=frame_seconds, duration=len(score) * frame_seconds)


def _active_stats(window: int, active: np.ndarray, **features: np.ndarray) -> dict[str, np.ndarray]:
    """Window means of each feature over the active frames only, plus the active fraction."""
    weights = active.astype(np.float64)
    out = {name: moving_mean(values, width=window, weights=weights) for name, values in features.items()}
    out["active"] = moving_mean(weights, width=window)
    return out


def music_score(
    *,
    chroma_stability: np.ndarray,
    voicing: np.ndarray,
    flux: np.ndarray,
    energy_db: np.ndarray,
    sr: int,
    hop_length: int,
    window_seconds: float = config.MUSIC_WINDOW_SECONDS,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame music score in [0, 1] and the window's chroma stability, both shape (n_frames,)."""
    arrays, window, _ = _framed(
        sr, hop_length, window_seconds, chroma_stability=chroma_stability, voicing=voicing, flux=flux, energy_db=energy_db
    )
    stats = _active_stats(window, active_frames(arrays["energy_db"]),
                          chroma=arrays["chroma_stability"], voicing=arrays["voicing"])  # fmt: skip
    flux_mean = moving_mean(arrays["flux"], width=window)
    score = (
        ramp(stats["chroma"], *config.MUSIC_CHROMA_STABILITY)
        * ramp(stats["voicing"], *config.MUSIC_VOICING)
        * ramp(flux_mean, *config.MUSIC_FLUX)
        * ramp(stats["active"], *config.MUSIC_ACTIVE_FRACTION)
    )
    return score, stats["chroma"]


def detect_music(
    *,
    chroma_stability: np.ndarray,
    voicing: np.ndarray,
    flux: np.ndarray,
    energy_db: np.ndarray,
    sr: int,
    hop_length: int,
    sensitivity: float = config.DEFAULT_SENSITIVITY,
    min_seconds: float = config.MUSIC_MIN_SECONDS,
    max_gap_seconds: float = config.MUSIC_MAX_GAP_SECONDS,
) -> list[Event]:
    """Music (jingles, beds): sustained, voiced sound whose chroma stays still.

    Parameters
    ----------
    chroma_stability, voicing, flux, energy_db : float arrays, shape (n_frames,)
        Frame features (see :mod:`engine.detect.features`).
    sr, hop_length : sample rate (Hz) and frame hop (samples).
    sensitivity : in (0, 1); higher finds more.
    min_seconds, max_gap_seconds : shortest event kept; longest gap bridged, seconds.

    Returns
    -------
    list of Event of type ``"music"``; value = mean chroma stability.
    """
    score, chroma = music_score(chroma_stability=chroma_stability, voicing=voicing, flux=flux, energy_db=energy_db,
                                sr=sr, hop_length=hop_length)  # fmt: skip
    return score_to_events("music", score, chroma, frame_seconds=hop_length / sr, sensitivity=sensitivity,
                           min_seconds=min_seconds, max_gap_seconds=max_gap_seconds)  # fmt: skip


def applause_score(
    *,
    flatness: np.ndarray,
    voicing: np.ndarray,
    chroma_stability: np.ndarray,
    energy_db: np.ndarray,
    sr: int,
    hop_length: int,
    window_seconds: float = config.APPLAUSE_WINDOW_SECONDS,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame applause score in [0, 1] and the window's mean level (dBFS), both shape (n_frames,)."""
    arrays, window, _ = _framed(
        sr, hop_length, window_seconds, flatness=flatness, voicing=voicing, chroma_stability=chroma_stability, energy_db=energy_db
    )
    active = active_frames(arrays["energy_db"])
    stats = _active_stats(window, active, flat=arrays["flatness"], voicing=arrays["voicing"],
                          chroma=arrays["chroma_stability"], level=arrays["energy_db"])  # fmt: skip
    score = (
        ramp(stats["flat"], *config.APPLAUSE_FLATNESS_RISE)
        * ramp(stats["flat"], *config.APPLAUSE_FLATNESS_FALL)
        * ramp(stats["voicing"], *config.APPLAUSE_VOICING)
        * ramp(stats["chroma"], *config.APPLAUSE_CHROMA_STABILITY)
        * ramp(stats["active"], *config.APPLAUSE_ACTIVE_FRACTION)
    )
    return score, stats["level"]


def detect_applause(
    *,
    flatness: np.ndarray,
    voicing: np.ndarray,
    chroma_stability: np.ndarray,
    energy_db: np.ndarray,
    sr: int,
    hop_length: int,
    sensitivity: float = config.DEFAULT_SENSITIVITY,
    min_seconds: float = config.APPLAUSE_MIN_SECONDS,
    max_gap_seconds: float = config.APPLAUSE_MAX_GAP_SECONDS,
) -> list[Event]:
    """Applause: dense broadband noise, unvoiced, sustained for ``min_seconds`` or more.

    Parameters as :func:`detect_music`. Returns Events of type ``"applause"``; value = mean level, dBFS.
    """
    score, level = applause_score(flatness=flatness, voicing=voicing, chroma_stability=chroma_stability,
                                  energy_db=energy_db, sr=sr, hop_length=hop_length)  # fmt: skip
    return score_to_events("applause", score, level, frame_seconds=hop_length / sr, sensitivity=sensitivity,
                           min_seconds=min_seconds, max_gap_seconds=max_gap_seconds)  # fmt: skip


def laughter_score(
    *,
    energy_db: np.ndarray,
    shape_stability: np.ndarray,
    chroma_stability: np.ndarray,
    sr: int,
    hop_length: int,
    window_seconds: float = config.LAUGHTER_WINDOW_SECONDS,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame laughter score in [0, 1] and the burst rate (bursts per second), both shape (n_frames,)."""
    arrays, window, frame_seconds = _framed(
        sr, hop_length, window_seconds, energy_db=energy_db, shape_stability=shape_stability, chroma_stability=chroma_stability
    )
    lo_hz, hi_hz = config.LAUGHTER_BURST_HZ
    min_lag = frames_of(1.0 / hi_hz, frame_seconds)
    max_lag = min(window - 2, frames_of(1.0 / lo_hz, frame_seconds))
    short_lag = max(1, min(min_lag - 1, frames_of(0.5 / hi_hz, frame_seconds)))
    peak, dip, lag = envelope_periodicity(
        arrays["energy_db"], window=window, step=frames_of(config.LAUGHTER_STEP_SECONDS, frame_seconds),
        range_db=config.LAUGHTER_RANGE_DB, min_lag=min_lag, max_lag=max_lag, short_lag=short_lag,
    )  # fmt: skip
    level = arrays["energy_db"]
    level_mean = moving_mean(level, width=window)
    # Shape stability counts in the bursts (frames above the window's mean level), not in the gaps.
    bursts = (level > level_mean).astype(np.float64)
    shape = moving_mean(arrays["shape_stability"], width=window, weights=bursts)
    chroma = moving_mean(arrays["chroma_stability"], width=window, weights=active_frames(level).astype(np.float64))
    level_std = np.sqrt(np.maximum(moving_mean(level**2, width=window) - level_mean**2, 0.0))
    island = island_seconds(active_frames(level), frame_seconds=frame_seconds,
                            max_gap_seconds=config.LAUGHTER_ISLAND_GAP_SECONDS)  # fmt: skip
    score = (
        ramp(peak.astype(np.float64) - dip, *config.LAUGHTER_PERIODICITY)
        * ramp(island, *config.LAUGHTER_ISLAND_SECONDS)
        * ramp(shape, *config.LAUGHTER_SHAPE_STABILITY)
        * ramp(chroma, *config.LAUGHTER_CHROMA_STABILITY)
        * ramp(level_std, *config.LAUGHTER_LEVEL_STD_DB)
    )
    rate = np.where(lag > 0, 1.0 / np.maximum(lag, 1) / frame_seconds, 0.0)
    return score, rate


def detect_laughter(
    *,
    energy_db: np.ndarray,
    shape_stability: np.ndarray,
    chroma_stability: np.ndarray,
    sr: int,
    hop_length: int,
    sensitivity: float = config.DEFAULT_SENSITIVITY,
    min_seconds: float = config.LAUGHTER_MIN_SECONDS,
    max_gap_seconds: float = config.LAUGHTER_MAX_GAP_SECONDS,
) -> list[Event]:
    """Laughter: rhythmic bursts (about 4-6 a second), breathier and more regular than speech.

    Parameters as :func:`detect_music`. Returns Events of type ``"laughter"``; value = bursts per second.
    """
    score, rate = laughter_score(energy_db=energy_db, shape_stability=shape_stability, chroma_stability=chroma_stability,
                                 sr=sr, hop_length=hop_length)  # fmt: skip
    return score_to_events("laughter", score, rate, frame_seconds=hop_length / sr, sensitivity=sensitivity,
                           min_seconds=min_seconds, max_gap_seconds=max_gap_seconds,
                           active=active_frames(as_frames("energy_db", energy_db)),
                           grow_seconds=config.LAUGHTER_GROW_SECONDS,
                           min_core_seconds=config.LAUGHTER_MIN_CORE_SECONDS)  # fmt: skip


def noise_score(
    *,
    shape_stability: np.ndarray,
    flux: np.ndarray,
    flatness: np.ndarray,
    energy_db: np.ndarray,
    sr: int,
    hop_length: int,
    window_seconds: float = config.NOISE_WINDOW_SECONDS,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-frame steady-sound score in [0, 1] and the window's mean level (dBFS), both shape (n_frames,).

    Steady means a still spectral shape with little flux (crowds, hum), or a flat spectrum
    (hiss, static: white-ish noise has no shape to hold still); either way with a level that
    stays within a few dB.
    """
    arrays, window, _ = _framed(sr, hop_length, window_seconds, as_given=True, shape_stability=shape_stability,
                                flux=flux, flatness=flatness, energy_db=energy_db)  # fmt: skip
    # Each frame-long intermediate is made float64 when used and dropped as soon as it is used: an hour is
    # 360,000 frames of float64 each.
    level = as_frames("energy_db", arrays.pop("energy_db"))
    level_mean = moving_mean(level, width=window)
    active = active_frames(level).astype(np.float64)
    shape = moving_mean(arrays.pop("shape_stability"), width=window, weights=(level > level_mean).astype(np.float64))
    steady = ramp(shape, *config.NOISE_SHAPE_STABILITY)
    del shape
    steady *= ramp(moving_mean(arrays.pop("flux"), width=window), *config.NOISE_FLUX)
    hiss = ramp(moving_mean(arrays.pop("flatness"), width=window, weights=active), *config.NOISE_FLATNESS)
    score = np.maximum(steady, hiss)
    del steady, hiss
    # the level's spread over the sounding frames only: a short burst's edges are not its swing
    sounding_mean = moving_mean(level, width=window, weights=active)
    level_std = np.sqrt(np.maximum(moving_mean(level**2, width=window, weights=active) - sounding_mean**2, 0.0))
    del sounding_mean
    score *= ramp(level_std, *config.NOISE_LEVEL_STD_DB)
    del level_std
    score *= ramp(moving_mean(active, width=window), *config.NOISE_ACTIVE_FRACTION)
    return score, level_mean


def detect_noise(
    *,
    shape_stability: np.ndarray,
    flux: np.ndarray,
    flatness: np.ndarray,
    energy_db: np.ndarray,
    sr: int,
    hop_length: int,
    sensitivity: float = config.DEFAULT_SENSITIVITY,
    min_seconds: float = config.NOISE_MIN_SECONDS,
    max_gap_seconds: float = config.NOISE_MAX_GAP_SECONDS,
    exclude: Sequence[Event] = (),
) -> list[Event]:
    """Steady non-speech sound (crowds, hiss, static, rumble) outside the spans in ``exclude``.

    Parameters as :func:`detect_music`. Returns Events of type ``"noise"``; value = mean level, dBFS.
    Music and applause are steady too: pass their events as ``exclude``.
    """
    score, level = noise_score(shape_stability=shape_stability, flux=flux, flatness=flatness, energy_db=energy_db,
                               sr=sr, hop_length=hop_length)  # fmt: skip
    frame_seconds = hop_length / sr
    for event in exclude:
        score[max(0, int(np.floor(event.start / frame_seconds))) : int(np.ceil(event.end / frame_seconds)) + 1] = 0.0
    # A one-second window is sure only in the middle of a short burst: grow it to the burst's edges.
    return score_to_events("noise", score, level, frame_seconds=frame_seconds, sensitivity=sensitivity,
                           min_seconds=min_seconds, max_gap_seconds=max_gap_seconds,
                           active=active_frames(as_frames("energy_db", energy_db)),
                           grow_seconds=config.NOISE_GROW_SECONDS,
                           min_core_seconds=config.NOISE_MIN_CORE_SECONDS)  # fmt: skip
