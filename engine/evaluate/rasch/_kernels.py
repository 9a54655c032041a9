"""Numba kernels of the Rasch tool. They check nothing: the wrappers in
:mod:`engine.evaluate.rasch.estimate` and :mod:`engine.evaluate.rasch.fitstats` validate first.

Common arguments
----------------
x : int8 (n_rows, n_cols), C-contiguous; 1 right, 0 wrong, -1 missing.
row_state, col_state : int8 (n_rows,), (n_cols,); 0 left out, 1 estimated
    (free), 2 held at its given value (anchored).
theta : float64 (n_rows,) abilities of the rows, logits.
b : float64 (n_cols,) difficulties of the columns, logits.

Every kernel has a slow twin in ``tests/engine/evaluate/rasch/naive.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

OFF = 0
FREE = 1
FIXED = 2


@njit(cache=True, nogil=True)
def _jmle_sweep(x, row_score, col_score, row_state, col_state, theta, b, max_step):  # pragma: no cover - compiled
    """One Gauss-Seidel sweep of Newton steps: every free row, then every free column.

    ``row_score``/``col_score`` (float64) are the scores each row/column must
    reproduce (raw scores, or adjusted ones for extreme entries). ``theta`` and
    ``b`` are updated in place. Returns (largest step taken in logits, largest
    |observed - expected| score seen before the steps).
    """
    n_rows, n_cols = x.shape
    max_change = 0.0
    max_residual = 0.0
    any_free_row = False
    for r in range(n_rows):
        if row_state[r] == FREE:
            any_free_row = True
            break
    any_free_col = False
    for c in range(n_cols):
        if col_state[c] == FREE:
            any_free_col = True
            break

    # exp(b - theta) = exp(b) * exp(-theta): one exp per row and column, none per response.
    exp_b = np.empty(n_cols)
    for c in range(n_cols):
        exp_b[c] = math.exp(b[c])

    if any_free_row:
        for r in range(n_rows):
            if row_state[r] != FREE:
                continue
            t = theta[r]
            exp_minus_t = math.exp(-t)
            expected = 0.0
            information = 0.0
            for c in range(n_cols):
                if x[r, c] < 0 or col_state[c] == OFF:
                    continue
                p = 1.0 / (1.0 + exp_b[c] * exp_minus_t)
                expected += p
                information += p * (1.0 - p)
            residual = row_score[r] - expected
            if abs(residual) > max_residual:
                max_residual = abs(residual)
            if information <= 0.0:
                continue
            step = residual / information
            if step > max_step:
                step = max_step
            elif step < -max_step:
                step = -max_step
            theta[r] = t + step
            if abs(step) > max_change:
                max_change = abs(step)

    if any_free_col:
        expected_c = np.zeros(n_cols)
        information_c = np.zeros(n_cols)
        for r in range(n_rows):
            if row_state[r] == OFF:
                continue
            exp_minus_t = math.exp(-theta[r])
            for c in range(n_cols):
                if x[r, c] < 0:
                    continue
                p = 1.0 / (1.0 + exp_b[c] * exp_minus_t)
                expected_c[c] += p
                information_c[c] += p * (1.0 - p)
        for c in range(n_cols):
            if col_state[c] != FREE:
                continue
            residual = col_score[c] - expected_c[c]
            if abs(residual) > max_residual:
                max_residual = abs(residual)
            if information_c[c] <= 0.0:
                continue
            step = -residual / information_c[c]
            if step > max_step:
                step = max_step
            elif step < -max_step:
                step = -max_step
            b[c] += step
            if abs(step) > max_change:
                max_change = abs(step)
    return max_change, max_residual


#: Columns of the accumulator arrays returned by :func:`_fit_sums`.
N_SUMS = 7
SUM_COUNT, SUM_RESID, SUM_Z2, SUM_RESID2, SUM_W, SUM_OUTFIT_VAR, SUM_INFIT_VAR = range(N_SUMS)


@njit(cache=True, nogil=True)
def _fit_sums(x, row_state, col_state, theta, b, w_floor_squared):  # pragma: no cover - compiled
    """Per-row and per-column sums behind the fit statistics and standard errors.

    Over the observed responses of rows and columns whose state is not 0, with
    P = 1/(1+exp(b-theta)), W = P(1-P), kurtosis C = W(1-3W), z = (x-P)/sqrt(W):
    count, sum (x-P), sum z**2, sum (x-P)**2, sum W, sum C/W'**2 (W' = W
    floored to sqrt(w_floor_squared) where W**2 < w_floor_squared), sum (C - W**2).

    Returns (row_sums (n_rows, 7), col_sums (n_cols, 7)), float64, columns
    in the order of the ``SUM_*`` constants.
    """
    n_rows, n_cols = x.shape
    row_sums = np.zeros((n_rows, N_SUMS))
    col_sums = np.zeros((n_cols, N_SUMS))
    w_floor = math.sqrt(w_floor_squared)
    exp_b = np.empty(n_cols)
    for c in range(n_cols):
        exp_b[c] = math.exp(b[c])
    for r in range(n_rows):
        if row_state[r] == OFF:
            continue
        exp_minus_t = math.exp(-theta[r])
        for c in range(n_cols):
            v = x[r, c]
            if v < 0 or col_state[c] == OFF:
                continue
            odds_wrong = exp_b[c] * exp_minus_t  # exp(b - theta) = (1-P)/P
            p = 1.0 / (1.0 + odds_wrong)
            w = p * (1.0 - p)
            if v == 1:
                z2 = odds_wrong  # (1-P)/P, exact even where P is near 1
                resid = 1.0 - p
            else:
                z2 = 1.0 / odds_wrong  # P/(1-P)
                resid = -p
            kurt = w * (1.0 - 3.0 * w)
            wd = w if w * w >= w_floor_squared else w_floor
            outfit_var = kurt / (wd * wd)
            infit_var = kurt - w * w
            terms = (1.0, resid, z2, resid * resid, w, outfit_var, infit_var)  # in SUM_* order
            for k in range(N_SUMS):
                row_sums[r, k] += terms[k]
                col_sums[c, k] += terms[k]
    return row_sums, col_sums
