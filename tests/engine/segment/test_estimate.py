"""Non-parametric estimation: smoothing against loops, exact small cases, normalisation."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.segment import config, estimate

from . import naive


def test_state_smoothing_matches_loops(rng):
    counts = rng.integers(0, 20, (4, 31)).astype(float)
    expected = counts.copy()
    expected[:, 1:30] = naive.smooth_counts_over_states(counts[:, 1:], 0.3, config.KERNEL_CUTOFF)[:, :29]
    # naive smooths states 1..29 on log1p(state - 1) = log(state) of the shifted grid
    got = estimate.smooth_over_states(counts, bandwidth=0.3)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_array_equal(got[:, 0], counts[:, 0])
    np.testing.assert_array_equal(got[:, -1], counts[:, -1])


def test_emission_is_a_distribution_over_bins_in_every_state(rng):
    counts = rng.integers(0, 50, (6, 21)).astype(float)
    log_p = estimate.emission_log_probs(counts, bandwidth=0.2)
    np.testing.assert_allclose(np.exp(log_p).sum(axis=0), 1.0, rtol=1e-12)
    assert np.exp(log_p).min() >= config.PROBABILITY_FLOOR * 0.99


def test_emission_without_smoothing_is_the_empirical_conditional():
    # A tiny bandwidth makes the kernel a delta: p(bin | state) = counts / state total.
    counts = np.array([[3.0, 1.0, 2.0, 5.0], [1.0, 3.0, 2.0, 5.0]])
    log_p = estimate.emission_log_probs(counts, bandwidth=1e-6)
    np.testing.assert_allclose(np.exp(log_p), [[0.75, 0.25, 0.5, 0.5], [0.25, 0.75, 0.5, 0.5]], rtol=1e-6)


def test_length_density_keeps_mass_and_tail():
    lengths = np.array([1, 2, 2, 3, 10, 10, 12, 500, 700])
    out = estimate.smooth_length_histogram(lengths, max_state=20, bandwidth=0.2)
    assert out["raw"].sum() == 7
    assert out["density"].sum() == pytest.approx(7 / 9)
    assert float(out["tail"]) == pytest.approx(2 / 9)
    assert float(out["tail_excess"]) == pytest.approx((480 + 680) / 2)


def test_transitions_reproduce_the_length_distribution_exactly():
    # Lengths 1, 2 and 3 with probabilities 0.5, 0.25 and 0.125; 0.125 longer than L = 3, 4 words beyond on average.
    density = np.array([0.5, 0.25, 0.125])
    log_next, log_restart, log_init = estimate.transition_log_probs(density, 0.125, 4.0)
    np.testing.assert_allclose(np.exp(log_restart), [0.5, 0.5, 0.5, 0.25], rtol=1e-12)
    np.testing.assert_allclose(np.exp(log_next) + np.exp(log_restart), 1.0)
    # Stationary: proportional to reaching each state (1, 0.5, 0.25) and 0.125 / 0.25 in the absorbing state.
    np.testing.assert_allclose(np.exp(log_init), np.array([1, 0.5, 0.25, 0.5]) / 2.25, rtol=1e-12)


def test_bins_put_zero_alone_and_split_distinct_values():
    values = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 3.0, 4.0])
    edges = estimate.bin_edges(values, n_bins=3)
    np.testing.assert_allclose(edges, [2.5])
    np.testing.assert_array_equal(estimate.apply_bins(values, edges), [0, 0, 1, 1, 1, 1, 2, 2])


def test_bin_edges_lie_halfway_between_training_values():
    """A cut never sits on a value seen in training (the median of 1, 2, 3 is 2: the cut goes to 2.5),
    so a value moved by less than half the distance to its neighbour keeps its bin."""
    values = np.array([0.0, 1.0, 2.0, 2.0, 3.0])
    edges = estimate.bin_edges(values, n_bins=3)
    np.testing.assert_allclose(edges, [2.5])
    positive = values[1:]
    np.testing.assert_array_equal(estimate.apply_bins(positive + 0.4, edges), estimate.apply_bins(positive, edges))
    assert estimate.bin_edges(np.array([0.0, 2.0, 2.0]), n_bins=4).size == 0  # one distinct value: one bin


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: estimate.bin_edges(np.ones(3), n_bins=1), "n_bins must be >= 2"),
        (lambda: estimate.smooth_length_histogram(np.array([0, 3]), max_state=5, bandwidth=0.1),
         "all of length >= 1 word"),
        (lambda: estimate.smooth_length_histogram(np.array([3]), max_state=5, bandwidth=0.0),
         "length bandwidth must be a positive number"),
        (lambda: estimate.smooth_over_states(np.ones((2, 5)), bandwidth=-1.0), "state bandwidth must be a positive"),
    ],
    ids=["one-bin", "zero-length-story", "zero-length-bandwidth", "negative-state-bandwidth"],
)
def test_bad_estimation_inputs(call, message):
    with pytest.raises(ParameterError, match=message):
        call()


def test_deep_states_share_one_coherence_distribution(rng):
    counts = rng.integers(0, 50, size=(5, 30)).astype(float)
    tied = np.exp(estimate.emission_log_probs(counts, bandwidth=0.2, tie_from=12))
    free = np.exp(estimate.emission_log_probs(counts, bandwidth=0.2))
    pooled = counts[:, 12:].sum(axis=1) / counts[:, 12:].sum()
    np.testing.assert_allclose(tied[:, 12:], np.repeat(pooled[:, None], 18, axis=1), atol=1e-9)
    np.testing.assert_allclose(tied[:, :12], free[:, :12])  # earlier states untouched


def test_coherence_features_tie_where_their_buffer_leaves_the_previous_story():
    from engine.segment.features import DEFAULT_FEATURES

    assert [f.tie_from for f in DEFAULT_FEATURES if f.name.startswith("coher")] == [50, 100, 150]
