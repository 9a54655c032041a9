"""Joint maximum likelihood (JMLE) estimation of the binary Rasch model, as Winsteps does it.

P(system s answers question q right) = 1 / (1 + exp(Q_q - S_s))   (paper, eq. 1)

1. Systems and questions with extreme scores (all right or all wrong) have no
   finite estimate; they are removed, and removal repeated until none is left
   (removing one can make another extreme). Every removal is reported.
2. Newton-Raphson sweeps, one parameter at a time: every system given the
   questions, then every question given the systems, until no measure moves
   more than ``convergence_logits`` and no score is further than
   ``convergence_score`` from its expectation.
3. The origin is the mean difficulty of the estimated questions, unless
   questions are anchored (then the anchors fix it).
4. Optionally the (L-1)/L correction of the JMLE bias of the difficulties
   (Wright & Douglas 1977), abilities re-estimated from the corrected ones.
5. Extreme systems and questions are measured afterwards against the others,
   as if 0.3 of a score point had gone the other way (Winsteps' EXTRSC).
6. Model standard errors and fit statistics at the final measures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from engine.errors import ParameterError
from engine.evaluate.rasch import _kernels as kernels
from engine.evaluate.rasch import config
from engine.evaluate.rasch.errors import EstimationError
from engine.evaluate.rasch.fitstats import FitColumns, Separation, fit_columns, separation, standardized_residuals
from engine.evaluate.rasch.matrix import MISSING, ResponseMatrix
from engine.jobs import JobReport

MEASURED = "measured"
ANCHORED = "anchored"
ALL_RIGHT = "all_right"
ALL_WRONG = "all_wrong"
NO_RESPONSES = "no_responses"

#: Statuses whose measure comes from the joint estimation.
ESTIMATED = (MEASURED, ANCHORED)
EXTREME = (ALL_RIGHT, ALL_WRONG)

ORIGINS = ("questions", "systems")


@dataclass(frozen=True)
class Facet:
    """Results for one facet (systems or questions); arrays of shape (n,).

    Attributes
    ----------
    ids : the systems' or questions' ids, in matrix order.
    status : ``measured``, ``anchored`` (questions only), ``all_right``,
        ``all_wrong`` (extreme: measured afterwards with the 0.3 adjustment,
        no fit statistics) or ``no_responses`` (nothing left to measure).
    score, count : right answers and answers over all of its responses.
    measure, se : logits; ability for systems, difficulty for questions.
    infit_msq, infit_zstd, outfit_msq, outfit_zstd, displacement : see
        :class:`engine.evaluate.rasch.fitstats.FitColumns`; NaN unless estimated.
    """

    ids: tuple[str, ...]
    status: tuple[str, ...]
    score: np.ndarray
    count: np.ndarray
    measure: np.ndarray
    se: np.ndarray
    infit_msq: np.ndarray
    infit_zstd: np.ndarray
    outfit_msq: np.ndarray
    outfit_zstd: np.ndarray
    displacement: np.ndarray

    COLUMNS = (
        "status", "score", "count", "measure", "se",
        "infit_msq", "infit_zstd", "outfit_msq", "outfit_zstd", "displacement",
    )

    @property
    def estimated(self) -> np.ndarray:
        """bool (n,): measured or anchored (not extreme, not empty)."""
        return np.array([s in ESTIMATED for s in self.status], dtype=bool)

    @property
    def measured(self) -> np.ndarray:
        """bool (n,): measured freely by the joint estimation."""
        return np.array([s == MEASURED for s in self.status], dtype=bool)

    def index(self, entry_id: str) -> int:
        try:
            return self.ids.index(entry_id)
        except ValueError:
            raise ParameterError(f"no {entry_id!r} among {len(self.ids)} ids") from None

    def records(self, id_name: str) -> list[dict[str, object]]:
        """One dict per entry: ``{id_name: id, "status": ..., "measure": ..., ...}``; NaN as None."""
        out = []
        for i, entry in enumerate(self.ids):
            row: dict[str, object] = {id_name: entry}
            for name in self.COLUMNS:
                row[name] = _plain(getattr(self, name)[i])
            out.append(row)
        return out


@dataclass(frozen=True)
class Removal:
    """One system or question left out of the joint estimation, and why."""

    facet: str  # "system" or "question"
    id: str
    status: str  # all_right, all_wrong or no_responses
    round: int  # 1 = extreme in the data as given; 2+ = after earlier removals


@dataclass(frozen=True)
class MisfitRow:
    """One response of a system in its misfit diagnosis (paper, Table 1)."""

    question: str
    difficulty: float
    datum: int
    p: float
    residual: float
    z: float


@dataclass(frozen=True)
class RaschFit:
    """Measures, errors and fit of one calibration.

    Attributes
    ----------
    matrix : the responses the fit is of.
    systems, questions : per-entry results (:class:`Facet`).
    iterations : Newton sweeps of the joint estimation.
    converged : whether both convergence criteria were met.
    max_change : largest measure change in the last sweep, logits.
    max_residual : largest |observed - expected| score in the last sweep.
    removed : systems and questions removed for extreme scores, in order.
    bias_factor : the (L-1)/L factor applied to the difficulties, or None.
    origin : what fixes the zero of the scale.
    anchors : question id -> anchored difficulty (empty when none).
    """

    matrix: ResponseMatrix
    systems: Facet
    questions: Facet
    iterations: int
    converged: bool
    max_change: float
    max_residual: float
    removed: tuple[Removal, ...]
    bias_factor: float | None
    origin: str
    anchors: Mapping[str, float] = field(default_factory=dict)

    def system_separation(self) -> Separation:
        e = self.systems.estimated
        return separation(self.systems.measure[e], self.systems.se[e], self.systems.infit_msq[e])

    def question_separation(self) -> Separation:
        e = self.questions.estimated
        return separation(self.questions.measure[e], self.questions.se[e], self.questions.infit_msq[e])

    def ability(self, system: str) -> float:
        return float(self.systems.measure[self.systems.index(system)])

    def difficulty(self, question: str) -> float:
        return float(self.questions.measure[self.questions.index(question)])

    def misfit(self, system: str, *, min_abs_z: float = config.MISFIT_Z, limit: int | None = None) -> list[MisfitRow]:
        """Responses of ``system`` with |z| >= ``min_abs_z``, most unexpected first (paper, Table 1).

        Uses the system's measure (extreme-adjusted if extreme) and the
        difficulties of the estimated questions.
        """
        if min_abs_z < 0:
            raise ParameterError(f"min_abs_z must be >= 0, got {min_abs_z}")
        i = self.matrix.system_index(system)
        ability = self.systems.measure[i]
        if not np.isfinite(ability):
            raise ParameterError(f"system {system!r} has no measure (status {self.systems.status[i]})")
        cols = np.flatnonzero(self.questions.estimated & (self.matrix.responses[i] != MISSING))
        x = self.matrix.responses[i, cols]
        b = self.questions.measure[cols]
        table = standardized_residuals(x, ability, b)
        order = np.argsort(-np.abs(table["z"]), kind="stable")
        rows = []
        for k in order:
            z = float(table["z"][k])
            if abs(z) < min_abs_z:
                break
            j = int(cols[k])
            rows.append(MisfitRow(self.matrix.questions[j], float(b[k]), int(x[k]), float(table["p"][k]),
                                  float(table["residual"][k]), z))
            if limit is not None and len(rows) >= limit:
                break
        return rows

    def unexpected(self, *, min_abs_z: float = config.UNEXPECTED_Z) -> list[dict[str, object]]:
        """Every response of an estimated system to an estimated question with |z| >= ``min_abs_z``.

        Records ``system, question, ability, difficulty, datum, p, z``, most
        unexpected first (Winsteps' table of unexpected responses).
        """
        rows = np.flatnonzero(self.systems.estimated)
        cols = np.flatnonzero(self.questions.estimated)
        b = self.questions.measure[cols]
        hits: list[tuple[float, int, int, float, int]] = []
        chunk = max(1, 1_000_000 // max(1, cols.size))
        for start in range(0, rows.size, chunk):
            r = rows[start:start + chunk]
            x = self.matrix.responses[np.ix_(r, cols)]
            p = 1.0 / (1.0 + np.exp(b[None, :] - self.systems.measure[r][:, None]))
            with np.errstate(invalid="ignore"):
                z = np.where(x != MISSING, (x - p) / np.sqrt(p * (1.0 - p)), 0.0)
            for i, j in zip(*np.nonzero(np.abs(z) >= min_abs_z), strict=True):
                hits.append((float(z[i, j]), int(r[i]), int(cols[j]), float(p[i, j]), int(x[i, j])))
        hits.sort(key=lambda h: -abs(h[0]))
        return [
            {"system": self.matrix.systems[i], "question": self.matrix.questions[j],
             "ability": float(self.systems.measure[i]), "difficulty": float(self.questions.measure[j]),
             "datum": datum, "p": p, "z": z}
            for z, i, j, p, datum in hits
        ]

    def summary(self) -> dict[str, object]:
        """Plain-data summary (counts, convergence, separation, removals) for JSON."""
        sys_sep, q_sep = self.system_separation(), self.question_separation()
        return {
            "source": self.matrix.source,
            "systems": self.matrix.n_systems,
            "questions": self.matrix.n_questions,
            "responses": int(self.matrix.observed.sum()),
            "missing": int((~self.matrix.observed).sum()),
            "systems_estimated": int(self.systems.estimated.sum()),
            "questions_estimated": int(self.questions.estimated.sum()),
            "questions_anchored": len(self.anchors),
            "iterations": self.iterations,
            "converged": self.converged,
            "max_change_logits": self.max_change,
            "max_score_residual": self.max_residual,
            "origin": self.origin,
            "bias_factor": self.bias_factor,
            "mean_system_measure": _plain(np.nanmean(self.systems.measure[self.systems.estimated])),
            "mean_question_measure": _plain(np.nanmean(self.questions.measure[self.questions.estimated])),
            "system_separation": {k: _plain(v) for k, v in sys_sep.as_dict().items()},
            "question_separation": {k: _plain(v) for k, v in q_sep.as_dict().items()},
            "removed": [r.__dict__ for r in self.removed],
        }


def fit_rasch(
    matrix: ResponseMatrix,
    *,
    anchors: Mapping[str, float] | None = None,
    bias_correction: bool = False,
    origin: str = "questions",
    convergence_logits: float = config.CONVERGENCE_LOGITS,
    convergence_score: float = config.CONVERGENCE_SCORE,
    max_iterations: int = config.MAX_ITERATIONS,
    start: RaschFit | None = None,
    report: JobReport | None = None,
) -> RaschFit:
    """Estimate abilities and difficulties of a binary response matrix by JMLE.

    Parameters
    ----------
    matrix : the responses (missing responses allowed).
    anchors : question id -> difficulty in logits, held fixed (equating to an
        earlier calibration); every id must be a question of ``matrix``.
        With anchors, they fix the origin.
    bias_correction : multiply the difficulties by (L-1)/L, L the mean number
        of responses per system, and re-estimate abilities (not with anchors).
    origin : ``"questions"`` (mean estimated difficulty 0, the default) or
        ``"systems"`` (mean estimated ability 0). Ignored with anchors.
    convergence_logits, convergence_score : stop when the largest change is at
        most this many logits and the largest score residual at most this.
    max_iterations : sweeps before giving up (``converged`` is then False).
    start : an earlier fit whose measures (matched by id) start the iterations.
    report : progress (sweeps done, ``max_iterations``) and cancel flag.

    Raises
    ------
    ParameterError : bad arguments.
    EstimationError : nothing measurable, unconnected subsets, or divergence.
    """
    report = report or JobReport()
    anchor_vec = _anchor_vector(matrix, anchors or {})
    _check_settings(origin, convergence_logits, convergence_score, max_iterations)
    anchored = np.isfinite(anchor_vec)
    if bias_correction and anchored.any():
        raise ParameterError("bias correction cannot be combined with anchored questions (the anchors fix the scale)")

    x = matrix.responses
    row_status, col_status, removed = trim_extremes(matrix, anchored)
    row_state = np.where(row_status == MEASURED, kernels.FREE, kernels.OFF).astype(np.int8)
    col_state = np.select([col_status == ANCHORED, col_status == MEASURED], [kernels.FIXED, kernels.FREE],
                          kernels.OFF).astype(np.int8)
    if not (row_state == kernels.FREE).any():
        raise EstimationError(f"{_name(matrix)}: no system has a score between none and all right; nothing to measure")
    if not (col_state != kernels.OFF).any():
        raise EstimationError(f"{_name(matrix)}: every question is answered all right or all wrong; nothing to measure")
    _check_connected(matrix, row_state, col_state)

    row_score, col_score = _scores(x, row_state, col_state)
    theta, b = _start_values(x, row_state, col_state, row_score, col_score, anchor_vec, start, matrix)
    center = not anchored.any()
    existence = None if anchored.any() else lambda: _check_estimable(matrix, row_state, col_state)
    result = _iterate(
        matrix, row_score, col_score, row_state, col_state, theta, b,
        center=center, tol_logits=convergence_logits, tol_score=convergence_score,
        max_iterations=max_iterations, report=report, when_slow=existence,
    )
    iterations, converged, max_change, max_residual = result
    if not converged and existence is not None:
        existence()

    bias_factor = None
    if bias_correction:
        bias_factor = _correct_bias(matrix, row_score, col_score, row_state, col_state, theta, b,
                                    convergence_logits, convergence_score, max_iterations)
    if center and origin == "systems":
        shift = theta[row_state == kernels.FREE].mean()
        theta -= shift
        b -= shift

    _measure_extremes(matrix, row_status, col_status, row_state, col_state, theta, b,
                      convergence_logits, convergence_score, max_iterations)
    systems, questions = _facets(matrix, row_status, col_status, row_state, col_state, theta, b)
    origin_text = (
        "anchored questions" if not center
        else "mean system ability = 0" if origin == "systems"
        else "mean question difficulty = 0"
    )
    anchor_map = {matrix.questions[j]: float(anchor_vec[j]) for j in np.flatnonzero(anchored)}
    return RaschFit(matrix, systems, questions, iterations, converged, max_change, max_residual,
                    tuple(removed), bias_factor, origin_text, anchor_map)


def trim_extremes(matrix: ResponseMatrix, anchored: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[Removal]]:
    """Remove systems and non-anchored questions with extreme scores until none is left.

    Returns (system status, question status) as object arrays of status
    strings, and the removals in order. Anchored questions stay in whatever
    their score: their difficulty is known.
    """
    x = matrix.responses
    observed = x != MISSING
    right = x == 1
    row_on = observed.any(axis=1)
    col_on = observed.any(axis=0)
    row_status = np.where(row_on, MEASURED, NO_RESPONSES).astype(object)
    col_status = np.where(col_on, np.where(anchored, ANCHORED, MEASURED), NO_RESPONSES).astype(object)
    removed: list[Removal] = []
    for r in np.flatnonzero(~row_on):
        removed.append(Removal("system", matrix.systems[r], NO_RESPONSES, 1))
    for c in np.flatnonzero(~col_on):
        removed.append(Removal("question", matrix.questions[c], NO_RESPONSES, 1))
    rounds = 0
    while True:
        rounds += 1
        changed = False
        count = np.count_nonzero(observed & col_on, axis=1)
        score = np.count_nonzero(right & col_on, axis=1)
        for r in np.flatnonzero(row_on & ((score == 0) | (score == count))):
            status = NO_RESPONSES if count[r] == 0 else ALL_WRONG if score[r] == 0 else ALL_RIGHT
            row_status[r] = status
            row_on[r] = False
            removed.append(Removal("system", matrix.systems[r], status, rounds))
            changed = True
        count = np.count_nonzero(observed & row_on[:, None], axis=0)
        score = np.count_nonzero(right & row_on[:, None], axis=0)
        extreme = col_on & ~anchored & ((score == 0) | (score == count))
        for c in np.flatnonzero(extreme):
            status = NO_RESPONSES if count[c] == 0 else ALL_WRONG if score[c] == 0 else ALL_RIGHT
            col_status[c] = status
            col_on[c] = False
            removed.append(Removal("question", matrix.questions[c], status, rounds))
            changed = True
        if not changed:
            return row_status, col_status, removed


def _iterate(matrix, row_score, col_score, row_state, col_state, theta, b, *, center, tol_logits, tol_score,
             max_iterations, report, when_slow=None):
    """Newton sweeps until converged; recentres on the free difficulties when ``center``.

    ``when_slow`` is called once if :data:`config.EXISTENCE_CHECK_SWEEP` sweeps pass unconverged.
    """
    free_rows = row_state == kernels.FREE
    free_cols = col_state == kernels.FREE
    max_change = max_residual = float("inf")
    for sweep in range(1, max_iterations + 1):
        max_change, max_residual = kernels._jmle_sweep(
            matrix.responses, row_score, col_score, row_state, col_state, theta, b, config.MAX_NEWTON_STEP
        )
        if center and free_cols.any():
            shift = b[free_cols].mean()
            b[free_cols] -= shift
            theta[free_rows] -= shift
        _check_divergence(matrix, theta, b, free_rows, free_cols, sweep)
        report.progress(sweep, max_iterations)
        report.cancel.raise_if_cancelled()
        if max_change <= tol_logits and max_residual <= tol_score:
            return sweep, True, float(max_change), float(max_residual)
        if sweep == config.EXISTENCE_CHECK_SWEEP and when_slow is not None:
            when_slow()
    return max_iterations, False, float(max_change), float(max_residual)


def _correct_bias(matrix, row_score, col_score, row_state, col_state, theta, b, tol_l, tol_s, max_it) -> float:
    """Scale free difficulties by (L-1)/L and re-estimate abilities given them."""
    free_rows = row_state == kernels.FREE
    free_cols = col_state == kernels.FREE
    used = (matrix.responses[free_rows] != MISSING) & (col_state != kernels.OFF)
    length = float(used.sum(axis=1).mean())
    factor = (length - 1.0) / length
    b[free_cols] *= factor
    fixed_cols = np.where(free_cols, kernels.FIXED, col_state).astype(np.int8)
    _iterate(matrix, row_score, col_score, row_state, fixed_cols, theta, b, center=False,
             tol_logits=tol_l, tol_score=tol_s, max_iterations=max_it, report=JobReport())
    return factor


def _measure_extremes(matrix, row_status, col_status, row_state, col_state, theta, b, tol_l, tol_s, max_it) -> None:
    """Measure extreme systems/questions against the estimated others, score adjusted by 0.3."""
    x = matrix.responses
    observed = x != MISSING
    adjust = config.EXTREME_SCORE_ADJUSTMENT
    estimated_cols = col_state != kernels.OFF
    estimated_rows = row_state != kernels.OFF
    quiet = JobReport()

    ext_rows = np.isin(row_status, EXTREME)
    if ext_rows.any():
        count = np.count_nonzero(observed & estimated_cols, axis=1).astype(float)
        target = np.where(row_status == ALL_RIGHT, count - adjust, adjust)
        state = np.where(ext_rows & (count > 0), kernels.FREE, kernels.OFF).astype(np.int8)
        fixed = np.where(estimated_cols, kernels.FIXED, kernels.OFF).astype(np.int8)
        mean_b = b[estimated_cols].mean()
        theta[ext_rows] = mean_b + np.where(row_status[ext_rows] == ALL_RIGHT, 3.0, -3.0)
        _iterate(matrix, target, np.zeros(len(b)), state, fixed, theta, b, center=False,
                 tol_logits=tol_l, tol_score=tol_s, max_iterations=max_it, report=quiet)
        theta[ext_rows & (count == 0)] = np.nan
    ext_cols = np.isin(col_status, EXTREME)
    if ext_cols.any():
        count = np.count_nonzero(observed & estimated_rows[:, None], axis=0).astype(float)
        target = np.where(col_status == ALL_RIGHT, count - adjust, adjust)
        state = np.where(ext_cols & (count > 0), kernels.FREE, kernels.OFF).astype(np.int8)
        fixed = np.where(estimated_rows, kernels.FIXED, kernels.OFF).astype(np.int8)
        mean_t = theta[estimated_rows].mean()
        b[ext_cols] = mean_t + np.where(col_status[ext_cols] == ALL_RIGHT, -3.0, 3.0)
        _iterate(matrix, np.zeros(len(theta)), target, fixed, state, theta, b, center=False,
                 tol_logits=tol_l, tol_score=tol_s, max_iterations=max_it, report=quiet)
        b[ext_cols & (count == 0)] = np.nan
    theta[np.asarray(row_status == NO_RESPONSES, dtype=bool)] = np.nan
    b[np.asarray(col_status == NO_RESPONSES, dtype=bool)] = np.nan


def _facets(matrix, row_status, col_status, row_state, col_state, theta, b) -> tuple[Facet, Facet]:
    """Standard errors and fit at the final measures, assembled per facet."""
    x = matrix.responses
    floor = config.OUTFIT_VARIANCE_FLOOR_SQUARED
    rows_on = (row_state != kernels.OFF).astype(np.int8)
    cols_on = (col_state != kernels.OFF).astype(np.int8)
    row_sums, col_sums = kernels._fit_sums(x, rows_on, cols_on, theta, b, floor)
    sys_fit = fit_columns(row_sums, sign=1.0)
    q_fit = fit_columns(col_sums, sign=-1.0)
    sys_se = sys_fit.se.copy()
    q_se = q_fit.se.copy()
    ext_rows = np.isin(row_status, EXTREME) & np.isfinite(theta)
    if ext_rows.any():
        sums, _ = kernels._fit_sums(x, ext_rows.astype(np.int8), cols_on, np.nan_to_num(theta), b, floor)
        sys_se[ext_rows] = fit_columns(sums, sign=1.0).se[ext_rows]
    ext_cols = np.isin(col_status, EXTREME) & np.isfinite(b)
    if ext_cols.any():
        _, sums = kernels._fit_sums(x, rows_on, ext_cols.astype(np.int8), theta, np.nan_to_num(b), floor)
        q_se[ext_cols] = fit_columns(sums, sign=-1.0).se[ext_cols]
    sys_score, sys_count = matrix.system_scores()
    q_score, q_count = matrix.question_scores()
    return (
        _facet(matrix.systems, row_status, sys_score, sys_count, theta, sys_se, sys_fit),
        _facet(matrix.questions, col_status, q_score, q_count, b, q_se, q_fit),
    )


def _facet(ids, status, score, count, measure, se, fit: FitColumns) -> Facet:
    return Facet(
        ids=ids, status=tuple(str(s) for s in status), score=score, count=count,
        measure=measure.copy(), se=se,
        infit_msq=fit.infit_msq, infit_zstd=fit.infit_zstd,
        outfit_msq=fit.outfit_msq, outfit_zstd=fit.outfit_zstd,
        displacement=fit.displacement,
    )


def _scores(x, row_state, col_state) -> tuple[np.ndarray, np.ndarray]:
    right = x == 1
    row_score = np.count_nonzero(right & (col_state != kernels.OFF), axis=1).astype(np.float64)
    col_score = np.count_nonzero(right & (row_state != kernels.OFF)[:, None], axis=0).astype(np.float64)
    return row_score, col_score


def _start_values(x, row_state, col_state, row_score, col_score, anchor_vec, start, matrix):
    """Log-odds of the scores (PROX-like), shifted onto the anchors; or an earlier fit's measures."""
    observed = x != MISSING
    row_count = np.count_nonzero(observed & (col_state != kernels.OFF), axis=1).astype(float)
    col_count = np.count_nonzero(observed & (row_state != kernels.OFF)[:, None], axis=0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.log((row_score + 0.5) / (row_count - row_score + 0.5))
        b = np.log((col_count - col_score + 0.5) / (col_score + 0.5))
    theta = np.where(np.isfinite(theta), theta, 0.0)
    b = np.where(np.isfinite(b), b, 0.0)
    free_cols = col_state == kernels.FREE
    fixed_cols = col_state == kernels.FIXED
    if fixed_cols.any():
        shift = anchor_vec[fixed_cols].mean() - b[fixed_cols].mean()
        b[fixed_cols] = anchor_vec[fixed_cols]
    else:
        shift = -b[free_cols].mean()
    b[free_cols] += shift
    theta += shift
    if start is not None:
        _take_start(start.systems, matrix.systems, theta, row_state == kernels.FREE)
        _take_start(start.questions, matrix.questions, b, free_cols)
    return np.ascontiguousarray(theta), np.ascontiguousarray(b)


def _take_start(facet: Facet, ids: tuple[str, ...], values: np.ndarray, free: np.ndarray) -> None:
    position = {k: i for i, k in enumerate(facet.ids)}
    for j, k in enumerate(ids):
        i = position.get(k)
        if free[j] and i is not None and facet.status[i] in ESTIMATED and np.isfinite(facet.measure[i]):
            values[j] = facet.measure[i]


def _anchor_vector(matrix: ResponseMatrix, anchors: Mapping[str, float]) -> np.ndarray:
    vec = np.full(matrix.n_questions, np.nan)
    position = {q: j for j, q in enumerate(matrix.questions)}
    unknown = [q for q in anchors if q not in position]
    if unknown:
        shown = ", ".join(repr(q) for q in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ParameterError(f"{len(unknown)} anchored question(s) are not in {_name(matrix)}: {shown}")
    for q, value in anchors.items():
        v = float(value)
        if not np.isfinite(v) or abs(v) > config.DIVERGENCE_LOGITS:
            raise ParameterError(f"anchor of question {q!r} is {value!r}; expected a finite difficulty in logits")
        vec[position[q]] = v
    return vec


def _check_settings(origin: str, tol_l: float, tol_s: float, max_it: int) -> None:
    if origin not in ORIGINS:
        raise ParameterError(f"origin must be one of {ORIGINS}, got {origin!r}")
    if not (tol_l > 0 and tol_s > 0):
        raise ParameterError(f"convergence criteria must be > 0, got {tol_l} logits and {tol_s} score points")
    if int(max_it) < 1:
        raise ParameterError(f"max_iterations must be >= 1, got {max_it}")


def _check_divergence(matrix, theta, b, free_rows, free_cols, sweep) -> None:
    limit = config.DIVERGENCE_LOGITS
    t = np.abs(theta[free_rows]) if free_rows.any() else np.zeros(1)
    d = np.abs(b[free_cols]) if free_cols.any() else np.zeros(1)
    if t.max() <= limit and d.max() <= limit:
        return
    if t.max() >= d.max():
        what = f"system {matrix.systems[np.flatnonzero(free_rows)[int(t.argmax())]]!r}"
    else:
        what = f"question {matrix.questions[np.flatnonzero(free_cols)[int(d.argmax())]]!r}"
    raise EstimationError(
        f"{_name(matrix)}: estimates run past {limit:g} logits after {sweep} sweeps ({what}); "
        "the responses admit no finite measures (e.g. a perfect Guttman pattern, where every "
        "better system answers every question a worse one does)"
    )


def _check_connected(matrix: ResponseMatrix, row_state: np.ndarray, col_state: np.ndarray) -> None:
    """Refuse data that fall into unconnected subsets unless each subset holds an anchor."""
    if not (matrix.responses == MISSING).any():
        return
    rows = np.flatnonzero(row_state != kernels.OFF)
    cols = np.flatnonzero(col_state != kernels.OFF)
    sub = matrix.responses[np.ix_(rows, cols)]
    if (sub != MISSING).all():
        return

    r, c = np.nonzero(sub != MISSING)
    n_r, n_c = len(rows), len(cols)
    graph = coo_matrix((np.ones(len(r), dtype=np.int8), (r, n_r + c)), shape=(n_r + n_c, n_r + n_c))
    n_parts, label = connected_components(graph, directed=False)
    if n_parts == 1:
        return
    col_label = label[n_r:]
    fixed = col_state[cols] == kernels.FIXED
    if fixed.any() and all(fixed[col_label == p].any() for p in range(n_parts)):
        return
    examples = []
    for p in range(min(n_parts, 3)):
        s = [matrix.systems[rows[i]] for i in np.flatnonzero(label[:n_r] == p)[:2]]
        examples.append("{" + ", ".join(repr(k) for k in s) + (" ..." if (label[:n_r] == p).sum() > 2 else "") + "}")
    raise EstimationError(
        f"{_name(matrix)}: the responses fall into {n_parts} unconnected subsets of systems "
        f"({'; '.join(examples)}{' ...' if n_parts > 3 else ''}) that share no question; their measures "
        "cannot be put on one scale. Add common questions, or anchor questions in every subset"
    )


def _check_estimable(matrix: ResponseMatrix, row_state: np.ndarray, col_state: np.ndarray) -> None:
    """Raise unless finite JMLE estimates exist.

    They exist iff the directed graph with an edge system -> question for each
    right answer and question -> system for each wrong one is strongly
    connected (Haberman 1977; Fischer 1981): otherwise some group of questions
    is answered right only by systems that answered every question of another
    group right, and the two groups drift apart without end.
    """

    rows = np.flatnonzero(row_state != kernels.OFF)
    cols = np.flatnonzero(col_state != kernels.OFF)
    sub = matrix.responses[np.ix_(rows, cols)]
    n_r, n_c = len(rows), len(cols)
    r1, c1 = np.nonzero(sub == 1)
    r0, c0 = np.nonzero(sub == 0)
    src = np.concatenate([r1, n_r + c0])
    dst = np.concatenate([n_r + c1, r0])
    graph = coo_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n_r + n_c, n_r + n_c))
    n_parts, label = connected_components(graph, directed=True, connection="strong")
    if n_parts == 1:
        return
    col_label = label[n_r:]
    sizes = np.bincount(col_label, minlength=n_parts)
    small = int(np.argmin(np.where(sizes > 0, sizes, np.iinfo(np.int64).max)))
    members = [matrix.questions[cols[j]] for j in np.flatnonzero(col_label == small)]
    shown = ", ".join(repr(q) for q in members[:4]) + (" ..." if len(members) > 4 else "")
    raise EstimationError(
        f"{_name(matrix)}: the responses admit no finite measures: questions {shown} are separated from the rest "
        "(the systems that answer one group right answer every question of another group right, a Guttman-like "
        "pattern), so the estimates drift apart without end. Add responses that cross the groups, or drop them"
    )


def _name(matrix: ResponseMatrix) -> str:
    return matrix.source or "the response matrix"


def _plain(v: object) -> object:
    """NumPy scalars to Python; NaN to None (for JSON)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v
