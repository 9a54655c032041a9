"""Simple segmenters and post-processing rules used beside the HMM.

* The caption-gap rule: a story starts after every pause longer than ``T`` seconds,
  with ``T`` chosen on training transcripts only (a held-out peer of the HMM;
  :mod:`engine.research.segment.gap_rule` fits it).
* A story-length floor: stories shorter than ``min_words`` are merged into a
  neighbour, so that search never sees a six-word "story".
"""

from __future__ import annotations

import numpy as np

from engine.errors import ParameterError
from engine.segment import config
from engine.segment.text import Transcript


def pauses(transcript: Transcript) -> np.ndarray:
    """Silence before every word in seconds, shape (n,): ``start[t] - end[t-1]``, 0 for word 0 or without times."""
    n = len(transcript)
    if transcript.starts is None or transcript.ends is None or n == 0:
        return np.zeros(n)
    gap = np.zeros(n)
    gap[1:] = np.maximum(np.asarray(transcript.starts)[1:] - np.asarray(transcript.ends)[:-1], 0.0)
    return gap


def gap_rule_starts(transcript: Transcript, *, threshold: float) -> np.ndarray:
    """Story starts after every pause longer than ``threshold`` seconds, int64 (k,), first entry 0."""
    if not np.isfinite(threshold) or threshold < 0:
        raise ParameterError(f"gap threshold must be a non-negative number of seconds, got {threshold!r}")
    hits = np.flatnonzero(pauses(transcript) > threshold)
    return np.unique(np.concatenate([[0], hits])).astype(np.int64)


def enforce_min_length(story_starts: np.ndarray, n_words: int, *, min_words: int,
                       strength: np.ndarray | None = None) -> np.ndarray:
    """Merge stories shorter than ``min_words`` into a neighbour.

    Parameters
    ----------
    story_starts : int array, shape (k,)
        Sorted story starts, first entry 0.
    n_words : int
        Length of the word sequence.
    min_words : int
        Shortest story kept (words); 0 or 1 leaves the starts unchanged.
    strength : float array, shape (k,), optional
        Evidence for each start (e.g. its confidence); of the two boundaries around a short
        story the weaker one is removed. Without it, the later boundary goes.

    Returns
    -------
    ndarray of int64, shape (k',)
        The kept starts (a subset of the input), first entry 0.
    """
    starts = np.asarray(story_starts, dtype=np.int64)
    if starts.size == 0 or min_words <= 1:
        return starts.copy()
    weight = np.zeros(starts.size) if strength is None else np.asarray(strength, dtype=np.float64).copy()
    if weight.shape != starts.shape:
        raise ParameterError(f"strength has shape {weight.shape}, story starts {starts.shape}")
    keep = list(range(starts.size))
    while len(keep) > 1:
        edges = [*(int(starts[i]) for i in keep), int(n_words)]
        lengths = np.diff(edges)
        short = int(np.argmin(lengths))
        if lengths[short] >= min_words:
            break
        # the story keep[short] is too short: drop its own start or the next story's start
        if short == 0:
            drop = 1
        elif short == len(keep) - 1:
            drop = short
        else:
            drop = short + 1 if weight[keep[short + 1]] <= weight[keep[short]] else short
        del keep[drop]
    return starts[keep]


def posterior_starts(posterior: np.ndarray, *, threshold: float,
                     half_window: int = config.CONFIDENCE_HALF_WINDOW,
                     min_words: int = config.MIN_STORY_WORDS) -> np.ndarray:
    """Story starts where the boundary posterior, summed over ``±half_window`` words, peaks above ``threshold``.

    A calibrated alternative to the Viterbi path's penalty: ``threshold`` is a probability
    (0..1) that a story starts near the word, so the number of boundaries falls smoothly as it
    rises instead of jumping at one penalty. Peaks are taken strongest first and none lies
    within ``min_words`` of a stronger one.

    Parameters
    ----------
    posterior : float array, shape (n,)
        P(word t starts a story | all words), from forward-backward.
    threshold : float
        Smallest windowed posterior that makes a boundary, in [0, 1].

    Returns
    -------
    ndarray of int64, shape (k,)
        Sorted starts, first entry 0 (empty when there are no words).
    """
    p = np.asarray(posterior, dtype=np.float64)
    if not 0.0 <= threshold <= 1.0:
        raise ParameterError(f"posterior threshold must lie in [0, 1], got {threshold!r}")
    if p.ndim != 1 or not np.all(np.isfinite(p)):
        raise ParameterError(f"posterior must be a finite 1-d array, got shape {p.shape}")
    n = p.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    csum = np.concatenate([[0.0], np.cumsum(p)])
    idx = np.arange(n)
    mass = csum[np.minimum(idx + half_window + 1, n)] - csum[np.maximum(idx - half_window, 0)]
    # the word of highest posterior inside each window carries the window's mass
    candidates = [int(i) for i in np.argsort(-mass, kind="stable") if mass[i] >= threshold and i > 0]
    taken = np.zeros(n, dtype=bool)
    chosen = [0]
    blocked = np.zeros(n, dtype=bool)
    blocked[: max(min_words, 1)] = True
    blocked[max(n - min_words + 1, 1) :] = True  # nor a last story under min_words
    for i in candidates:
        lo, hi = max(i - half_window, 0), min(i + half_window + 1, n)
        peak = lo + int(np.argmax(p[lo:hi]))
        if blocked[peak] or taken[peak] or peak == 0:
            continue
        taken[peak] = True
        chosen.append(peak)
        blocked[max(peak - min_words + 1, 0) : peak + min_words] = True
    return np.asarray(sorted(chosen), dtype=np.int64)
