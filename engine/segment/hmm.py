"""Validating wrappers around the segmenter's numba kernels.

The public functions check shapes, ranges and units, raise
:class:`engine.errors.ParameterError` naming the offending values, and hand
contiguous arrays to the kernels in :mod:`engine.segment.kernels`.
"""

from __future__ import annotations

import numpy as np

from engine.errors import ParameterError
from engine.segment import config
from engine.segment.kernels import (
    _coherence_kernel,
    _count_kernel,
    _forward_backward_kernel,
    _viterbi_kernel,
)


def _check_bins(bins: np.ndarray, n_bins: int, n_features: int) -> np.ndarray:
    bins = np.asarray(bins)
    if bins.ndim != 2 or bins.shape[1] != n_features:
        raise ParameterError(f"bins must have shape (words, {n_features}), got {bins.shape}")
    if bins.shape[0] == 0:
        raise ParameterError("bins is empty: there must be at least one word")
    if not np.issubdtype(bins.dtype, np.integer):
        raise ParameterError(f"bins must hold integers, got dtype {bins.dtype}")
    if bins.min() < 0 or bins.max() >= n_bins:
        raise ParameterError(f"bins must lie in [0, {n_bins}), got range [{bins.min()}, {bins.max()}]")
    # Small bin indices travel as bytes: the decoder reads (words x features) of them.
    return np.ascontiguousarray(bins, dtype=np.uint8 if n_bins <= 256 else np.int64)


def _check_transitions(
    log_next: np.ndarray, log_restart: np.ndarray, log_init: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    arrays = []
    for name, arr in (("log_next", log_next), ("log_restart", log_restart), ("log_init", log_init)):
        arr = np.ascontiguousarray(arr, dtype=np.float64)
        if arr.ndim != 1:
            raise ParameterError(f"{name} must be one-dimensional, got shape {arr.shape}")
        if np.isnan(arr).any() or (arr > 0).any():
            bad = np.flatnonzero(np.isnan(arr) | (arr > 0))
            raise ParameterError(f"{name} must hold log probabilities <= 0; state {bad[0]} has {arr[bad[0]]}")
        arrays.append(arr)
    log_next, log_restart, log_init = arrays
    n_states = log_init.shape[0]
    if n_states < 2 or log_next.shape[0] != n_states or log_restart.shape[0] != n_states:
        raise ParameterError(
            "log_next, log_restart and log_init must all have one entry per state (at least 2 states), "
            f"got {log_next.shape[0]}, {log_restart.shape[0]}, {log_init.shape[0]}"
        )
    row_sums = np.exp(log_next) + np.exp(log_restart)
    bad = np.flatnonzero(np.abs(row_sums - 1.0) > config.STOCHASTIC_TOLERANCE)
    if bad.size:
        raise ParameterError(
            f"exp(log_next) + exp(log_restart) must be 1 for every state; state {bad[0]} sums to {row_sums[bad[0]]:.6g}"
        )
    init_sum = float(np.exp(log_init).sum())
    if abs(init_sum - 1.0) > config.STOCHASTIC_TOLERANCE:
        raise ParameterError(f"exp(log_init) must sum to 1, got {init_sum:.6g}")
    return log_next, log_restart, log_init


def _check_emission(log_emission: np.ndarray, n_states: int) -> np.ndarray:
    log_emission = np.ascontiguousarray(log_emission, dtype=np.float64)
    if log_emission.ndim != 3 or log_emission.shape[2] != n_states:
        raise ParameterError(
            f"log_emission must have shape (features, bins, {n_states}), got {log_emission.shape}"
        )
    if np.isnan(log_emission).any() or (log_emission > 0).any():
        raise ParameterError("log_emission must hold log probabilities <= 0 (found NaN or a positive value)")
    return log_emission


def tied_from(log_emission: np.ndarray) -> np.ndarray:
    """For each feature, the first state from which its table is constant across states.

    Equals ``n_states`` when the last two states differ (nothing tied). Decoding
    uses it to add a tied feature's value once per word instead of once per state.
    """
    n_features, _, n_states = log_emission.shape
    out = np.full(n_features, n_states, dtype=np.int64)
    for f in range(n_features):
        differs = np.any(log_emission[f, :, 1:] != log_emission[f, :, :-1], axis=0)  # state j vs j + 1
        last_change = np.flatnonzero(differs)
        k = 0 if last_change.size == 0 else int(last_change[-1]) + 1
        if k < n_states - 1:
            out[f] = k
    return out


def viterbi(
    bins: np.ndarray,
    log_emission: np.ndarray,
    log_next: np.ndarray,
    log_restart: np.ndarray,
    log_init: np.ndarray,
    *,
    log_penalty: float = config.DEFAULT_LOG_PENALTY,
) -> tuple[np.ndarray, float]:
    """Most likely state path of the story-position HMM, in log space.

    Parameters
    ----------
    bins : ndarray of int, shape (n_words, n_features)
        Bin of every feature at every word.
    log_emission : ndarray, shape (n_features, n_bins, n_states)
        ``log p(bin | state)`` per feature.
    log_next : ndarray, shape (n_states,)
        ``log p(s -> min(s + 1, L))``; for the absorbing state ``L`` it is the log
        probability of staying.
    log_restart : ndarray, shape (n_states,)
        ``log p(s -> 0)``: the story ends after this word.
    log_init : ndarray, shape (n_states,)
        Log probability of the state of the first word.
    log_penalty : float
        Added to a path's log probability every time it enters state 0 (the
        paper's boundary-state penalty, section 5). Positive: more boundaries.

    Returns
    -------
    path : ndarray of int64, shape (n_words,)
    log_probability : float
        Log probability of the path including the penalties.
    """
    log_next, log_restart, log_init = _check_transitions(log_next, log_restart, log_init)
    log_emission = _check_emission(log_emission, log_init.shape[0])
    bins = _check_bins(bins, log_emission.shape[1], log_emission.shape[0])
    if not np.isfinite(log_penalty):
        raise ParameterError(f"log_penalty must be finite, got {log_penalty}")
    path, score = _viterbi_kernel(
        bins, log_emission, tied_from(log_emission), log_next, log_restart, log_init, float(log_penalty)
    )
    return path, float(score)


def forward_backward(
    bins: np.ndarray,
    log_emission: np.ndarray,
    log_next: np.ndarray,
    log_restart: np.ndarray,
    log_init: np.ndarray,
    *,
    log_penalty: float = config.DEFAULT_LOG_PENALTY,
    checkpoint: int = config.FORWARD_BACKWARD_CHECKPOINT,
) -> tuple[np.ndarray, float]:
    """Posterior probability that each word starts a story (is in state 0).

    Same parameters as :func:`viterbi`; the penalty weighs every entry into state
    0, so the posteriors belong to the same (penalised) model the decoder uses.
    Memory is O(n_words / checkpoint * n_states + checkpoint * n_states).

    Returns
    -------
    boundary_posterior : ndarray of float64, shape (n_words,)
    log_likelihood : float
        Log of the (penalised) probability of the observations.
    """
    log_next, log_restart, log_init = _check_transitions(log_next, log_restart, log_init)
    log_emission = _check_emission(log_emission, log_init.shape[0])
    bins = _check_bins(bins, log_emission.shape[1], log_emission.shape[0])
    if not np.isfinite(log_penalty):
        raise ParameterError(f"log_penalty must be finite, got {log_penalty}")
    if checkpoint < 1:
        raise ParameterError(f"checkpoint must be a positive number of words, got {checkpoint}")
    posterior, log_likelihood = _forward_backward_kernel(
        bins,
        np.exp(log_emission),
        np.exp(log_next),
        np.exp(log_restart),
        np.exp(log_init),
        float(np.exp(log_penalty)),
        int(checkpoint),
    )
    return posterior, float(log_likelihood)


def coherence_in_buffer(ids: np.ndarray, *, buffer: int, offset: int) -> np.ndarray:
    """Whether word ``t`` also occurs among words ``t - offset - buffer .. t - offset - 1``.

    Parameters
    ----------
    ids : ndarray of int, shape (n_words,)
        Word identities, non-negative.
    buffer, offset : int
        Buffer size and its distance behind the current word, in words.

    Returns
    -------
    ndarray of bool, shape (n_words,)
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    if ids.ndim != 1:
        raise ParameterError(f"ids must be one-dimensional, got shape {ids.shape}")
    if buffer < 1 or offset < 0:
        raise ParameterError(f"buffer must be >= 1 and offset >= 0 words, got buffer={buffer}, offset={offset}")
    if ids.size == 0:
        return np.zeros(0, dtype=bool)
    if ids.min() < 0:
        raise ParameterError(f"ids must be non-negative, got {ids.min()}")
    return _coherence_kernel(ids, int(ids.max()) + 1, int(buffer), int(offset))


def count_bins_by_state(bins: np.ndarray, states: np.ndarray, *, n_bins: int, n_states: int) -> np.ndarray:
    """counts[f, b, s]: words with feature ``f`` in bin ``b`` while in state ``s``.

    ``bins`` has shape (n_words, n_features), ``states`` shape (n_words,).
    """
    bins = np.asarray(bins)
    states = np.ascontiguousarray(states, dtype=np.int64)
    if bins.ndim != 2 or states.shape != (bins.shape[0],):
        raise ParameterError(f"bins (words, features) and states (words,) disagree: {bins.shape} vs {states.shape}")
    if states.size and (states.min() < 0 or states.max() >= n_states):
        raise ParameterError(f"states must lie in [0, {n_states}), got range [{states.min()}, {states.max()}]")
    if bins.shape[0] == 0:
        return np.zeros((bins.shape[1], n_bins, n_states))
    bins = _check_bins(bins, n_bins, bins.shape[1])
    return _count_kernel(bins, states, int(n_bins), int(n_states))
