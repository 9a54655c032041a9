"""Responses simulated from the Rasch model, for recovery checks, benchmarks and demos."""

from __future__ import annotations

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.rasch import config
from engine.evaluate.rasch.estimate import RaschFit
from engine.evaluate.rasch.matrix import MISSING, ResponseMatrix


def simulate_responses(
    abilities: np.ndarray,
    difficulties: np.ndarray,
    *,
    rng: np.random.Generator,
    missing_rate: float = 0.0,
) -> ResponseMatrix:
    """Draw x_sq ~ Bernoulli(1 / (1 + exp(Q_q - S_s))).

    Parameters
    ----------
    abilities : float (n_systems,), logits.
    difficulties : float (n_questions,), logits.
    rng : the random generator (pass a seeded one for reproducible data).
    missing_rate : probability that a response is missing, in [0, 1).

    Returns
    -------
    :class:`ResponseMatrix` with ids ``S1..`` and ``Q1..``.
    """
    s = np.asarray(abilities, dtype=float)
    q = np.asarray(difficulties, dtype=float)
    if s.ndim != 1 or q.ndim != 1 or s.size == 0 or q.size == 0:
        raise ParameterError(f"abilities and difficulties must be non-empty 1-D arrays, got {s.shape} and {q.shape}")
    if not (np.isfinite(s).all() and np.isfinite(q).all()):
        raise ParameterError("abilities and difficulties must be finite")
    if not 0.0 <= missing_rate < 1.0:
        raise ParameterError(f"missing_rate must be in [0, 1), got {missing_rate}")
    p = 1.0 / (1.0 + np.exp(q[None, :] - s[:, None]))
    x = (rng.random(p.shape) < p).astype(np.int8)
    if missing_rate > 0:
        x[rng.random(p.shape) < missing_rate] = MISSING
    return ResponseMatrix.from_array(x)


def paper_shaped_measures(n_systems: int, n_questions: int, *, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """True abilities and difficulties shaped like the TREC 2002 QA data of the paper.

    Abilities ~ N(-1.98, 1.1^2) (paper, sections 3.1 and 4); difficulties from a
    two-normal mixture with its mode near -1 logit, mean 0 and most mass between
    -3 and +3 (Figure 4). Returns (abilities (n_systems,), difficulties (n_questions,)).
    """
    if n_systems < 1 or n_questions < 1:
        raise ParameterError(f"need at least one system and one question, got {n_systems} x {n_questions}")
    abilities = rng.normal(config.PAPER_SYSTEM_MEAN, config.PAPER_SYSTEM_SD, n_systems)
    weights = np.array([w for w, _, _ in config.PAPER_QUESTION_MIX])
    part = rng.choice(len(weights), size=n_questions, p=weights / weights.sum())
    means = np.array([m for _, m, _ in config.PAPER_QUESTION_MIX])[part]
    sds = np.array([s for _, _, s in config.PAPER_QUESTION_MIX])[part]
    return abilities, rng.normal(means, sds)


def recovery(fit: RaschFit, truth: np.ndarray, facet: str) -> tuple[float, float, float]:
    """How well ``fit`` recovered the true measures of ``facet`` (``"systems"`` or ``"questions"``).

    ``truth`` : float (n,), logits, one per system or question. Only measured entries count,
    both sides centred (the origin of the scale is arbitrary). Returns the RMSE (logits), the
    Pearson r and the share of errors within ``COVERAGE_Z`` standard errors.
    """
    results = getattr(fit, facet)
    keep = results.measured
    est = results.measure[keep] - results.measure[keep].mean()
    true = truth[keep] - truth[keep].mean()
    err = est - true
    return (float(np.sqrt(np.mean(err**2))), float(np.corrcoef(est, true)[0, 1]),
            float(np.mean(np.abs(err) <= config.COVERAGE_Z * results.se[keep])))
