"""Fit of the data to the Rasch model: residuals, mean-squares, ZSTD, separation.

For a response x (0/1) with model probability P = 1/(1 + exp(b - theta)):
residual x - P, variance W = P(1-P), standardized residual z = (x - P)/sqrt(W)
(paper, section 3.3). Per system and per question:

- outfit mean-square: mean of z**2 (Winsteps; the paper's eq. 3 divides by
  n - 1 instead, a difference of 1/n),
- infit mean-square: sum (x - P)**2 / sum W, i.e. z**2 weighted by W,
- ZSTD: the Wilson-Hilferty cube-root transform t = (MS**(1/3) - 1)(3/q) + q/3,
  with q the model standard deviation of the mean-square (Wright & Masters
  1982), capped and floored as Winsteps does (see :mod:`engine.evaluate.rasch.config`),
- model standard error of the measure: 1 / sqrt(sum W).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.rasch import _kernels as kernels
from engine.evaluate.rasch import config
from engine.evaluate.rasch.matrix import ResponseMatrix


@dataclass(frozen=True)
class FitColumns:
    """Fit statistics of one facet; arrays of shape (n,), NaN where not computed.

    Attributes
    ----------
    count : responses used.
    se : model standard error of the measure, logits.
    infit_msq, infit_zstd, outfit_msq, outfit_zstd : mean-squares and their ZSTD.
    displacement : how far the measure would move to fit these responses
        exactly, logits (about 0 once converged; informative for anchors).
    """

    count: np.ndarray
    se: np.ndarray
    infit_msq: np.ndarray
    infit_zstd: np.ndarray
    outfit_msq: np.ndarray
    outfit_zstd: np.ndarray
    displacement: np.ndarray


def fit_statistics(
    responses: ResponseMatrix | np.ndarray,
    abilities: np.ndarray,
    difficulties: np.ndarray,
    *,
    systems_used: np.ndarray | None = None,
    questions_used: np.ndarray | None = None,
) -> tuple[FitColumns, FitColumns]:
    """Fit statistics and standard errors of systems and questions at given measures.

    Parameters
    ----------
    responses : a :class:`ResponseMatrix`, or an int8 array (n_systems, n_questions)
        of 1/0/-1 (missing).
    abilities : float (n_systems,), logits.
    difficulties : float (n_questions,), logits.
    systems_used, questions_used : bool (n_systems,), (n_questions,); only
        responses of used systems to used questions count (default: all).
        Leave out extreme systems and questions, as Winsteps does.

    Returns
    -------
    (systems, questions) : :class:`FitColumns`, NaN for entries not used.
    """
    x = responses.responses if isinstance(responses, ResponseMatrix) else np.asarray(responses)
    if x.ndim != 2 or x.dtype != np.int8:
        raise ParameterError(f"responses must be a 2-D int8 array, got {x.dtype} with shape {x.shape}")
    n, m = x.shape
    theta = _vector(abilities, n, "abilities")
    b = _vector(difficulties, m, "difficulties")
    rows = _mask(systems_used, n, "systems_used")
    cols = _mask(questions_used, m, "questions_used")
    row_sums, col_sums = kernels._fit_sums(
        np.ascontiguousarray(x), rows.astype(np.int8), cols.astype(np.int8), theta, b,
        config.OUTFIT_VARIANCE_FLOOR_SQUARED,
    )
    system_fit = fit_columns(row_sums, sign=1.0)
    question_fit = fit_columns(col_sums, sign=-1.0)
    return system_fit, question_fit


def fit_columns(sums: np.ndarray, *, sign: float) -> FitColumns:
    """Turn the per-entry sums of :func:`engine.evaluate.rasch._kernels._fit_sums` into statistics.

    ``sign`` is +1 for abilities (more right answers -> higher measure) and -1
    for difficulties.
    """
    count = sums[:, kernels.SUM_COUNT]
    with np.errstate(divide="ignore", invalid="ignore"):
        used = count > 0
        information = sums[:, kernels.SUM_W]
        se = np.where(used, 1.0 / np.sqrt(information), np.nan)
        displacement = np.where(used, sign * sums[:, kernels.SUM_RESID] / information, np.nan)
        outfit = np.where(used, sums[:, kernels.SUM_Z2] / count, np.nan)
        infit = np.where(used, sums[:, kernels.SUM_RESID2] / information, np.nan)
        q_out = np.sqrt(np.maximum(sums[:, kernels.SUM_OUTFIT_VAR] / count**2 - 1.0 / count, 0.0))
        q_in = np.sqrt(np.maximum(sums[:, kernels.SUM_INFIT_VAR], 0.0)) / information
    return FitColumns(
        count=count.astype(np.int64),
        se=se,
        infit_msq=infit,
        infit_zstd=zstd(infit, q_in),
        outfit_msq=outfit,
        outfit_zstd=zstd(outfit, q_out),
        displacement=displacement,
    )


def zstd(mean_square: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Wilson-Hilferty standardization of mean-squares with model SD ``q``.

    ``q`` is capped at :data:`config.ZSTD_MAX_Q`; NaN where q is 0 or undefined.
    """
    q = np.minimum(np.asarray(q, dtype=float), config.ZSTD_MAX_Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.cbrt(mean_square) - 1.0) * (3.0 / q) + q / 3.0
    return np.where(np.isfinite(q) & (q > 0), t, np.nan)


def standardized_residuals(responses: np.ndarray, ability: float, difficulties: np.ndarray) -> dict[str, np.ndarray]:
    """Residual table of one system (paper, Table 1).

    Parameters
    ----------
    responses : int8 (n_questions,) 1/0/-1 of the system.
    ability : the system's measure, logits.
    difficulties : float (n_questions,), logits.

    Returns
    -------
    dict of float arrays (n_questions,): ``p`` (model probability of a right
    answer), ``residual`` (datum - p) and ``z`` (residual / sqrt(p(1-p))); NaN
    where the response is missing.
    """
    x = np.asarray(responses)
    b = np.asarray(difficulties, dtype=float)
    if x.shape != b.shape:
        raise ParameterError(f"{x.shape[0]} responses but {b.shape[0]} difficulties")
    p = 1.0 / (1.0 + np.exp(b - float(ability)))
    observed = x >= 0
    residual = np.where(observed, x - p, np.nan)
    z = residual / np.sqrt(p * (1.0 - p))
    return {"p": p, "residual": residual, "z": z}


@dataclass(frozen=True)
class Separation:
    """How well a facet's measures are told apart (Winsteps' summary table).

    ``sd`` is the observed (population) SD of the measures; ``rmse`` the root
    mean square of their standard errors; ``true_sd`` = sqrt(sd**2 - rmse**2);
    ``separation`` = true_sd / rmse; ``reliability`` = true_sd**2 / sd**2.
    The *model* figures use the model SEs; the *real* ones inflate each SE by
    sqrt(max(1, infit mean-square)), a lower bound on the reliability.
    """

    n: int
    mean: float
    sd: float
    model_rmse: float
    model_separation: float
    model_reliability: float
    real_rmse: float
    real_separation: float
    real_reliability: float

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def separation(measures: np.ndarray, se: np.ndarray, infit_msq: np.ndarray | None = None) -> Separation:
    """Separation and reliability of measures with standard errors (NaNs are skipped)."""
    m = np.asarray(measures, dtype=float)
    s = np.asarray(se, dtype=float)
    keep = np.isfinite(m) & np.isfinite(s)
    m, s = m[keep], s[keep]
    infl = np.ones_like(s)
    if infit_msq is not None:
        infit = np.asarray(infit_msq, dtype=float)[keep]
        infl = np.sqrt(np.maximum(1.0, np.where(np.isfinite(infit), infit, 1.0)))
    if m.size == 0:
        nan = float("nan")
        return Separation(0, nan, nan, nan, nan, nan, nan, nan, nan)
    sd = float(m.std())
    model = _separation_from(sd, float(np.sqrt(np.mean(s**2))))
    real = _separation_from(sd, float(np.sqrt(np.mean((s * infl) ** 2))))
    return Separation(int(m.size), float(m.mean()), sd, *model, *real)


def _separation_from(sd: float, rmse: float) -> tuple[float, float, float]:
    true_var = max(sd * sd - rmse * rmse, 0.0)
    sep = np.sqrt(true_var) / rmse if rmse > 0 else float("inf")
    rel = true_var / (sd * sd) if sd > 0 else float("nan")
    return rmse, float(sep), float(rel)


def _vector(values: np.ndarray, n: int, name: str) -> np.ndarray:
    v = np.ascontiguousarray(values, dtype=np.float64)
    if v.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},), got {v.shape}")
    return v


def _mask(mask: np.ndarray | None, n: int, name: str) -> np.ndarray:
    if mask is None:
        return np.ones(n, dtype=bool)
    m = np.asarray(mask, dtype=bool)
    if m.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},), got {m.shape}")
    return m
