"""JMLE estimation: Winsteps' Knox Cube Test output, a fully converged reference, and edge cases."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import Cancelled, ParameterError
from engine.evaluate.rasch import EstimationError, ResponseMatrix, fit_rasch, fit_statistics, simulate_responses
from engine.jobs import JobReport

# Winsteps' non-extreme entries: items 4-17, persons 1-34 (data README).
KCT_ITEMS = slice(3, 17)
KCT_PERSONS = slice(0, 34)


def test_kct_extreme_scores_removed_in_rounds(kct):
    fit = fit_rasch(kct["matrix"])
    removed = [(r.facet, r.id, r.status, r.round) for r in fit.removed]
    assert removed == [
        ("question", "I01", "all_right", 1), ("question", "I02", "all_right", 1),
        ("question", "I03", "all_right", 1), ("question", "I18", "all_wrong", 1),
        ("system", "35", "all_wrong", 2),  # Helen: 3 right, all on the removed items
    ]
    assert fit.converged
    assert fit.questions.estimated.tolist() == [False] * 3 + [True] * 14 + [False]


def test_kct_measures_within_02_logits_of_winsteps(kct):
    fit = fit_rasch(kct["matrix"])
    items, persons = kct["items"], kct["persons"]
    d_items = np.abs(fit.questions.measure[KCT_ITEMS] - items["MEASURE"][KCT_ITEMS])
    d_persons = np.abs(fit.systems.measure[KCT_PERSONS] - persons["MEASURE"][KCT_PERSONS])
    assert d_items.max() < 0.2 and d_persons.max() < 0.2
    # Winsteps stops early: its measures are ~0.96 x the fully converged ones (data README).
    slope = np.polyfit(fit.questions.measure[KCT_ITEMS], items["MEASURE"][KCT_ITEMS], 1)[0]
    assert 0.95 < slope < 0.98
    # Extreme entries with Winsteps' 0.3 score-point adjustment.
    extreme_items = [0, 1, 2, 17]
    assert np.abs(fit.questions.measure[extreme_items] - items["MEASURE"][extreme_items]).max() < 0.2
    assert abs(fit.systems.measure[34] - persons["MEASURE"][34]) < 0.2
    assert np.abs(fit.questions.se[extreme_items] - items["ERROR"][extreme_items]).max() < 0.05


def test_kct_matches_fully_converged_optimizer(kct, naive):
    fit = fit_rasch(kct["matrix"])
    x = kct["matrix"].responses[KCT_PERSONS, KCT_ITEMS]
    theta, b = naive.jmle_by_optimizer(x)
    np.testing.assert_allclose(fit.questions.measure[KCT_ITEMS], b, atol=1e-4)
    np.testing.assert_allclose(fit.systems.measure[KCT_PERSONS], theta, atol=1e-4)


def test_kct_fit_and_se_from_winsteps_measures(kct):
    """Fit statistics and SEs computed from Winsteps' own measures reproduce Winsteps' figures."""
    items, persons = kct["items"], kct["persons"]
    used_p = np.zeros(35, bool)
    used_p[KCT_PERSONS] = True
    used_i = np.zeros(18, bool)
    used_i[KCT_ITEMS] = True
    sys_fit, q_fit = fit_statistics(kct["matrix"], persons["MEASURE"], items["MEASURE"],
                                    systems_used=used_p, questions_used=used_i)
    for fit, ref, keep in ((q_fit, items, KCT_ITEMS), (sys_fit, persons, KCT_PERSONS)):
        assert np.abs(fit.outfit_msq[keep] - ref["OUT.MSQ"][keep]).max() < 0.01
        assert np.abs(fit.infit_msq[keep] - ref["IN.MSQ"][keep]).max() < 0.01
        assert np.abs(fit.outfit_zstd[keep] - ref["OUT.ZSTD"][keep]).max() < 0.05
        assert np.abs(fit.infit_zstd[keep] - ref["IN.ZSTD"][keep]).max() < 0.05
        assert np.abs(fit.se[keep] - ref["ERROR"][keep]).max() < 0.01  # ERROR is given to 2 decimals


def test_kct_misfit_table_of_the_worst_person(kct):
    fit = fit_rasch(kct["matrix"])
    rows = fit.misfit("13")
    assert [r.question for r in rows] == ["I07", "I06", "I12"]
    first = rows[0]
    assert first.datum == 0 and first.p > 0.97
    assert first.residual == pytest.approx(-first.p)
    assert first.z == pytest.approx(first.residual / np.sqrt(first.p * (1 - first.p)))
    assert fit.misfit("13", min_abs_z=4.0, limit=1) == rows[:1]


def test_missing_responses_match_optimizer(rng, naive):
    truth_s, truth_q = rng.normal(0, 1, 40), rng.normal(0, 1, 15)
    matrix = simulate_responses(truth_s, truth_q, rng=rng, missing_rate=0.25)
    fit = fit_rasch(matrix)
    rows, cols = fit.systems.measured, fit.questions.measured
    theta, b = naive.jmle_by_optimizer(matrix.responses[np.ix_(rows, cols)])
    np.testing.assert_allclose(fit.questions.measure[cols], b, atol=1e-4)
    np.testing.assert_allclose(fit.systems.measure[rows], theta, atol=1e-4)
    assert fit.questions.measure[cols].mean() == pytest.approx(0.0, abs=1e-12)


def test_anchors_hold_and_fix_the_origin(rng):
    truth_s, truth_q = rng.normal(0, 1, 60), rng.normal(0, 1, 20)
    matrix = simulate_responses(truth_s, truth_q, rng=rng)
    free = fit_rasch(matrix)
    shift = 1.5
    anchors = {q: free.difficulty(q) + shift for q in matrix.questions[:6]}
    fit = fit_rasch(matrix, anchors=anchors)
    assert fit.origin == "anchored questions"
    for q, v in anchors.items():
        assert fit.difficulty(q) == v
        assert fit.questions.status[fit.questions.index(q)] == "anchored"
    # Anchors taken from the free fit shifted by 1.5: everything moves by exactly 1.5.
    np.testing.assert_allclose(fit.questions.measure, free.questions.measure + shift, atol=1e-4)
    np.testing.assert_allclose(fit.systems.measure, free.systems.measure + shift, atol=1e-4)
    np.testing.assert_allclose(fit.questions.displacement[:6], 0.0, atol=1e-3)


def test_anchoring_every_measured_question_only_scores_systems(rng):
    matrix = simulate_responses(rng.normal(0, 1, 30), rng.normal(0, 1, 10), rng=rng)
    free = fit_rasch(matrix)
    measured = [q for q, s in zip(free.questions.ids, free.questions.status, strict=True) if s == "measured"]
    fit = fit_rasch(matrix, anchors={q: free.difficulty(q) for q in measured})
    assert fit.iterations < free.iterations
    np.testing.assert_allclose(fit.systems.measure, free.systems.measure, atol=1e-5)


def test_origin_at_mean_system_ability(rng):
    matrix = simulate_responses(rng.normal(-2, 1, 50), rng.normal(0, 1, 25), rng=rng)
    by_q = fit_rasch(matrix)
    by_s = fit_rasch(matrix, origin="systems")
    measured = by_s.systems.measured
    assert by_s.systems.measure[measured].mean() == pytest.approx(0.0, abs=1e-12)
    shift = by_q.systems.measure[measured].mean()
    np.testing.assert_allclose(by_s.questions.measure, by_q.questions.measure - shift, atol=1e-9)


def test_warm_start_gives_the_same_answer_in_fewer_sweeps(rng):
    matrix = simulate_responses(rng.normal(0, 1, 80), rng.normal(0, 1, 30), rng=rng)
    cold = fit_rasch(matrix)
    warm = fit_rasch(matrix, start=cold)
    np.testing.assert_allclose(warm.systems.measure, cold.systems.measure, atol=1e-5)
    assert warm.iterations < cold.iterations


def test_progress_and_cancel(rng):
    matrix = simulate_responses(rng.normal(0, 1, 20), rng.normal(0, 1, 10), rng=rng)
    seen = []
    fit_rasch(matrix, report=JobReport(progress=lambda done, total: seen.append((done, total))))
    assert seen and seen[0] == (1, 500) and seen[-1][0] == len(seen)
    report = JobReport()
    report.cancel.cancel()
    with pytest.raises(Cancelled):
        fit_rasch(matrix, report=report)


def test_not_converged_is_reported(rng):
    matrix = simulate_responses(rng.normal(0, 1, 20), rng.normal(0, 1, 10), rng=rng)
    fit = fit_rasch(matrix, max_iterations=1)
    assert not fit.converged and fit.iterations == 1 and fit.max_change > 1e-6


def test_guttman_pattern_diverges_with_a_clear_error():
    # No extreme score anywhere, but whoever answers C or D has both A and B right: A and B are
    # infinitely easier than C and D, and no finite estimate exists (Fischer 1981).
    rows = [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 0], [1, 1, 0, 1]]
    with pytest.raises(EstimationError, match=r"g.csv: the responses admit no finite measures: questions 'Q[12]', "
                                              r"'Q[12]' are separated .* Guttman-like"):
        fit_rasch(ResponseMatrix.from_array(rows, source="g.csv"))


def test_unconnected_subsets_are_refused():
    nan = np.nan
    rows = [[1, 0, nan, nan], [0, 1, nan, nan], [1, 1, nan, nan], [nan, nan, 1, 0], [nan, nan, 0, 1], [nan, nan, 1, 0]]
    matrix = ResponseMatrix.from_array(rows, source="split.csv")
    with pytest.raises(EstimationError, match=r"split.csv: the responses fall into 2 unconnected subsets"):
        fit_rasch(matrix)


def test_nothing_measurable():
    with pytest.raises(EstimationError, match="no system has a score between none and all right"):
        fit_rasch(ResponseMatrix.from_array([[1, 1], [0, 0]], source="x.csv"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"anchors": {"Q9": 0.0}}, r"1 anchored question\(s\) are not in m.csv: 'Q9'"),
        ({"anchors": {"Q1": float("nan")}}, r"anchor of question 'Q1' is nan"),
        ({"anchors": {"Q1": 0.0}, "bias_correction": True}, "bias correction cannot be combined with anchored"),
        ({"origin": "middle"}, r"origin must be one of \('questions', 'systems'\), got 'middle'"),
        ({"convergence_logits": 0.0}, r"convergence criteria must be > 0, got 0.0 logits"),
        ({"max_iterations": 0}, "max_iterations must be >= 1, got 0"),
    ],
    ids=["unknown-anchor", "nan-anchor", "bias-with-anchors", "bad-origin", "zero-convergence", "no-iterations"],
)
def test_bad_arguments(kwargs, message):
    matrix = ResponseMatrix.from_array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], source="m.csv")
    with pytest.raises(ParameterError, match=message):
        fit_rasch(matrix, **kwargs)
