"""``earshot rasch ...``: Rasch measurement of systems and questions from a response matrix.

Subcommands: ``fit`` (calibrate, tables and Figures 2-4, 6 with anchors),
``misfit`` (Table 1 for one system), ``purify`` (Figure 5), ``equate-sim``
(section 4, Table 2 and Figure 6), ``hits`` (matrix from ranked runs) and
``simulate`` (paper-shaped synthetic matrix).
"""

from __future__ import annotations

import argparse
import logging
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.cli.common import command_group, non_negative_int, positive_int
from engine.errors import ParameterError
from engine.evaluate.rasch import (
    anchor_check,
    config,
    equate_simulation,
    fit_rasch,
    hits_matrix,
    paper_shaped_measures,
    purify,
    read_anchors,
    read_matrix,
    read_qrels,
    read_trec_run,
    simulate_responses,
    write_matrix,
)
from engine.evaluate.rasch.errors import MatrixFileError
from engine.evaluate.rasch.files import write_json
from engine.evaluate.rasch.report import write_equating, write_fit, write_purification

log = logging.getLogger("earshot.rasch")


def register(subparsers: argparse._SubParsersAction) -> None:
    _, actions = command_group(
        subparsers, "rasch", "rasch_command", "ACTION", help="compare systems and questions on a Rasch logit scale",
        description="Rasch measurement of systems (rows) and questions (columns) of a 1/0/blank response matrix "
                    "(CSV or TSV; wide, or long with columns system, question, correct).",
    )

    p = actions.add_parser("fit", help="calibrate: measures, SEs, fit, separation; tables and figures")
    _matrix_args(p)
    p.add_argument("--anchors", metavar="FILE", help="question difficulties to hold fixed (CSV/TSV with question and "
                   "difficulty or measure columns, or the questions.csv/json of an earlier fit)")
    p.add_argument("--out", metavar="DIR", help="folder for the results (default: MATRIX's name + _rasch)")
    p.add_argument("--bias-correction", action="store_true", help="apply the (L-1)/L JMLE bias correction")
    p.add_argument("--origin", choices=("questions", "systems"), default="questions",
                   help="zero of the scale: mean question difficulty (default) or mean system ability")
    p.add_argument("--convergence", type=float, default=config.CONVERGENCE_LOGITS, metavar="LOGITS",
                   help="largest change at convergence (default %(default)g)")
    p.add_argument("--max-iterations", type=positive_int, default=config.MAX_ITERATIONS, metavar="N")
    p.add_argument("--unexpected-z", type=float, default=config.UNEXPECTED_Z, metavar="Z",
                   help="list responses with |z| at least this in unexpected.csv (default %(default)g)")
    p.add_argument("--show", type=positive_int, default=25, metavar="N", help="systems to print (default %(default)s)")
    p.add_argument("--no-plots", action="store_true", help="write tables and plot data only")
    p.set_defaults(func=fit_command)

    p = actions.add_parser("misfit", help="misfit diagnosis of one system (the paper's Table 1)")
    _matrix_args(p)
    p.add_argument("system", metavar="SYSTEM", help="id of the system (row)")
    p.add_argument("--anchors", metavar="FILE", help="question difficulties to hold fixed")
    p.add_argument("--min-z", type=float, default=config.MISFIT_Z, metavar="Z",
                   help="list responses with |z| at least this (default %(default)g)")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N", help="list at most N responses")
    p.set_defaults(func=misfit_command)

    p = actions.add_parser("purify", help="drop misfitting questions until none is left; compare abilities")
    _matrix_args(p)
    p.add_argument("--max-outfit", type=float, default=config.PURIFY_OUTFIT, metavar="MSQ",
                   help="drop questions with outfit above this (default %(default)g)")
    p.add_argument("--per-round", type=positive_int, default=1, metavar="N", help="questions dropped per refit (default 1)")
    p.add_argument("--out", metavar="DIR", help="folder for the results (default: MATRIX's name + _purify)")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=purify_command)

    p = actions.add_parser("equate-sim", help="the paper's equating simulation: Easy vs Hard halves with anchors")
    _matrix_args(p)
    p.add_argument("--sizes", default=",".join(str(k) for k in config.EQUATING_SIZES), metavar="K,K,...",
                   help="equating-set sizes (default %(default)s)")
    p.add_argument("--selection", choices=("spread", "hardest"), default="spread",
                   help="which well-fitting Easy questions to carry over (default: spread over difficulty)")
    p.add_argument("--max-outfit", type=float, default=config.PURIFY_OUTFIT, metavar="MSQ",
                   help="equating questions must have outfit at most this (default %(default)g)")
    p.add_argument("--out", metavar="DIR", help="folder for the results (default: MATRIX's name + _equating)")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=equate_command)

    p = actions.add_parser("hits", help="matrix from ranked runs: 1 if a relevant passage is in the top k")
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC-format run files (topic Q0 passage rank score tag)")
    p.add_argument("--qrels", required=True, metavar="FILE", help="judgments (topic 0 passage relevance)")
    p.add_argument("--k", type=positive_int, default=10, help="rank cut-off (default %(default)s)")
    p.add_argument("--unanswered", choices=("missing", "wrong"), default="missing",
                   help="a topic a run returned nothing for (default: missing)")
    p.add_argument("--out", required=True, metavar="MATRIX", help="matrix file to write (.csv or .tsv)")
    p.set_defaults(func=hits_command)

    p = actions.add_parser("simulate", help="write a Rasch-simulated matrix shaped like the paper's TREC data")
    p.add_argument("--systems", type=positive_int, default=67)
    p.add_argument("--questions", type=positive_int, default=490)
    p.add_argument("--missing", type=float, default=0.0, metavar="RATE", help="share of missing responses")
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed, 0 or more (numpy refuses a negative one)")
    p.add_argument("--out", required=True, metavar="MATRIX", help="matrix file to write (.csv or .tsv)")
    p.add_argument("--truth", metavar="FILE", help="also write the true measures (JSON)")
    p.set_defaults(func=simulate_command)


def _matrix_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("matrix", metavar="MATRIX", help="response matrix, CSV or TSV")
    p.add_argument("--layout", choices=("auto", "wide", "long"), default="auto",
                   help="wide (rows systems, columns questions) or long (system, question, correct); default: "
                        "long when the header has those three columns")


# --- handlers ---------------------------------------------------------------------------


def fit_command(args: argparse.Namespace) -> int:
    matrix = read_matrix(args.matrix, layout=args.layout)
    anchors = _anchors_for(args.anchors, matrix)
    _positive(args.convergence, "--convergence")
    fit = fit_rasch(matrix, anchors=anchors, bias_correction=args.bias_correction, origin=args.origin,
                    convergence_logits=args.convergence, max_iterations=args.max_iterations)
    out = Path(args.out or f"{Path(args.matrix).stem}_rasch")
    records = anchor_check(matrix, anchors) if anchors else None
    written = write_fit(fit, out, draw=not args.no_plots, anchor_records=records, unexpected_z=args.unexpected_z)
    _print_fit(fit, show=args.show)
    print(f"results: {out}/ ({', '.join(p.name for p in written)})")
    return 0


def misfit_command(args: argparse.Namespace) -> int:
    matrix = read_matrix(args.matrix, layout=args.layout)
    anchors = _anchors_for(args.anchors, matrix)
    i = matrix.system_index(args.system)
    fit = fit_rasch(matrix, anchors=anchors)
    _warn_unconverged(fit)
    rows = fit.misfit(args.system, min_abs_z=args.min_z, limit=args.limit)
    s = fit.systems
    print(f"system {args.system}: {s.status[i]}, ability {_num(s.measure[i])} logits (SE {_num(s.se[i])}), "
          f"outfit {_num(s.outfit_msq[i])} (ZSTD {_num(s.outfit_zstd[i])}), infit {_num(s.infit_msq[i])} "
          f"(ZSTD {_num(s.infit_zstd[i])}), {s.score[i]} right of {s.count[i]}")
    if not rows:
        print(f"no response with |z| >= {args.min_z:g}")
        return 0
    print(_table(
        ["question", "Q_q", "datum", "P_sq", "residual", "z"],
        [[r.question, f"{r.difficulty:.2f}", str(r.datum), f"{r.p:.2f}", f"{r.residual:.2f}", f"{r.z:.2f}"]
         for r in rows],
    ))
    return 0


def purify_command(args: argparse.Namespace) -> int:
    matrix = read_matrix(args.matrix, layout=args.layout)
    result = purify(matrix, max_outfit=args.max_outfit, per_round=args.per_round)
    out = Path(args.out or f"{Path(args.matrix).stem}_purify")
    written = write_purification(result, out, draw=not args.no_plots)
    s = result.summary()
    print(f"{matrix.source}: dropped {len(result.dropped)} questions with outfit > {args.max_outfit:g}; "
          f"{s['questions_after']} of {s['questions_before']} remain")
    print(f"abilities of {len(result.systems)} systems, all questions vs purified: r = {_num(result.correlation, 3)}, "
          f"mean shift {_num(s['mean_shift'], 3)} logits")
    if result.stopped:
        print(f"note: {result.stopped}; the results are those of the last fit that had a solution")
    print(f"results: {out}/ ({', '.join(p.name for p in written)})")
    return 0


def equate_command(args: argparse.Namespace) -> int:
    try:
        sizes = [int(k) for k in args.sizes.split(",") if k.strip()]
    except ValueError:
        raise ParameterError(f"--sizes must be whole numbers separated by commas, got {args.sizes!r}") from None
    matrix = read_matrix(args.matrix, layout=args.layout)
    result = equate_simulation(matrix, sizes=sizes, selection=args.selection, max_outfit=args.max_outfit)
    out = Path(args.out or f"{Path(args.matrix).stem}_equating")
    written = write_equating(result, out, draw=not args.no_plots)
    print(f"{matrix.source}: Easy test {len(result.easy)} questions, Hard test {len(result.hard)} questions")
    rows = []
    for rec in result.table():
        rows.append([str(rec["size"]), str(rec["index"]), str(rec["systems"])]
                    + [f"{rec[k]:.2f}" for k in ("mean_easy", "sd_easy", "mean_hard", "sd_hard", "r")])
    print(_table(["size", "index", "systems", "M_easy", "SD_easy", "M_hard", "SD_hard", "r_linear"], rows))
    for run in result.runs:
        q = run.statistics()["raw_quadratic"]
        assert isinstance(q, dict)
        print(f"size {run.size}: raw-score quadratic trend Y = {q['intercept']:.2f} + {q['linear']:.3f} X "
              f"+ {q['quadratic']:.4f} X^2, t_quad = {q['t']:.2f} (p = {q['p']:.2g})")
    print(f"results: {out}/ ({', '.join(p.name for p in written)})")
    return 0


def hits_command(args: argparse.Namespace) -> int:
    qrels = read_qrels(args.qrels)
    runs = {}
    for path in args.runs:
        name = Path(path).stem
        if name in runs:
            raise MatrixFileError(path, f"another run file is also named {name!r}; run names come from file names")
        runs[name] = read_trec_run(path)
    matrix = hits_matrix(runs, qrels, k=args.k, unanswered=args.unanswered)
    write_matrix(matrix, args.out)
    right = int((matrix.responses == 1).sum())
    print(f"{args.out}: {matrix.n_systems} runs x {matrix.n_questions} topics, {right} hits in the top {args.k}, "
          f"{int((~matrix.observed).sum())} missing")
    return 0


def simulate_command(args: argparse.Namespace) -> int:
    for path in (args.out, args.truth):
        if path and Path(path).is_dir():
            raise ParameterError(f"{path}: is a folder; give a file name, e.g. {Path(path) / 'simulated.csv'}")
    rng = np.random.default_rng(args.seed)
    abilities, difficulties = paper_shaped_measures(args.systems, args.questions, rng=rng)
    matrix = simulate_responses(abilities, difficulties, rng=rng, missing_rate=args.missing)
    write_matrix(matrix, args.out)
    if args.truth:
        write_json({"systems": dict(zip(matrix.systems, abilities, strict=True)),
                    "questions": dict(zip(matrix.questions, difficulties, strict=True))}, args.truth)
    print(f"{args.out}: {matrix.n_systems} systems x {matrix.n_questions} questions (seed {args.seed})")
    return 0


# --- helpers ----------------------------------------------------------------------------


def _anchors_for(path: str | None, matrix) -> dict[str, float]:
    if not path:
        return {}

    anchors = read_anchors(path)
    usable = {q: v for q, v in anchors.items() if q in set(matrix.questions)}
    if not usable:
        raise MatrixFileError(path, f"none of its {len(anchors)} questions is in {matrix.source}")
    skipped = len(anchors) - len(usable)
    print(f"anchoring {len(usable)} questions from {path}" + (f" ({skipped} not in the matrix)" if skipped else ""))
    return usable


def _print_fit(fit, *, show: int) -> None:
    m = fit.matrix
    print(f"{m.source}: {m.n_systems} systems x {m.n_questions} questions, {int(m.observed.sum())} responses "
          f"({int((~m.observed).sum())} missing)")
    _warn_unconverged(fit)
    if fit.converged:
        print(f"converged after {fit.iterations} sweeps (largest change {fit.max_change:.1e} logits, "
              f"largest score residual {fit.max_residual:.1e})")
    for facet in ("system", "question"):
        gone = [r for r in fit.removed if r.facet == facet]
        if gone:
            listed = ", ".join(f"{r.id} ({r.status.replace('_', ' ')})" for r in gone[:8])
            more = " ..." if len(gone) > 8 else ""
            print(f"left out for extreme scores: {len(gone)} {facet}{'s' if len(gone) != 1 else ''}: {listed}{more}")
    if fit.bias_factor is not None:
        print(f"bias correction: difficulties x {fit.bias_factor:.4f}")
    ss, qs = fit.system_separation(), fit.question_separation()
    print(f"origin: {fit.origin}; mean system ability {_num(ss.mean)} logits")
    print(f"separation (model/real): systems {_num(ss.model_separation)}/{_num(ss.real_separation)}, reliability "
          f"{_num(ss.model_reliability)}/{_num(ss.real_reliability)}; questions {_num(qs.model_separation)}/"
          f"{_num(qs.real_separation)}, reliability {_num(qs.model_reliability)}/{_num(qs.real_reliability)}")
    for name, facet in (("systems", fit.systems), ("questions", fit.questions)):
        e = facet.estimated
        high = int((facet.outfit_msq[e] > config.FIT_HIGH).sum())
        low = int((facet.outfit_msq[e] < config.FIT_LOW).sum())
        print(f"{name}: {high} with outfit > {config.FIT_HIGH:g}, {low} with outfit < {config.FIT_LOW:g}")
    s = fit.systems
    order = sorted(range(len(s.ids)), key=lambda i: -s.measure[i] if math.isfinite(s.measure[i]) else math.inf)
    rows = [[str(rank), s.ids[i], _num(s.measure[i]), _num(s.se[i]), _num(s.outfit_msq[i]), _num(s.infit_msq[i]),
             f"{s.score[i]}/{s.count[i]}", s.status[i]] for rank, i in enumerate(order[:show], start=1)]
    print(_table(["rank", "system", "measure", "SE", "outfit", "infit", "score", "status"], rows))
    if len(order) > show:
        print(f"... {len(order) - show} more in systems.csv")


def _warn_unconverged(fit) -> None:
    if not fit.converged:
        print(f"earshot: warning: not converged after {fit.iterations} sweeps (largest change "
              f"{fit.max_change:.2g} logits, largest score residual {fit.max_residual:.2g}); "
              "raise --max-iterations or loosen --convergence", file=sys.stderr)


def _positive(value: float, name: str) -> None:
    if not value > 0:
        raise ParameterError(f"{name} must be > 0, got {value}")


def _num(value: object, digits: int = 2) -> str:
    if value is None:
        return "-"
    v = float(value)  # type: ignore[arg-type]
    return "-" if not math.isfinite(v) else f"{v:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain-text table: numeric columns right-aligned, others left-aligned."""
    columns = list(zip(header, *rows, strict=True))
    widths = [max(len(c) for c in col) for col in columns]
    numeric = [all(_NUMERIC.fullmatch(c) for c in col[1:]) for col in columns]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if num else c.ljust(w)
                         for c, w, num in zip(cells, widths, numeric, strict=True)).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


_NUMERIC = re.compile(r"[-+]?[\d.,/]+|-")
