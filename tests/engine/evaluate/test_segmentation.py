"""Segmentation measures against loops, nltk, and a hand-counted case."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.segmentation import (
    evenly_spaced_starts,
    half_mean_story_length,
    pk,
    probe_counts,
    score_documents,
    windowdiff,
)

from . import naive


def random_starts(rng, n, p):
    return np.concatenate([[0], np.flatnonzero(rng.random(n - 1) < p) + 1])


@pytest.mark.parametrize("trial", range(10))
def test_probe_counts_match_loops(rng, trial):
    n = int(rng.integers(60, 400))
    ref, hyp = random_starts(rng, n, 0.02), random_starts(rng, n, 0.03)
    k = int(rng.integers(1, 50))
    c = probe_counts(ref, hyp, n, k=k)
    assert (c.probes, c.reference_different, c.misses, c.false_alarms) == naive.probe_errors(ref, hyp, n, k)


def test_hand_counted_tdt_case():
    # 10 words, reference stories start at 0 and 5, hypothesis at 0 and 7, probe distance 3.
    # Probes (t, t+3), t = 0..6: reference says "different" for t = 2, 3, 4; hypothesis for t = 4, 5, 6.
    c = probe_counts(np.array([0, 5]), np.array([0, 7]), 10, k=3)
    assert (c.probes, c.reference_different, c.misses, c.false_alarms) == (7, 3, 2, 2)
    assert c.p_miss == pytest.approx(2 / 3)
    assert c.p_false_alarm == pytest.approx(2 / 4)
    assert c.tdt_cost() == pytest.approx((0.3 * 2 / 3 + 0.7 * 0.5) / 0.3)


def _boundary_string(starts, n):
    s = ["0"] * (n - 1)
    for j in starts:
        if j > 0:
            s[j - 1] = "1"
    return "".join(s)


@pytest.mark.parametrize("trial", range(10))
def test_pk_and_windowdiff_equal_nltk(rng, trial):
    segmentation = pytest.importorskip("nltk.metrics.segmentation")
    n = int(rng.integers(50, 300))
    ref, hyp = random_starts(rng, n, 0.05), random_starts(rng, n, 0.04)
    k = int(rng.integers(2, 20))
    r, h = _boundary_string(ref, n), _boundary_string(hyp, n)
    assert pk(ref, hyp, n, k=k) == pytest.approx(segmentation.pk(r, h, k=k), abs=1e-12)
    assert windowdiff(ref, hyp, n, k=k) == pytest.approx(segmentation.windowdiff(r, h, k), abs=1e-12)


def test_perfect_and_trivial_segmentations():
    ref = np.array([0, 100, 250, 300])
    perfect = score_documents([ref], [ref], [400])
    assert (perfect.p_miss, perfect.p_false_alarm, perfect.tdt_cost, perfect.pk, perfect.windowdiff) == (0, 0, 0, 0, 0)
    nothing = score_documents([ref], [np.array([0])], [400])
    assert nothing.p_miss == 1.0 and nothing.p_false_alarm == 0.0 and nothing.tdt_cost == pytest.approx(1.0)
    assert half_mean_story_length(ref, 400) == 50
    np.testing.assert_array_equal(evenly_spaced_starts(10, 3), [0, 3, 6])


def test_bad_measure_inputs():
    with pytest.raises(ParameterError, match=r"hypothesis must be word indices in \[0, 10\)"):
        probe_counts(np.array([0]), np.array([0, 12]), 10)
    with pytest.raises(ParameterError, match="probe distance k must be >= 1 word, got 0"):
        probe_counts(np.array([0]), np.array([0]), 10, k=0)
    with pytest.raises(ParameterError, match="need as many references, hypotheses and lengths"):
        score_documents([np.array([0])], [], [10])
