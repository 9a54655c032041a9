"""Numba kernels against their slow twins in naive.py, and textbook cases with exact answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.evaluate.rasch import ResponseMatrix, config, fit_rasch, fit_statistics, standardized_residuals
from engine.evaluate.rasch import _kernels as kernels


def _random_problem(rng, n=13, m=9, missing=0.2):
    x = (rng.random((n, m)) < 0.5).astype(np.int8)
    x[rng.random((n, m)) < missing] = -1
    row_state = rng.choice([kernels.OFF, kernels.FREE, kernels.FREE, kernels.FIXED], size=n).astype(np.int8)
    col_state = rng.choice([kernels.OFF, kernels.FREE, kernels.FREE, kernels.FIXED], size=m).astype(np.int8)
    theta = rng.normal(0, 2, n)
    b = rng.normal(0, 2, m)
    row_score = rng.uniform(0, m, n)
    col_score = rng.uniform(0, n, m)
    return x, row_score, col_score, row_state, col_state, theta, b


@pytest.mark.parametrize("seed", range(5))
def test_jmle_sweep_matches_naive(naive, seed):
    rng = np.random.default_rng(seed)
    x, rs, cs, rst, cst, theta, b = _random_problem(rng)
    t_fast, b_fast = theta.copy(), b.copy()
    t_slow, b_slow = theta.copy(), b.copy()
    for _ in range(3):
        fast = kernels._jmle_sweep(x, rs, cs, rst, cst, t_fast, b_fast, 0.7)
        slow = naive.jmle_sweep(x, rs, cs, rst, cst, t_slow, b_slow, 0.7)
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t_fast, t_slow, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b_fast, b_slow, rtol=1e-12, atol=1e-12)
    assert not np.array_equal(t_fast, theta) or not (rst == kernels.FREE).any()


@pytest.mark.parametrize("seed", range(5))
def test_fit_sums_match_naive(naive, seed):
    rng = np.random.default_rng(100 + seed)
    x, _, _, rst, cst, theta, b = _random_problem(rng)
    theta[0] = 7.5  # far off target: exercises the floor on W in the outfit variance
    fast = kernels._fit_sums(x, rst, cst, theta, b, config.OUTFIT_VARIANCE_FLOOR_SQUARED)
    slow = naive.fit_sums(x, rst, cst, theta, b, config.OUTFIT_VARIANCE_FLOOR_SQUARED)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-10, atol=1e-12)


def test_fit_statistics_match_textbook_formulas(naive, rng):
    x = (rng.random((30, 12)) < 0.6).astype(np.int8)
    x[rng.random(x.shape) < 0.1] = -1
    theta, b = rng.normal(0, 1.5, 30), rng.normal(0, 1.5, 12)
    rows_used = np.ones(30, bool)
    rows_used[[3, 7]] = False
    cols_used = np.ones(12, bool)
    cols_used[5] = False
    sys_fit, q_fit = fit_statistics(x, theta, b, systems_used=rows_used, questions_used=cols_used)
    rows, cols = naive.fit_statistics(x, theta, b, rows_used, cols_used)
    for fit, ref in ((sys_fit, rows), (q_fit, cols)):
        for i, expected in ref.items():
            assert fit.outfit_msq[i] == pytest.approx(expected["outfit"], rel=1e-10)
            assert fit.infit_msq[i] == pytest.approx(expected["infit"], rel=1e-10)
            assert fit.outfit_zstd[i] == pytest.approx(expected["outfit_zstd"], rel=1e-9, abs=1e-12)
            assert fit.infit_zstd[i] == pytest.approx(expected["infit_zstd"], rel=1e-9, abs=1e-12)
            assert fit.se[i] == pytest.approx(expected["se"], rel=1e-10)
    assert np.isnan(sys_fit.outfit_msq[3]) and np.isnan(q_fit.infit_msq[5])


def test_two_item_jmle_is_twice_the_conditional_estimate():
    """Andersen (1973): with 2 items, JMLE's b2 - b1 is exactly 2 log(n10/n01), the CML value doubled.

    The (L-1)/L correction (L = 2) halves it back to the CML value.
    """
    n10, n01 = 30, 10
    rows = [[1, 0]] * n10 + [[0, 1]] * n01 + [[1, 1]] * 5 + [[0, 0]] * 4
    matrix = ResponseMatrix.from_array(rows, questions=["A", "B"])
    fit = fit_rasch(matrix)
    cml = math.log(n10 / n01)
    assert fit.difficulty("B") - fit.difficulty("A") == pytest.approx(2 * cml, abs=1e-6)
    assert fit.difficulty("A") == pytest.approx(-cml, abs=1e-6)
    assert fit.systems.status.count("all_right") == 5 and fit.systems.status.count("all_wrong") == 4
    corrected = fit_rasch(matrix, bias_correction=True)
    assert corrected.bias_factor == pytest.approx(0.5)
    assert corrected.difficulty("B") - corrected.difficulty("A") == pytest.approx(cml, abs=1e-6)


def test_residual_on_target_is_one_sd():
    """At ability = difficulty, P = 0.5: residual +-0.5, z +-1 exactly."""
    table = standardized_residuals(np.array([1, 0, -1], dtype=np.int8), 0.3, np.array([0.3, 0.3, 0.3]))
    np.testing.assert_allclose(table["p"], 0.5)
    np.testing.assert_allclose(table["residual"][:2], [0.5, -0.5])
    np.testing.assert_allclose(table["z"][:2], [1.0, -1.0])
    assert np.isnan(table["z"][2])
