"""Numba kernels against their slow twins, one exact hand-computed case, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.segment.hmm import coherence_in_buffer, count_bins_by_state, forward_backward, viterbi

from . import naive


def random_hmm(rng, *, max_state, n_words, n_features=2, n_bins=3):
    n_states = max_state + 1
    log_emission = np.log(rng.dirichlet(np.ones(n_bins), size=(n_features, n_states)).transpose(0, 2, 1).copy())
    hazard = rng.uniform(0.05, 0.9, n_states)
    log_init = np.log(rng.dirichlet(np.ones(n_states)))
    bins = rng.integers(0, n_bins, (n_words, n_features))
    return bins, log_emission, np.log1p(-hazard), np.log(hazard), log_init


@pytest.mark.parametrize("trial", range(25))
def test_viterbi_matches_dense_textbook_viterbi(rng, trial):
    bins, log_em, log_next, log_restart, log_init = random_hmm(
        rng, max_state=int(rng.integers(1, 12)), n_words=int(rng.integers(1, 80))
    )
    penalty = float(rng.normal(0, 2))
    path, score = viterbi(bins, log_em, log_next, log_restart, log_init, log_penalty=penalty)
    init = log_init.copy()
    init[0] += penalty
    dense_a = naive.dense_transitions(log_next, log_restart, penalty)
    expected_path, expected_score = naive.viterbi_dense(naive.dense_log_obs(bins, log_em), dense_a, init)
    np.testing.assert_array_equal(path, expected_path)
    assert score == pytest.approx(expected_score, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("trial", range(10))
def test_viterbi_matches_brute_force(rng, trial):
    bins, log_em, log_next, log_restart, log_init = random_hmm(rng, max_state=2, n_words=6)
    path, score = viterbi(bins, log_em, log_next, log_restart, log_init, log_penalty=0.0)
    obs = naive.dense_log_obs(bins, log_em)
    best_path, best_score = naive.brute_force_best_path(obs, naive.dense_transitions(log_next, log_restart), log_init)
    np.testing.assert_array_equal(path, best_path)
    assert score == pytest.approx(best_score, abs=1e-9)


@pytest.mark.parametrize("checkpoint", [1, 3, 7, 1024])
@pytest.mark.parametrize("trial", range(8))
def test_forward_backward_matches_dense_log_space(rng, trial, checkpoint):
    bins, log_em, log_next, log_restart, log_init = random_hmm(
        rng, max_state=int(rng.integers(1, 10)), n_words=int(rng.integers(1, 60))
    )
    penalty = float(rng.normal(0, 1))
    posterior, loglik = forward_backward(
        bins, log_em, log_next, log_restart, log_init, log_penalty=penalty, checkpoint=checkpoint
    )
    init = log_init.copy()
    init[0] += penalty
    gamma, expected_loglik = naive.forward_backward_dense(
        naive.dense_log_obs(bins, log_em), naive.dense_transitions(log_next, log_restart, penalty), init
    )
    np.testing.assert_allclose(posterior, gamma[:, 0], rtol=1e-9, atol=1e-12)
    assert loglik == pytest.approx(expected_loglik, rel=1e-10)


def hand_example():
    """L = 2 (states 0, 1, 2), one feature with two bins, four words observed as bins 1, 0, 0, 1."""
    log_next = np.log([0.5, 0.5, 0.75])
    log_restart = np.log([0.5, 0.5, 0.25])
    with np.errstate(divide="ignore"):
        log_init = np.log([1.0, 0.0, 0.0])
    # p(bin 1 | state) = 0.8, 0.2, 0.1
    log_emission = np.log([[[0.2, 0.8, 0.9], [0.8, 0.2, 0.1]]])
    bins = np.array([[1], [0], [0], [1]])
    return bins, log_emission, log_next, log_restart, log_init


def test_viterbi_hand_computed_example():
    # Best path 0 -> 1 -> 2 -> 0: 0.8 * (0.5 * 0.8) * (0.5 * 0.9) * (0.25 * 0.8) = 0.0288, worked out in
    # docs/segmentation.md; the runner-up 0 -> 1 -> 2 -> 2 has 0.8 * 0.4 * 0.45 * (0.75 * 0.1) = 0.0108.
    path, score = viterbi(*hand_example(), log_penalty=0.0)
    np.testing.assert_array_equal(path, [0, 1, 2, 0])
    assert np.exp(score) == pytest.approx(0.0288, rel=1e-12)


def test_boundary_penalty_hand_computed_example():
    # A penalty of 0.1 per entry into state 0 (the first word included): 0.0288 * 0.01 = 0.000288
    # loses to 0 -> 1 -> 2 -> 2 with 0.0108 * 0.1 = 0.00108.
    path, score = viterbi(*hand_example(), log_penalty=np.log(0.1))
    np.testing.assert_array_equal(path, [0, 1, 2, 2])
    assert np.exp(score) == pytest.approx(0.00108, rel=1e-12)


def test_forward_backward_hand_example_sums_every_path():
    bins, log_em, log_next, log_restart, log_init = hand_example()
    obs = naive.dense_log_obs(bins, log_em)
    log_a = naive.dense_transitions(log_next, log_restart)
    import itertools

    total = 0.0
    starts_at = np.zeros(4)
    for path in itertools.product(range(3), repeat=4):
        p = np.exp(naive.path_log_prob(path, obs, log_a, log_init))
        total += p
        starts_at += p * (np.asarray(path) == 0)
    posterior, loglik = forward_backward(bins, log_em, log_next, log_restart, log_init, checkpoint=2)
    assert np.exp(loglik) == pytest.approx(total, rel=1e-12)
    np.testing.assert_allclose(posterior, starts_at / total, rtol=1e-12)


@pytest.mark.parametrize("offset", [0, 1, 5, 50])
@pytest.mark.parametrize("buffer", [1, 3, 50])
def test_coherence_buffer_matches_naive(rng, buffer, offset):
    ids = rng.integers(0, 30, 400)
    np.testing.assert_array_equal(
        coherence_in_buffer(ids, buffer=buffer, offset=offset), naive.coherence_in_buffer(ids, buffer, offset)
    )


def test_count_kernel_matches_naive(rng):
    bins = rng.integers(0, 5, (300, 3))
    states = rng.integers(0, 7, 300)
    np.testing.assert_array_equal(
        count_bins_by_state(bins, states, n_bins=5, n_states=7), naive.count_bins_by_state(bins, states, 5, 7)
    )


def _valid():
    return hand_example()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: (a[0][:, :0], *a[1:]), r"bins must have shape \(words, 1\), got \(4, 0\)"),
        (lambda a: (a[0] + 5, *a[1:]), r"bins must lie in \[0, 2\), got range \[5, 6\]"),
        (lambda a: (a[0][:0], *a[1:]), "bins is empty"),
        (lambda a: (a[0].astype(float), *a[1:]), "bins must hold integers, got dtype float64"),
        (lambda a: (a[0], a[1][:, :, :2], *a[2:]), r"log_emission must have shape \(features, bins, 3\)"),
        (lambda a: (a[0], -a[1], *a[2:]), "log_emission must hold log probabilities <= 0"),
        (lambda a: (*a[:2], np.log([0.5, 0.6, 0.75]), *a[3:]), "state 1 sums to 1.1"),
        (lambda a: (*a[:2], a[2][:2], *a[3:]), "got 2, 3, 3"),
        (lambda a: (*a[:3], np.array([0.1, -1, -1]), a[4]), "log_restart must hold log probabilities <= 0; state 0"),
        (lambda a: (*a[:4], np.log([0.5, 0.2, 0.2])), r"exp\(log_init\) must sum to 1, got 0.9"),
    ],
    ids=["no-features", "bin-out-of-range", "no-words", "float-bins", "wrong-state-count",
         "positive-log-emission", "rows-not-stochastic", "short-log-next", "positive-log-restart", "bad-init"],
)
def test_bad_inputs_raise_parameter_error(change, message):
    with pytest.raises(ParameterError, match=message):
        viterbi(*change(_valid()))
    with pytest.raises(ParameterError, match=message):
        forward_backward(*change(_valid()))


def test_bad_penalty_and_checkpoint():
    with pytest.raises(ParameterError, match="log_penalty must be finite, got inf"):
        viterbi(*_valid(), log_penalty=np.inf)
    with pytest.raises(ParameterError, match="checkpoint must be a positive number of words, got 0"):
        forward_backward(*_valid(), checkpoint=0)
    with pytest.raises(ParameterError, match="buffer must be >= 1 and offset >= 0 words, got buffer=0, offset=0"):
        coherence_in_buffer(np.arange(3), buffer=0, offset=0)
