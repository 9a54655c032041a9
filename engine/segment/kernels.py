"""Numba kernels of the story segmenter. They check nothing; see :mod:`engine.segment.hmm`.

State layout (0-based, ``L >= 1``): state ``s < L`` is the (s+1)-th word of a story, state ``L``
absorbs every later word. From state ``s`` a path goes either to state 0 (a new
story) or to ``min(s + 1, L)``. Only those two arcs exist, so one step costs
O(states), and the Viterbi back-pointers need O(words) memory: a state ``0 < s < L``
can only have come from ``s - 1``; only state 0 (argmax over all states) and state
``L`` (from ``L - 1`` or from itself) need a stored choice.

Observations are binned feature values: ``bins[t, f]`` is the bin of feature ``f``
at word ``t``; ``log_emission[f, b, s] = log p(bin b of feature f | state s)``.
Features are independent given the state (paper section 3), so the log emission
of word ``t`` in state ``s`` is ``sum_f log_emission[f, bins[t, f], s]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _coherence_kernel(ids, n_ids, buffer, offset):  # pragma: no cover - compiled
    """in_buffer[t] = ids[t] occurs among ids[t - offset - buffer : t - offset]."""
    n = ids.shape[0]
    counts = np.zeros(n_ids, dtype=np.int64)
    in_buffer = np.zeros(n, dtype=np.bool_)
    for t in range(n):
        enter = t - offset - 1  # newest word of the buffer for t
        leave = t - offset - buffer - 1  # word that just fell out of it
        if enter >= 0:
            counts[ids[enter]] += 1
        if leave >= 0:
            counts[ids[leave]] -= 1
        in_buffer[t] = counts[ids[t]] > 0
    return in_buffer


@njit(cache=True, nogil=True)
def _add_emission(bins, log_emission, own_states, t, out):  # pragma: no cover - compiled
    """out[s] = sum_f log_emission[f, bins[t, f], s].

    ``own_states[f] = k < n_states`` promises that feature f's rows are constant
    from state k on (a tied feature): it then costs k + 1 additions, not n_states.
    """
    n_features = bins.shape[1]
    n_states = out.shape[0]
    for s in range(n_states):
        out[s] = 0.0
    shared = 0.0
    for f in range(n_features):
        row = log_emission[f, bins[t, f]]
        k = own_states[f]
        if k >= n_states:
            for s in range(n_states):
                out[s] += row[s]
        else:
            shared += row[k]
            for s in range(k):
                out[s] += row[s] - row[k]
    if shared != 0.0:
        for s in range(n_states):
            out[s] += shared


@njit(cache=True, nogil=True)
def _best_restart(prev, log_restart):  # pragma: no cover - compiled
    """max_s prev[s] + log_restart[s] and its first argmax, with four independent lanes."""
    n_states = prev.shape[0]
    b0 = b1 = b2 = b3 = -np.inf
    a0 = a1 = a2 = a3 = -1
    s = 0
    while s + 3 < n_states:
        v0 = prev[s] + log_restart[s]
        v1 = prev[s + 1] + log_restart[s + 1]
        v2 = prev[s + 2] + log_restart[s + 2]
        v3 = prev[s + 3] + log_restart[s + 3]
        if v0 > b0:
            b0, a0 = v0, s
        if v1 > b1:
            b1, a1 = v1, s + 1
        if v2 > b2:
            b2, a2 = v2, s + 2
        if v3 > b3:
            b3, a3 = v3, s + 3
        s += 4
    while s < n_states:
        v0 = prev[s] + log_restart[s]
        if v0 > b0:
            b0, a0 = v0, s
        s += 1
    best, arg = b0, a0
    for b, a in ((b1, a1), (b2, a2), (b3, a3)):
        if a >= 0 and (b > best or (b == best and (a < arg or arg < 0))):
            best, arg = b, a
    if arg < 0:  # every score is -inf
        arg = 0
    return best, arg


@njit(cache=True, nogil=True)
def _viterbi_kernel(bins, log_emission, own_states, log_next, log_restart, log_init, log_penalty):  # pragma: no cover
    """Most likely state path; returns (path of shape (n,), its log probability)."""
    n = bins.shape[0]
    n_states = log_init.shape[0]
    last = n_states - 1
    emission = np.empty(n_states)
    prev = np.empty(n_states)
    cur = np.empty(n_states)
    back_zero = np.zeros(n, dtype=np.int64)
    back_stay = np.zeros(n, dtype=np.bool_)  # state L at t came from L (True) or L-1
    _add_emission(bins, log_emission, own_states, 0, emission)
    for s in range(n_states):
        prev[s] = log_init[s] + emission[s]
    prev[0] += log_penalty
    for t in range(1, n):
        best, arg = _best_restart(prev, log_restart)
        back_zero[t] = arg
        _add_emission(bins, log_emission, own_states, t, emission)
        cur[0] = best + log_penalty + emission[0]
        for s in range(1, last):
            cur[s] = prev[s - 1] + log_next[s - 1] + emission[s]
        from_before = prev[last - 1] + log_next[last - 1]
        from_self = prev[last] + log_next[last]
        if from_self > from_before:
            back_stay[t] = True
            cur[last] = from_self + emission[last]
        else:
            cur[last] = from_before + emission[last]
        prev, cur = cur, prev
    state = 0
    for s in range(1, n_states):
        if prev[s] > prev[state]:
            state = s
    score = prev[state]
    path = np.empty(n, dtype=np.int64)
    for t in range(n - 1, 0, -1):
        path[t] = state
        if state == 0:
            state = back_zero[t]
        elif state == last:
            state = last if back_stay[t] else last - 1
        else:
            state -= 1
    path[0] = state
    return path, score


@njit(cache=True, nogil=True)
def _emission_probs(bins, emission, t, out):  # pragma: no cover - compiled
    n_features = bins.shape[1]
    n_states = out.shape[0]
    for s in range(n_states):
        out[s] = 1.0
    for f in range(n_features):
        row = emission[f, bins[t, f]]
        for s in range(n_states):
            out[s] *= row[s]


@njit(cache=True, nogil=True)
def _forward_step(prev, e, next_p, restart_p, penalty, cur):  # pragma: no cover - compiled
    """One scaled forward step; returns the scale factor."""
    n_states = prev.shape[0]
    last = n_states - 1
    into_zero = 0.0
    for s in range(n_states):
        into_zero += prev[s] * restart_p[s]
    cur[0] = into_zero * penalty
    for s in range(1, last):
        cur[s] = prev[s - 1] * next_p[s - 1]
    cur[last] = prev[last - 1] * next_p[last - 1] + prev[last] * next_p[last]
    total = 0.0
    for s in range(n_states):
        cur[s] *= e[s]
        total += cur[s]
    for s in range(n_states):
        cur[s] /= total
    return total


@njit(cache=True, nogil=True)
def _forward_backward_kernel(bins, emission, next_p, restart_p, init_p, penalty, checkpoint):  # pragma: no cover
    """Posterior probability that each word is in state 0, and the log likelihood.

    ``emission`` holds probabilities (not logs), shape (features, bins, states).
    Forward variables are kept every ``checkpoint`` words and recomputed block by
    block during the backward pass.
    """
    n = bins.shape[0]
    n_states = init_p.shape[0]
    last = n_states - 1
    n_blocks = (n + checkpoint - 1) // checkpoint
    saved = np.empty((n_blocks, n_states))
    e = np.empty(n_states)
    alpha = np.empty(n_states)
    nxt = np.empty(n_states)
    _emission_probs(bins, emission, 0, e)
    total = 0.0
    for s in range(n_states):
        alpha[s] = init_p[s] * e[s]
    alpha[0] *= penalty
    for s in range(n_states):
        total += alpha[s]
    for s in range(n_states):
        alpha[s] /= total
    log_likelihood = np.log(total)
    saved[0] = alpha
    for t in range(1, n):
        _emission_probs(bins, emission, t, e)
        scale = _forward_step(alpha, e, next_p, restart_p, penalty, nxt)
        log_likelihood += np.log(scale)
        alpha, nxt = nxt, alpha
        if t % checkpoint == 0:
            saved[t // checkpoint] = alpha
    posterior = np.empty(n)
    block = np.empty((checkpoint, n_states))
    beta = np.ones(n_states)
    beta_prev = np.empty(n_states)
    for k in range(n_blocks - 1, -1, -1):
        t0 = k * checkpoint
        t1 = min(n, t0 + checkpoint)
        block[0] = saved[k]
        for t in range(t0 + 1, t1):
            _emission_probs(bins, emission, t, e)
            _forward_step(block[t - 1 - t0], e, next_p, restart_p, penalty, block[t - t0])
        for t in range(t1 - 1, t0 - 1, -1):
            a = block[t - t0]
            norm = 0.0
            for s in range(n_states):
                norm += a[s] * beta[s]
            posterior[t] = a[0] * beta[0] / norm
            if t == 0:
                break
            # beta_{t-1}[s] = sum over successors s' of A[s, s'] e_t[s'] beta_t[s']
            _emission_probs(bins, emission, t, e)
            into_zero = penalty * e[0] * beta[0]
            for s in range(last):
                beta_prev[s] = restart_p[s] * into_zero + next_p[s] * e[s + 1] * beta[s + 1]
            beta_prev[last] = restart_p[last] * into_zero + next_p[last] * e[last] * beta[last]
            total = 0.0
            for s in range(n_states):
                total += beta_prev[s]
            for s in range(n_states):
                beta[s] = beta_prev[s] / total
    return posterior, log_likelihood


@njit(cache=True, nogil=True)
def _count_kernel(bins, states, n_bins, n_states):  # pragma: no cover - compiled
    """counts[f, b, s] = number of words whose feature f fell in bin b while in state s."""
    n, n_features = bins.shape
    counts = np.zeros((n_features, n_bins, n_states), dtype=np.float64)
    for t in range(n):
        s = states[t]
        for f in range(n_features):
            counts[f, bins[t, f], s] += 1.0
    return counts
