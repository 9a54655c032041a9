"""Purification: refit without the worst-fitting questions (paper, section 3.5, Figure 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.rasch import config
from engine.evaluate.rasch.errors import EstimationError
from engine.evaluate.rasch.estimate import RaschFit, fit_rasch
from engine.evaluate.rasch.matrix import ResponseMatrix
from engine.jobs import JobReport


@dataclass(frozen=True)
class Purification:
    """Outcome of :func:`purify`.

    Attributes
    ----------
    full : fit with every question.
    purified : fit with the remaining questions.
    dropped : (round, question, outfit mean-square when dropped), in order.
    systems : systems measured (not extreme) in both fits.
    before, after : their abilities in the full and the purified fit, logits.
    correlation : Pearson r of ``before`` and ``after``.
    stopped : why purification stopped early ("" when no question was left above the limit):
        the refit without the next question had no solution, so ``purified`` is the last fit that had one.
    """

    full: RaschFit
    purified: RaschFit
    dropped: tuple[tuple[int, str, float], ...]
    systems: tuple[str, ...]
    before: np.ndarray
    after: np.ndarray
    correlation: float
    stopped: str = ""

    def summary(self) -> dict[str, object]:
        return {
            "questions_before": int(self.full.questions.estimated.sum()),
            "questions_after": int(self.purified.questions.estimated.sum()),
            "dropped": [{"round": r, "question": q, "outfit_msq": o} for r, q, o in self.dropped],
            "systems_compared": len(self.systems),
            "correlation": self.correlation,
            "mean_shift": float(np.mean(self.after - self.before)) if len(self.systems) else None,
            "stopped": self.stopped or None,
        }


def purify(
    matrix: ResponseMatrix,
    *,
    max_outfit: float = config.PURIFY_OUTFIT,
    per_round: int = 1,
    report: JobReport | None = None,
    **fit_options: Any,
) -> Purification:
    """Iteratively drop the questions with the largest outfit above ``max_outfit``.

    Each round refits (starting from the previous measures) and drops the
    ``per_round`` worst questions whose outfit mean-square exceeds
    ``max_outfit``, until none does. ``fit_options`` go to :func:`fit_rasch`
    (not ``start`` or ``report``).

    Progress is reported as (rounds done, rounds done + questions still misfitting).
    """
    if not max_outfit > 0:
        raise ParameterError(f"max_outfit must be > 0, got {max_outfit}")
    if per_round < 1:
        raise ParameterError(f"per_round must be >= 1, got {per_round}")
    report = report or JobReport()
    full = fit_rasch(matrix, **fit_options)
    current = full
    keep = list(matrix.questions)
    dropped: list[tuple[int, str, float]] = []
    rounds = 0
    stopped = ""
    while True:
        q = current.questions
        outfit = np.where(q.measured, q.outfit_msq, -np.inf)
        worst = [int(j) for j in np.argsort(-outfit, kind="stable") if outfit[j] > max_outfit]
        report.progress(rounds, rounds + len(worst))
        report.cancel.raise_if_cancelled()
        if not worst:
            break
        gone = {q.ids[j] for j in worst[:per_round]}
        trial = [k for k in keep if k not in gone]
        try:
            refit = fit_rasch(matrix.subset(questions=trial), start=current, **fit_options)
        except EstimationError as exc:  # e.g. what is left is a Guttman pattern: keep the last solution
            stopped = f"stopped after round {rounds}: without {', '.join(sorted(gone))} {exc}"
            break
        rounds += 1
        dropped += [(rounds, q.ids[j], float(outfit[j])) for j in worst[:per_round]]
        keep, current = trial, refit
    systems, before, after = _common_abilities(full, current)
    r = float(np.corrcoef(before, after)[0, 1]) if len(systems) > 2 else float("nan")
    return Purification(full, current, tuple(dropped), systems, before, after, r, stopped)


def _common_abilities(a: RaschFit, b: RaschFit) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """Systems measured in both fits and their abilities in each."""
    b_pos = {k: i for i, k in enumerate(b.systems.ids)}
    ids, x, y = [], [], []
    for i, k in enumerate(a.systems.ids):
        j = b_pos.get(k)
        if j is not None and a.systems.status[i] == "measured" and b.systems.status[j] == "measured":
            ids.append(k)
            x.append(a.systems.measure[i])
            y.append(b.systems.measure[j])
    return tuple(ids), np.asarray(x), np.asarray(y)
