"""Slow, obvious twins of the Rasch kernels, and an independent fully converged JMLE.

Written for clarity, not speed: plain loops over responses, formulas as in the
textbooks (Wright & Stone 1979; Wright & Masters 1982; Winsteps' manual).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

OFF, FREE, FIXED = 0, 1, 2


def prob(theta: float, b: float) -> float:
    return 1.0 / (1.0 + math.exp(b - theta))


def jmle_sweep(x, row_score, col_score, row_state, col_state, theta, b, max_step):
    """One sweep: a Newton step for each free row, then (with the new rows) for each free column."""
    n_rows, n_cols = x.shape
    changes, residuals = [0.0], [0.0]

    def newton_step(score, ps, sign):
        """The clamped step for one row (sign +1) or column (sign -1) from its expected score; None: no information."""
        residual = score - sum(ps)
        information = sum(p * (1 - p) for p in ps)
        residuals.append(abs(residual))
        if information <= 0:
            return None
        step = max(-max_step, min(max_step, sign * residual / information))
        changes.append(abs(step))
        return step

    for r in range(n_rows):
        if row_state[r] == FREE:
            cells = [c for c in range(n_cols) if x[r, c] >= 0 and col_state[c] != OFF]
            step = newton_step(row_score[r], [prob(theta[r], b[c]) for c in cells], 1)
            theta[r] += step or 0.0
    for c in range(n_cols):
        if col_state[c] == FREE:
            cells = [r for r in range(n_rows) if x[r, c] >= 0 and row_state[r] != OFF]
            step = newton_step(col_score[c], [prob(theta[r], b[c]) for r in cells], -1)
            b[c] += step or 0.0
    return max(changes), max(residuals)


def fit_sums(x, row_state, col_state, theta, b, w_floor_squared):
    """Per-row and per-column sums: count, resid, z^2, resid^2, W, C/W'^2, C - W^2."""
    n_rows, n_cols = x.shape
    row_sums = np.zeros((n_rows, 7))
    col_sums = np.zeros((n_cols, 7))
    for r in range(n_rows):
        for c in range(n_cols):
            if row_state[r] == OFF or col_state[c] == OFF or x[r, c] < 0:
                continue
            p = prob(theta[r], b[c])
            w = p * (1 - p)
            resid = x[r, c] - p
            z = resid / math.sqrt(w)
            kurtosis = p * (1 - p) ** 4 + (1 - p) * p**4  # E[(x - P)^4]
            w_denominator = w if w * w >= w_floor_squared else math.sqrt(w_floor_squared)
            terms = [1.0, resid, z * z, resid * resid, w, kurtosis / w_denominator**2, kurtosis - w * w]
            row_sums[r] += terms
            col_sums[c] += terms
    return row_sums, col_sums


def fit_statistics(x, theta, b, rows_used, cols_used, w_floor_squared=1e-5, q_max=1.4142):
    """Outfit/infit mean-squares and ZSTD and model SE, straight from the formulas; per row and per column."""

    def entry(pairs):
        ps = [prob(theta[r], b[c]) for r, c in pairs]
        data = [x[r, c] for r, c in pairs]
        ws = [p * (1 - p) for p in ps]
        zs = [(d - p) / math.sqrt(w) for d, p, w in zip(data, ps, ws, strict=True)]
        n = len(pairs)
        outfit = sum(z * z for z in zs) / n
        infit = sum((d - p) ** 2 for d, p in zip(data, ps, strict=True)) / sum(ws)
        kurt = [p * (1 - p) ** 4 + (1 - p) * p**4 for p in ps]
        wd = [w if w * w >= w_floor_squared else math.sqrt(w_floor_squared) for w in ws]
        q_out = math.sqrt(max(sum(k / v**2 for k, v in zip(kurt, wd, strict=True)) / n**2 - 1 / n, 0.0))
        q_in = math.sqrt(max(sum(k - w * w for k, w in zip(kurt, ws, strict=True)), 0.0)) / sum(ws)

        def wh(ms, q):
            q = min(q, q_max)
            return (ms ** (1 / 3) - 1) * 3 / q + q / 3

        return {"outfit": outfit, "infit": infit, "outfit_zstd": wh(outfit, q_out), "infit_zstd": wh(infit, q_in),
                "se": 1 / math.sqrt(sum(ws))}

    n_rows, n_cols = x.shape
    rows = {r: entry([(r, c) for c in range(n_cols) if cols_used[c] and x[r, c] >= 0])
            for r in range(n_rows) if rows_used[r]}
    cols = {c: entry([(r, c) for r in range(n_rows) if rows_used[r] and x[r, c] >= 0])
            for c in range(n_cols) if cols_used[c]}
    return rows, cols


def jmle_by_optimizer(x):
    """Fully converged JMLE by maximizing the joint log-likelihood with scipy.

    ``x``: int (n, m) of 1/0/-1 without extreme rows or columns. The origin is
    the mean difficulty: the last difficulty is minus the sum of the others.
    Returns (theta (n,), b (m,)).
    """
    x = np.asarray(x)
    n, m = x.shape
    obs = x >= 0
    xv = np.where(obs, x, 0).astype(float)

    def unpack(params):
        theta = params[:n]
        b_free = params[n:]
        return theta, np.append(b_free, -b_free.sum())

    def negative_loglik(params):
        theta, b = unpack(params)
        eta = theta[:, None] - b[None, :]
        ll = np.where(obs, xv * eta - np.logaddexp(0.0, eta), 0.0).sum()
        p = 1 / (1 + np.exp(-eta))
        resid = np.where(obs, xv - p, 0.0)
        g_theta = resid.sum(axis=1)
        g_b = -resid.sum(axis=0)
        g_free = g_b[:-1] - g_b[-1]
        return -ll, -np.concatenate([g_theta, g_free])

    start = np.zeros(n + m - 1)
    res = optimize.minimize(negative_loglik, start, jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 20000})
    return unpack(res.x)
