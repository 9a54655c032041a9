"""Purification (Figure 5), anchor checks and the equating simulation (Table 2, Figure 6)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.rasch import (
    ResponseMatrix,
    anchor_check,
    equate_simulation,
    fit_rasch,
    paper_shaped_measures,
    purify,
    quadratic_trend,
    separation,
    simulate_responses,
)


@pytest.fixture
def paper_matrix(rng) -> ResponseMatrix:
    abilities, difficulties = paper_shaped_measures(67, 490, rng=rng)
    return simulate_responses(abilities, difficulties, rng=rng)


def _with_noise_questions(matrix: ResponseMatrix, rng, n_noise: int) -> tuple[ResponseMatrix, list[str]]:
    """Overwrite the first n_noise questions with reversed ones: the weaker the system, the likelier right."""
    x = matrix.responses.copy()
    score = matrix.system_scores()[0].astype(float)
    strength = 2.0 * (score - score.mean()) / score.std()
    p_right = 1.0 / (1.0 + np.exp(strength))
    x[:, :n_noise] = (rng.random((matrix.n_systems, n_noise)) < p_right[:, None]).astype(np.int8)
    return ResponseMatrix(matrix.systems, matrix.questions, x), list(matrix.questions[:n_noise])


def test_purification_drops_the_misfitting_questions(paper_matrix, rng):
    matrix, noisy = _with_noise_questions(paper_matrix, rng, 12)
    result = purify(matrix)
    dropped = [q for _, q, _ in result.dropped]
    assert set(noisy) <= set(dropped)
    assert [r for r, _, _ in result.dropped] == list(range(1, len(dropped) + 1))  # one per round
    assert all(o > 1.6 for _, _, o in result.dropped)
    q = result.purified.questions
    assert np.nanmax(q.outfit_msq[q.measured]) <= 1.6
    assert set(q.ids).isdisjoint(dropped)
    both = result.full.systems.measured & result.purified.systems.measured
    assert result.systems == tuple(np.array(matrix.systems)[both]) and len(result.systems) > 60
    assert 0.93 < result.correlation <= 1.0
    assert result.correlation == pytest.approx(np.corrcoef(result.before, result.after)[0, 1])


def test_purification_per_round_and_bad_arguments(paper_matrix, rng):
    matrix, _ = _with_noise_questions(paper_matrix, rng, 12)
    result = purify(matrix, per_round=5)
    rounds = [r for r, _, _ in result.dropped]
    assert rounds.count(1) == 5 and max(rounds) < len(rounds)
    with pytest.raises(ParameterError, match="per_round must be >= 1, got 0"):
        purify(matrix, per_round=0)


def test_anchor_check_shifts_onto_the_anchors(paper_matrix):
    free = fit_rasch(paper_matrix)
    picked = [q for q, s in zip(free.questions.ids, free.questions.status, strict=True) if s == "measured"][:5]
    anchors = {q: free.difficulty(q) + 1.0 for q in picked[:4]}
    anchors[picked[4]] = free.difficulty(picked[4]) + 3.0  # an anchor that moved
    records = anchor_check(paper_matrix, anchors, free=free)
    diffs = {r["question"]: r["difference"] for r in records}
    for q in picked[:4]:
        assert diffs[q] == pytest.approx(0.4)
    assert diffs[picked[4]] == pytest.approx(-1.6)
    worst = min(records, key=lambda r: r["z"])
    assert worst["question"] == picked[4] and worst["z"] == pytest.approx(-1.6 / worst["se"])


def test_equating_simulation_reproduces_the_papers_findings(paper_matrix):
    result = equate_simulation(paper_matrix, sizes=(20, 30, 50))
    assert len(result.easy) + len(result.hard) == int(result.full.questions.measured.sum())
    assert max(result.full.difficulty(q) for q in result.easy) <= min(result.full.difficulty(q) for q in result.hard)
    table = result.table()
    assert [(r["size"], r["index"]) for r in table] == [
        (20, "Rasch"), (20, "# correct"), (30, "Rasch"), (30, "# correct"), (50, "Rasch"), (50, "# correct")]
    for run in result.runs:
        assert len(run.equating) == run.size and set(run.equating) <= set(result.easy)
        stats = run.statistics()
        rasch, raw = stats["rasch"], stats["raw"]
        # Rasch: the same systems get the same mean and spread from either test ...
        assert abs(rasch["mean_easy"] - rasch["mean_hard"]) < 0.25 * rasch["sd_easy"]
        assert 0.8 < rasch["sd_hard"] / rasch["sd_easy"] < 1.25
        assert rasch["r"] > 0.9
        # ... raw scores depend on the test: lower, squeezed, and curved on the hard one.
        assert raw["mean_hard"] < 0.6 * raw["mean_easy"]
        assert raw["sd_easy"] / raw["sd_hard"] > 1.3
        assert stats["raw_quadratic"]["quadratic"] > 0 and stats["raw_quadratic"]["t"] > 3


def test_equating_sizes_must_fit_in_the_easy_half(rng):
    matrix = simulate_responses(rng.normal(0, 1, 40), rng.normal(0, 1, 30), rng=rng)
    with pytest.raises(ParameterError, match=r"an equating set of 20 questions needs more Easy questions than the 1\d there are"):
        equate_simulation(matrix, sizes=(20,))


def test_quadratic_trend_is_exact_on_a_parabola(rng):
    x = np.linspace(0, 150, 40)
    y = 24.32 - 0.55 * x + 0.0051 * x**2 + rng.normal(0, 0.01, x.size)
    trend = quadratic_trend(x, y)
    assert trend["intercept"] == pytest.approx(24.32, abs=0.02)
    assert trend["linear"] == pytest.approx(-0.55, abs=1e-3)
    assert trend["quadratic"] == pytest.approx(0.0051, abs=1e-5)
    assert trend["t"] > 100 and trend["p"] < 1e-12 and trend["df"] == 37


def test_separation_and_reliability_formulas():
    s = separation(np.array([-1.0, 0.0, 1.0]), np.array([0.5, 0.5, 0.5]), np.array([1.0, 4.0, 0.5]))
    assert s.sd == pytest.approx(np.sqrt(2 / 3))
    assert s.model_rmse == pytest.approx(0.5)
    assert s.model_reliability == pytest.approx((2 / 3 - 0.25) / (2 / 3))
    assert s.model_separation == pytest.approx(np.sqrt(2 / 3 - 0.25) / 0.5)
    # Real SEs: the second inflated by sqrt(4) = 2; the third not deflated.
    assert s.real_rmse == pytest.approx(np.sqrt((0.25 + 1.0 + 0.25) / 3))
    assert s.real_reliability == pytest.approx((2 / 3 - 0.5) / (2 / 3))


def _guttman_with_reversed_questions(rng, n_systems: int = 12, n_questions: int = 301) -> ResponseMatrix:
    """A perfect Guttman pattern that only three reversed questions keep finite (like real 12 x 301 data)."""
    thr = rng.integers(1, n_systems, size=n_questions)
    x = (np.arange(n_systems)[:, None] >= thr[None, :]).astype(float)
    for j in range(3):
        x[:, j] = (np.arange(n_systems) < thr[j]).astype(float)
    return ResponseMatrix.from_array(x, source="guttman.csv")


def test_purification_stops_at_the_last_fit_that_had_a_solution(rng):
    matrix = _guttman_with_reversed_questions(rng)
    result = purify(matrix)
    assert result.stopped.startswith(f"stopped after round {len(result.dropped)}: without ")
    assert "guttman.csv" in result.stopped
    kept = set(result.purified.questions.ids)
    assert kept.isdisjoint(q for _, q, _ in result.dropped)
    assert len(kept) + len(result.dropped) == matrix.n_questions
    assert np.isfinite(result.purified.systems.measure[result.purified.systems.measured]).all()
    assert result.summary()["stopped"] == result.stopped
