"""Non-parametric estimation of the HMM's parameters (paper section 4).

* Transitions: the story-length histogram is smoothed into a density, and the
  probability of a story ending after its (s+1)-th word is the hazard
  ``p(n = s+1) / p(n >= s+1)``. Stories longer than ``L`` words leave the
  absorbing state with the constant hazard ``1 / mean(n - L)`` (geometric tail).
* Emissions: each feature is binned; for every bin the counts are smoothed across
  states by kernel (Nadaraya-Watson) regression and scaled back to the bin's
  total count, which gives ``p(state | bin) p(bin)`` = the joint ``p(bin, state)``;
  ``p(bin | state)`` follows by normalising over bins.

Both smoothers use a Gaussian kernel on a log scale (log length, log state), so
that the first words of a story are barely pooled while late states are pooled
widely. State 0 and the absorbing state are estimated from their own counts
(see :func:`smooth_over_states`).
"""

from __future__ import annotations

import numpy as np

from engine.errors import ParameterError
from engine.segment import config


def _gaussian_weights(coords: np.ndarray, bandwidth: float) -> np.ndarray:
    """W[i, j] = K((coords[i] - coords[j]) / bandwidth), cut at KERNEL_CUTOFF bandwidths."""
    z = (coords[:, None] - coords[None, :]) / bandwidth
    weights = np.exp(-0.5 * z * z)
    weights[np.abs(z) > config.KERNEL_CUTOFF] = 0.0
    return weights


def _check_bandwidth(name: str, value: float) -> None:
    if not (np.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be a positive number (log units), got {value}")


def smooth_length_histogram(lengths: np.ndarray, *, max_state: int, bandwidth: float) -> dict[str, np.ndarray]:
    """Story-length histogram, raw and smoothed.

    Parameters
    ----------
    lengths : ndarray of int, shape (n_stories,)
        Story lengths in words, each >= 1.
    max_state : int
        ``L``; lengths 1..L get their own density value, longer ones form the tail.
    bandwidth : float
        Kernel bandwidth in units of log(length).

    Returns
    -------
    dict with ``raw`` (counts of lengths 1..L, shape (L,)), ``density`` (smoothed
    probabilities of lengths 1..L, shape (L,)), ``tail`` (probability of a length
    > L, shape ()) and ``tail_excess`` (mean of ``n - L`` over those, shape ()).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    _check_bandwidth("length bandwidth", bandwidth)
    if lengths.size == 0 or lengths.min() < 1:
        raise ParameterError(f"need at least one story, all of length >= 1 word; got {lengths.size} stories")
    raw = np.bincount(lengths[lengths <= max_state], minlength=max_state + 1)[1:].astype(np.float64)
    long_stories = lengths[lengths > max_state]
    weights = _gaussian_weights(np.log(np.arange(1, max_state + 1, dtype=np.float64)), bandwidth)
    # Each observed length spreads its mass over 1..L only (mass-preserving at the edges).
    spread = weights / weights.sum(axis=0, keepdims=True)
    smoothed = spread @ raw
    total = float(lengths.size)
    tail_excess = float((long_stories - max_state).mean()) if long_stories.size else 1.0
    return {
        "raw": raw,
        "density": smoothed / total,
        "tail": np.asarray(long_stories.size / total),
        "tail_excess": np.asarray(tail_excess),
    }


def transition_log_probs(
    density: np.ndarray, tail: float, tail_excess: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log transition and initial probabilities from a story-length distribution.

    Parameters
    ----------
    density : ndarray, shape (L,)
        Probability of a story of length 1..L.
    tail : float
        Probability of a story longer than L.
    tail_excess : float
        Mean number of words such stories have beyond the L-th.

    Returns
    -------
    log_next, log_restart, log_init : ndarray, shape (L + 1,)
        ``log_init`` is the stationary distribution of the chain: a recording may
        begin anywhere in a story.
    """
    density = np.asarray(density, dtype=np.float64)
    max_state = density.shape[0]
    survival = np.concatenate([[1.0], 1.0 - np.cumsum(density)])[:max_state]  # P(n >= s + 1)
    survival = np.maximum(survival, tail)
    hazard = np.empty(max_state + 1)
    hazard[:max_state] = density / np.maximum(survival, config.PROBABILITY_FLOOR)
    hazard[max_state] = 1.0 / max(tail_excess, 1.0)
    hazard = np.clip(hazard, config.PROBABILITY_FLOOR, 1.0 - config.PROBABILITY_FLOOR)
    log_restart = np.log(hazard)
    log_next = np.log1p(-hazard)
    # Stationary distribution of the renewal chain: proportional to P(reaching s).
    reach = np.concatenate([[0.0], np.cumsum(log_next[:max_state])])
    stationary = np.exp(reach - reach.max())
    stationary[max_state] /= hazard[max_state]
    stationary /= stationary.sum()
    return log_next, log_restart, np.log(np.maximum(stationary, 1e-300))


def bin_edges(values: np.ndarray, *, n_bins: int) -> np.ndarray:
    """Interior cut points for one feature: bin 0 holds values <= 0, the positive
    values are split into at most ``n_bins - 1`` bins at the quantiles of their
    *distinct* values. Counting each distinct value once keeps a value shared by
    most words (a common word's rarity, the 0.13 s caption frame gap) from
    swallowing the bins, and gives the rare, informative values bins of their own.
    Each cut lies halfway between the two distinct values around its quantile, never
    on a value seen in training: a value moved by less than half the distance to its
    neighbour (a caption gap moved by 0.01 s on the 1/30 s frame grid) keeps its bin."""
    if n_bins < 2:
        raise ParameterError(f"n_bins must be >= 2 (one zero bin and at least one more), got {n_bins}")
    positive = np.asarray(values, dtype=np.float64)
    positive = np.unique(positive[positive > 0])
    if positive.size < 2:
        return np.zeros(0)
    cuts = np.quantile(positive, np.linspace(0, 1, n_bins)[1:-1])
    above = np.clip(np.searchsorted(positive, cuts, side="right"), 1, positive.size - 1)
    return np.unique((positive[above - 1] + positive[above]) / 2)


def apply_bins(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin index of every value (0 for values <= 0), int64, same shape as ``values``."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(values > 0, 1 + np.searchsorted(edges, values, side="right"), 0).astype(np.int64)


def smooth_over_states(counts: np.ndarray, *, bandwidth: float) -> np.ndarray:
    """Kernel regression of each bin's counts as a function of state.

    States 1 .. L-1 are smoothed together on a log(state) scale. State 0 (the
    first word) and the absorbing state L keep their own counts: kernels blur
    discontinuities, and the first word is exactly where X-DURATION and the
    triggers jump (the boundary problem the paper raises in section 8).

    Parameters
    ----------
    counts : ndarray, shape (n_bins, L + 1)
        Observation counts per bin and state; the last column is the absorbing state.
    bandwidth : float
        Kernel bandwidth in units of log(state).

    Returns
    -------
    ndarray, shape (n_bins, L + 1)
        Smoothed counts.
    """
    _check_bandwidth("state bandwidth", bandwidth)
    counts = np.asarray(counts, dtype=np.float64)
    max_state = counts.shape[1] - 1
    out = counts.copy()
    if max_state > 1:
        weights = _gaussian_weights(np.log(np.arange(1, max_state, dtype=np.float64)), bandwidth)
        weights /= weights.sum(axis=1, keepdims=True)  # Nadaraya-Watson: a weighted mean of neighbours
        out[:, 1:max_state] = counts[:, 1:max_state] @ weights.T
    return out


def emission_log_probs(
    counts: np.ndarray, *, bandwidth: float, own_states: int | None = None, tie_from: int | None = None
) -> np.ndarray:
    """``log p(bin | state)`` for one feature from its (bin, state) counts.

    Follows section 4: smooth each bin's counts across states, rescale them to the
    bin's total (giving the joint p(bin, state) up to a constant), then normalise
    over bins within each state. Probabilities are floored at PROBABILITY_FLOOR.

    Parameters
    ----------
    counts : ndarray, shape (n_bins, L + 1)
    bandwidth : float
        Kernel bandwidth in units of log(state).
    own_states : int, optional
        Tie states: states ``0 .. own_states-1`` keep their own counts, all later
        states share the pooled counts of those states (no smoothing needed).
    tie_from : int, optional
        States ``tie_from ..`` share one distribution, from their pooled counts;
        the earlier states are smoothed as usual (ignored with ``own_states``).

    Returns
    -------
    ndarray, shape (n_bins, L + 1)
    """
    counts = np.asarray(counts, dtype=np.float64)
    if own_states is not None:
        if not 1 <= own_states <= counts.shape[1] - 1:
            raise ParameterError(f"own_states must lie in [1, {counts.shape[1] - 1}], got {own_states}")
        smoothed = counts.copy()
        smoothed[:, own_states:] = counts[:, own_states:].sum(axis=1, keepdims=True)
    else:
        smoothed = smooth_over_states(counts, bandwidth=bandwidth)
    bin_totals = counts.sum(axis=1, keepdims=True)
    scale = np.divide(bin_totals, smoothed.sum(axis=1, keepdims=True), out=np.zeros_like(bin_totals),
                      where=smoothed.sum(axis=1, keepdims=True) > 0)
    joint = smoothed * scale
    state_totals = joint.sum(axis=0, keepdims=True)
    n_bins = counts.shape[0]
    conditional = np.divide(joint, state_totals, out=np.full_like(joint, 1.0 / n_bins), where=state_totals > 0)
    if own_states is None and tie_from is not None and 1 <= tie_from < counts.shape[1]:
        pooled = counts[:, tie_from:].sum(axis=1)
        if pooled.sum() > 0:
            conditional[:, tie_from:] = (pooled / pooled.sum())[:, None]
    conditional = np.maximum(conditional, config.PROBABILITY_FLOOR)
    conditional /= conditional.sum(axis=0, keepdims=True)
    return np.log(conditional)
