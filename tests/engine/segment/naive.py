"""Slow, obvious twins of the segmenter's kernels, for comparison on random inputs."""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import logsumexp


def dense_transitions(log_next: np.ndarray, log_restart: np.ndarray, log_penalty: float = 0.0) -> np.ndarray:
    """Full (S, S) log transition matrix of the story-position topology, penalty on entering state 0."""
    n_states = log_next.shape[0]
    last = n_states - 1
    log_a = np.full((n_states, n_states), -np.inf)
    for s in range(n_states):
        log_a[s, 0] = log_restart[s] + log_penalty
        log_a[s, min(s + 1, last)] = np.logaddexp(log_a[s, min(s + 1, last)], log_next[s])
    return log_a


def dense_log_obs(bins: np.ndarray, log_emission: np.ndarray) -> np.ndarray:
    """log_obs[t, s] = sum_f log_emission[f, bins[t, f], s], shape (n, S)."""
    n, n_features = bins.shape
    out = np.zeros((n, log_emission.shape[2]))
    for t in range(n):
        for f in range(n_features):
            out[t] += log_emission[f, bins[t, f]]
    return out


def viterbi_dense(log_obs: np.ndarray, log_a: np.ndarray, log_init: np.ndarray) -> tuple[np.ndarray, float]:
    """Textbook Viterbi over a dense transition matrix, O(n S^2)."""
    n, n_states = log_obs.shape
    delta = log_init + log_obs[0]
    back = np.zeros((n, n_states), dtype=np.int64)
    for t in range(1, n):
        scores = delta[:, None] + log_a  # scores[i, j]: from i to j
        back[t] = np.argmax(scores, axis=0)
        delta = scores[back[t], np.arange(n_states)] + log_obs[t]
    path = np.zeros(n, dtype=np.int64)
    path[-1] = int(np.argmax(delta))
    for t in range(n - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, float(delta.max())


def path_log_prob(path, log_obs, log_a, log_init) -> float:
    total = log_init[path[0]] + log_obs[0, path[0]]
    for t in range(1, len(path)):
        total += log_a[path[t - 1], path[t]] + log_obs[t, path[t]]
    return float(total)


def brute_force_best_path(log_obs, log_a, log_init) -> tuple[np.ndarray, float]:
    """Enumerate every state sequence (tiny inputs only)."""
    n, n_states = log_obs.shape
    best, best_path = -np.inf, None
    for path in itertools.product(range(n_states), repeat=n):
        score = path_log_prob(path, log_obs, log_a, log_init)
        if score > best:
            best, best_path = score, path
    return np.asarray(best_path), float(best)


def forward_backward_dense(log_obs, log_a, log_init) -> tuple[np.ndarray, float]:
    """Full state posteriors (n, S) and log likelihood, in log space."""
    n, n_states = log_obs.shape
    alpha = np.zeros((n, n_states))
    beta = np.zeros((n, n_states))
    alpha[0] = log_init + log_obs[0]
    for t in range(1, n):
        alpha[t] = logsumexp(alpha[t - 1][:, None] + log_a, axis=0) + log_obs[t]
    for t in range(n - 2, -1, -1):
        beta[t] = logsumexp(log_a + (log_obs[t + 1] + beta[t + 1])[None, :], axis=1)
    log_likelihood = logsumexp(alpha[-1])
    return np.exp(alpha + beta - log_likelihood), float(log_likelihood)


def coherence_in_buffer(ids, buffer: int, offset: int) -> np.ndarray:
    out = np.zeros(len(ids), dtype=bool)
    for t in range(len(ids)):
        lo, hi = max(0, t - offset - buffer), max(0, t - offset)
        out[t] = ids[t] in set(ids[lo:hi].tolist())
    return out


def count_bins_by_state(bins, states, n_bins, n_states) -> np.ndarray:
    counts = np.zeros((bins.shape[1], n_bins, n_states))
    for t in range(bins.shape[0]):
        for f in range(bins.shape[1]):
            counts[f, bins[t, f], states[t]] += 1
    return counts


def smooth_counts_over_states(counts, bandwidth, cutoff):
    """Nadaraya-Watson per bin on log(state + 1), absorbing state untouched (loops)."""
    n_bins, n_states = counts.shape
    last = n_states - 1
    out = counts.astype(float).copy()
    for b in range(n_bins):
        for s in range(last):
            num = den = 0.0
            for r in range(last):
                z = (np.log1p(s) - np.log1p(r)) / bandwidth
                w = np.exp(-0.5 * z * z) if abs(z) <= cutoff else 0.0
                num += w * counts[b, r]
                den += w
            out[b, s] = num / den
    return out
