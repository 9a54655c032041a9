"""Test equating with anchor questions, and the paper's equating simulation (section 4).

Equating itself is :func:`engine.evaluate.rasch.estimate.fit_rasch` with ``anchors``:
the anchored questions keep the difficulties of an earlier calibration, and
everything else is estimated on that scale. This module adds

- :func:`anchor_check`: how far each anchor would sit if estimated freely on
  the new data (after the free scale is shifted onto the anchors);
- :func:`equate_simulation`: split one calibration's questions into an Easy
  and a Hard half, calibrate the Easy test, carry 20/30/50 Easy questions into
  the Hard test as anchors, and compare the systems' Rasch measures and raw
  scores across the two tests (paper, Table 2 and Figure 6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from engine.errors import ParameterError
from engine.evaluate.rasch import config
from engine.evaluate.rasch.estimate import RaschFit, fit_rasch
from engine.evaluate.rasch.matrix import ResponseMatrix
from engine.jobs import JobReport

SELECTIONS = ("spread", "hardest")


def anchor_check(matrix: ResponseMatrix, anchors: Mapping[str, float], *, free: RaschFit | None = None) -> list[dict]:
    """Compare anchored difficulties with a free calibration of ``matrix``.

    The free difficulties are shifted by the mean (anchor - free) over the
    anchors they measure, so only disagreements in spacing remain. Returns one
    record per anchored question: ``question, anchor, free, difference, se, z``
    (``z`` = difference / free SE); ``free`` etc. are None for anchors the free
    fit could not measure. ``free`` may pass an existing unanchored fit.
    """
    free = free or fit_rasch(matrix)
    pos = {q: j for j, q in enumerate(free.questions.ids)}
    measured = [q for q in anchors if q in pos and free.questions.status[pos[q]] == "measured"]
    shift = float(np.mean([anchors[q] - free.questions.measure[pos[q]] for q in measured])) if measured else 0.0
    out = []
    for q, value in anchors.items():
        rec: dict[str, object] = {"question": q, "anchor": float(value), "free": None, "difference": None,
                                  "se": None, "z": None}
        if q in measured:
            j = pos[q]
            est = float(free.questions.measure[j]) + shift
            se = float(free.questions.se[j])
            rec.update(free=est, difference=est - float(value), se=se, z=(est - float(value)) / se)
        out.append(rec)
    return out


@dataclass(frozen=True)
class EquatingRun:
    """One equating-set size of the simulation.

    Attributes
    ----------
    size : number of equating (anchor) questions.
    equating : their ids.
    systems : systems measured (not extreme) on both tests.
    rasch_easy, rasch_hard : their abilities from the Easy test and from the
        Hard + equating test (anchored), logits.
    raw_easy, raw_hard : their number right on the Easy test and on the Hard +
        equating test.
    """

    size: int
    equating: tuple[str, ...]
    systems: tuple[str, ...]
    rasch_easy: np.ndarray
    rasch_hard: np.ndarray
    raw_easy: np.ndarray
    raw_hard: np.ndarray

    def statistics(self) -> dict[str, object]:
        """Table 2 figures (means, SDs, r) for Rasch and raw scores, plus trend fits."""
        return {
            "size": self.size,
            "systems": len(self.systems),
            "rasch": _describe(self.rasch_easy, self.rasch_hard),
            "raw": _describe(self.raw_easy, self.raw_hard),
            "rasch_line": _line(self.rasch_easy, self.rasch_hard),
            "raw_quadratic": quadratic_trend(self.raw_easy, self.raw_hard),
        }


@dataclass(frozen=True)
class EquatingSimulation:
    """Outcome of :func:`equate_simulation`."""

    full: RaschFit
    easy: tuple[str, ...]
    hard: tuple[str, ...]
    easy_fit: RaschFit
    runs: tuple[EquatingRun, ...]

    def table(self) -> list[dict[str, object]]:
        """Rows of the paper's Table 2: one Rasch and one raw-score row per size."""
        rows = []
        for run in self.runs:
            s = run.statistics()
            for index in ("rasch", "raw"):
                d = s[index]
                assert isinstance(d, dict)
                rows.append({"size": run.size, "index": "Rasch" if index == "rasch" else "# correct",
                             "systems": len(run.systems), **d})
        return rows


def equate_simulation(
    matrix: ResponseMatrix,
    *,
    sizes: Sequence[int] = config.EQUATING_SIZES,
    selection: str = "spread",
    max_outfit: float = config.PURIFY_OUTFIT,
    report: JobReport | None = None,
) -> EquatingSimulation:
    """Run the equating simulation of the paper's section 4 on one response matrix.

    1. Calibrate all questions; the easier half (by difficulty) is the Easy
       test, the rest the Hard test.
    2. Calibrate the Easy test alone.
    3. For each size k: pick k Easy questions with outfit <= ``max_outfit``
       (``selection="spread"``: evenly over their difficulty range;
       ``"hardest"``: the k hardest), anchor them at their Easy difficulties
       and calibrate Hard + equating questions.
    4. Compare each system's ability and raw score on the two tests.

    Progress is reported as (calibrations done, total).
    """
    if selection not in SELECTIONS:
        raise ParameterError(f"selection must be one of {SELECTIONS}, got {selection!r}")
    sizes = [int(k) for k in sizes]
    if not sizes or min(sizes) < 1:
        raise ParameterError(f"equating set sizes must be >= 1, got {sizes}")
    report = report or JobReport()
    total = 2 + len(sizes)
    full = fit_rasch(matrix)
    report.progress(1, total)
    est = np.flatnonzero(full.questions.measured)
    order = est[np.argsort(full.questions.measure[est], kind="stable")]
    half = len(order) // 2
    easy = tuple(full.questions.ids[j] for j in order[:half])
    hard = tuple(full.questions.ids[j] for j in order[half:])
    if max(sizes) >= len(easy):
        raise ParameterError(
            f"an equating set of {max(sizes)} questions needs more Easy questions than the {len(easy)} "
            f"there are ({len(order)} measurable questions in {matrix.source or 'the matrix'}); pass smaller sizes"
        )
    easy_fit = fit_rasch(matrix.subset(questions=easy))
    report.progress(2, total)
    runs = []
    for done, size in enumerate(sizes, start=3):
        report.cancel.raise_if_cancelled()
        equating = _pick_equating(easy_fit, size, selection, max_outfit)
        anchors = {q: easy_fit.difficulty(q) for q in equating}
        hard_fit = fit_rasch(matrix.subset(questions=list(hard) + list(equating)), anchors=anchors)
        runs.append(_compare(matrix, easy_fit, hard_fit, size, equating, easy, list(hard) + list(equating)))
        report.progress(done, total)
    return EquatingSimulation(full, easy, hard, easy_fit, tuple(runs))


def _pick_equating(easy_fit: RaschFit, size: int, selection: str, max_outfit: float) -> tuple[str, ...]:
    q = easy_fit.questions
    measured = np.flatnonzero(q.measured)
    if size > measured.size:
        raise ParameterError(f"only {measured.size} Easy questions are measurable; cannot pick {size} equating questions")
    fitting = measured[q.outfit_msq[measured] <= max_outfit]
    if fitting.size < size:
        raise ParameterError(
            f"only {fitting.size} Easy questions have outfit <= {max_outfit:g}; cannot pick {size} equating "
            "questions (raise --max-outfit or pass smaller --sizes)"
        )
    by_difficulty = fitting[np.argsort(q.measure[fitting], kind="stable")]
    if selection == "hardest":
        chosen = by_difficulty[-size:]
    else:
        chosen = by_difficulty[np.unique(np.round(np.linspace(0, by_difficulty.size - 1, size)).astype(int))]
    return tuple(q.ids[j] for j in chosen)


def _compare(matrix, easy_fit, hard_fit, size, equating, easy_ids, hard_ids) -> EquatingRun:
    e_pos = {k: i for i, k in enumerate(easy_fit.systems.ids)}
    h_pos = {k: i for i, k in enumerate(hard_fit.systems.ids)}
    easy_cols = [matrix.questions.index(q) for q in easy_ids]
    hard_cols = [matrix.questions.index(q) for q in hard_ids]
    right = matrix.responses == 1
    ids, re, rh, we, wh = [], [], [], [], []
    for i, k in enumerate(matrix.systems):
        a, b = e_pos.get(k), h_pos.get(k)
        if a is None or b is None:
            continue
        if easy_fit.systems.status[a] != "measured" or hard_fit.systems.status[b] != "measured":
            continue
        ids.append(k)
        re.append(easy_fit.systems.measure[a])
        rh.append(hard_fit.systems.measure[b])
        we.append(int(right[i, easy_cols].sum()))
        wh.append(int(right[i, hard_cols].sum()))
    if len(ids) < 4:
        raise ParameterError(f"only {len(ids)} systems are measurable on both tests; the comparison needs 4 or more")
    return EquatingRun(size, tuple(equating), tuple(ids), np.asarray(re), np.asarray(rh),
                       np.asarray(we, dtype=float), np.asarray(wh, dtype=float))


def _describe(easy: np.ndarray, hard: np.ndarray) -> dict[str, float]:
    return {
        "mean_easy": float(easy.mean()), "sd_easy": float(easy.std(ddof=1)),
        "mean_hard": float(hard.mean()), "sd_hard": float(hard.std(ddof=1)),
        "r": float(np.corrcoef(easy, hard)[0, 1]),
    }


def _line(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    slope, intercept = np.polyfit(x, y, 1)
    return {"intercept": float(intercept), "slope": float(slope)}


def quadratic_trend(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Least-squares y = a + b x + c x**2 and the t test of c (paper: t_quad).

    Returns intercept, linear, quadratic, t, p (two-sided) and df.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.size < 4:
        raise ParameterError(f"a quadratic trend needs at least 4 points, got {x.size}")
    design = np.column_stack([np.ones_like(x), x, x * x])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    df = x.size - 3
    rss = float(np.sum((y - design @ beta) ** 2))
    cov = rss / df * np.linalg.pinv(design.T @ design)
    se = float(np.sqrt(cov[2, 2]))
    t = float(beta[2] / se) if se > 0 else float("inf")

    p = float(2.0 * stats.t.sf(abs(t), df))
    return {"intercept": float(beta[0]), "linear": float(beta[1]), "quadratic": float(beta[2]),
            "t": t, "p": p, "df": float(df)}
