"""The paper's figures: data (plain dicts, for JSON and the GUI) and PNG drawings.

``*_data`` functions compute what a figure shows; ``draw_*`` functions render
that data with matplotlib's Agg canvas (no pyplot, no global backend switch).

- Figure 2/3: questions/systems by measure (y) and outfit (x); dot area
  proportional to the SE; outfits above 2 drawn as X at the right edge.
- Figure 4: smoothed densities of system and question measures, with the
  model SE as a function of location (U-shaped curves, right axis).
- Figure 5: system abilities before vs after purification.
- Figure 6: equating, Rasch measures (left) and raw scores (right) of the
  Easy vs the Hard test; or, for a fit with anchors, anchors vs free estimates.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import gaussian_kde

from engine.errors import EarshotError
from engine.evaluate.rasch import config
from engine.evaluate.rasch.equate import EquatingRun
from engine.evaluate.rasch.estimate import Facet, RaschFit
from engine.evaluate.rasch.purify import Purification


def facet_map_data(facet: Facet, *, kind: str) -> dict[str, Any]:
    """Figure 2 (kind="questions") or 3 (kind="systems"): one point per estimated entry."""
    e = facet.estimated
    outfit = facet.outfit_msq[e]
    capped = outfit > config.PLOT_OUTFIT_CAP
    jitter = np.random.default_rng(0).uniform(0.0, 2.0 * config.PLOT_JITTER, size=outfit.size)
    return {
        "figure": 2 if kind == "questions" else 3,
        "kind": kind,
        "ids": [k for k, keep in zip(facet.ids, e, strict=True) if keep],
        "measure": facet.measure[e],
        "se": facet.se[e],
        "outfit_msq": outfit,
        "x_drawn": np.where(capped, config.PLOT_OUTFIT_CAP + jitter, outfit),
        "capped": capped,
        "fit_range": [config.FIT_LOW, config.FIT_HIGH],
        "outfit_cap": config.PLOT_OUTFIT_CAP,
    }


def density_data(fit: RaschFit) -> dict[str, Any]:
    """Figure 4: densities of abilities and difficulties, and model SE curves, on one grid."""
    abilities = fit.systems.measure[fit.systems.estimated]
    difficulties = fit.questions.measure[fit.questions.estimated]
    both = np.concatenate([abilities, difficulties])
    grid = np.linspace(np.floor(both.min()) - 1.0, np.ceil(both.max()) + 1.0, config.PLOT_GRID_POINTS)
    return {
        "figure": 4,
        "grid": grid,
        "density_systems": _kde(abilities, grid),
        "density_questions": _kde(difficulties, grid),
        "se_systems": _model_se(grid, difficulties),  # a system at x facing these questions
        "se_questions": _model_se(grid, abilities),  # a question at x facing these systems
        "se_top": float(min(3.0, max(1.0, 1.25 * max(np.nanmax(fit.systems.se[fit.systems.estimated]),
                                                      np.nanmax(fit.questions.se[fit.questions.estimated]))))),
        "mean_systems": float(abilities.mean()),
        "mean_questions": float(difficulties.mean()),
    }


def purification_data(result: Purification) -> dict[str, Any]:
    """Figure 5: abilities with all questions (y) vs with the purified set (x)."""
    return {
        "figure": 5,
        "systems": list(result.systems),
        "all_questions": result.before,
        "purified": result.after,
        "questions_kept": int(result.purified.questions.estimated.sum()),
        "r": result.correlation,
    }


def equating_data(run: EquatingRun) -> dict[str, Any]:
    """Figure 6: Rasch and raw scores of each system on the Easy vs the Hard test."""
    s = run.statistics()
    return {
        "figure": 6,
        "size": run.size,
        "systems": list(run.systems),
        "rasch_easy": run.rasch_easy,
        "rasch_hard": run.rasch_hard,
        "raw_easy": run.raw_easy,
        "raw_hard": run.raw_hard,
        "rasch_line": s["rasch_line"],
        "raw_quadratic": s["raw_quadratic"],
        "r_rasch": s["rasch"]["r"],  # type: ignore[index]
        "r_raw": s["raw"]["r"],  # type: ignore[index]
    }


def anchor_data(records: Sequence[dict]) -> dict[str, Any]:
    """Figure 6 for a fit with anchors: anchor value vs free estimate (shifted), with SE."""
    rows = [r for r in records if r["free"] is not None]
    return {
        "figure": 6,
        "questions": [r["question"] for r in rows],
        "anchor": [r["anchor"] for r in rows],
        "free": [r["free"] for r in rows],
        "se": [r["se"] for r in rows],
    }


# --- drawing ---------------------------------------------------------------------


def draw_facet_map(data: dict[str, Any], path: str | Path) -> Path:
    fig, ax = _figure(6.0, 5.0)
    kind = data["kind"]
    capped = np.asarray(data["capped"], dtype=bool)
    x, y = np.asarray(data["x_drawn"]), np.asarray(data["measure"])
    area = config.PLOT_SE_AREA * np.asarray(data["se"])
    ax.scatter(x[~capped], y[~capped], s=area[~capped], facecolors="none", edgecolors="black", linewidths=0.8)
    ax.scatter(x[capped], y[capped], s=area[capped], marker="x", color="black", linewidths=0.8)
    for v in data["fit_range"]:
        ax.axvline(v, linestyle="--", color="grey", linewidth=0.8)
    cap = data["outfit_cap"]
    ax.set_xlim(0.0, cap + 3 * config.PLOT_JITTER)
    noun = "Question" if kind == "questions" else "System"
    symbol = "Q_q" if kind == "questions" else "S_s"
    meaning = "difficulty" if kind == "questions" else "ability"
    ax.set_xlabel(f"{noun} outfit (mean-square)")
    ax.set_ylabel(f"{noun} locations ${symbol}$ (logits) - {meaning}")
    low, high = ("Easy", "Hard") if kind == "questions" else ("Low ability", "High ability")
    ax.text(0.01, 0.02, low, transform=ax.transAxes, rotation=90, va="bottom", fontsize=8)
    ax.text(0.01, 0.98, high, transform=ax.transAxes, rotation=90, va="top", fontsize=8)
    ax.set_title(f"{noun}s by measure, outfit and SE (dot size) - {capped.sum()} with outfit > {cap:g} as X",
                 fontsize=9)
    return _save(fig, path)


def draw_densities(data: dict[str, Any], path: str | Path) -> Path:
    fig, ax = _figure(6.5, 4.5)
    grid = np.asarray(data["grid"])
    ax.plot(grid, data["density_systems"], color="black", label="System density")
    ax.plot(grid, data["density_questions"], color="black", linestyle=":", label="Question density")
    ax.set_xlabel("Rasch dimension (logits)")
    ax.set_ylabel("Density (S and Q)")
    ax2 = ax.twinx()
    ax2.plot(grid, data["se_systems"], color="tab:blue", label="SE_S")
    ax2.plot(grid, data["se_questions"], color="tab:blue", linestyle=":", label="SE_Q")
    ax2.set_ylim(0.0, data["se_top"])
    ax2.set_ylabel("SE_Q and SE_S (logits)")
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles=handles, fontsize=8, loc="upper left")
    ax.set_title("Smoothed system and question location densities", fontsize=9)
    return _save(fig, path)


def draw_purification(data: dict[str, Any], path: str | Path) -> Path:
    fig, ax = _figure(5.0, 5.0)
    x, y = np.asarray(data["purified"]), np.asarray(data["all_questions"])
    ax.scatter(x, y, s=12, color="black")
    _identity(ax, x, y)
    ax.set_xlabel(f"Using best {data['questions_kept']} fitting questions only (logits)")
    ax.set_ylabel("Using all questions (logits)")
    ax.text(0.05, 0.92, f"r = {data['r']:.2f}", transform=ax.transAxes)
    ax.set_title("Effect of removing misfitting questions on system abilities", fontsize=9)
    return _save(fig, path)


def draw_equating(data: dict[str, Any], path: str | Path) -> Path:
    fig, (left, right) = _figure(11.0, 5.0, ncols=2)
    xe, xh = np.asarray(data["rasch_easy"]), np.asarray(data["rasch_hard"])
    left.scatter(xe, xh, s=12, color="black")
    _identity(left, xe, xh)
    line = data["rasch_line"]
    left.text(0.05, 0.92, f"r = {data['r_rasch']:.2f}\nY = {line['intercept']:.3f} + {line['slope']:.3f} X",
              transform=left.transAxes, va="top", fontsize=9)
    left.set_xlabel('Estimated ability on "Easy" questions (logits)')
    left.set_ylabel('Estimated ability on "Hard" questions (logits)')
    re, rh = np.asarray(data["raw_easy"]), np.asarray(data["raw_hard"])
    right.scatter(re, rh, s=12, color="black")
    _identity(right, re, rh)
    q = data["raw_quadratic"]
    xs = np.linspace(re.min(), re.max(), 100)
    right.plot(xs, q["intercept"] + q["linear"] * xs + q["quadratic"] * xs**2, color="tab:red", linewidth=1)
    right.text(0.05, 0.92, f"r = {data['r_raw']:.2f}\nY = {q['intercept']:.2f} + {q['linear']:.3f} X "
                           f"+ {q['quadratic']:.4f} X$^2$\nt_quad = {q['t']:.2f}",
               transform=right.transAxes, va="top", fontsize=9)
    right.set_xlabel('Raw score on "Easy" questions')
    right.set_ylabel('Raw score on "Hard" + equating questions')
    fig.suptitle(f"Easy vs Hard test, {data['size']} equating questions", fontsize=10)
    return _save(fig, path)


def draw_anchors(data: dict[str, Any], path: str | Path) -> Path:
    fig, ax = _figure(5.0, 5.0)
    x, y = np.asarray(data["anchor"], dtype=float), np.asarray(data["free"], dtype=float)
    ax.errorbar(x, y, yerr=config.COVERAGE_Z * np.asarray(data["se"], dtype=float), fmt="o", color="black",
                markersize=3, elinewidth=0.6)
    _identity(ax, x, y)
    ax.set_xlabel("Anchored difficulty (earlier calibration, logits)")
    ax.set_ylabel("Free estimate on this data, shifted (logits)")
    ax.set_title("Anchor stability (bars: 95% model interval)", fontsize=9)
    return _save(fig, path)


def _figure(width: float, height: float, ncols: int = 1):
    try:
        from matplotlib.figure import Figure  # lazy: matplotlib only when a figure is drawn
    except ImportError:  # pragma: no cover - depends on the installation
        raise EarshotError("plots need matplotlib (pip install matplotlib), or run without plots") from None
    fig = Figure(figsize=(width, height), dpi=110)
    axes = fig.subplots(1, ncols)
    return fig, axes


def _save(fig, path: str | Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.tight_layout()
    p = Path(path)
    fig.savefig(p, format="png")
    return p


def _identity(ax, x: np.ndarray, y: np.ndarray) -> None:
    lo = float(min(np.min(x), np.min(y)))
    hi = float(max(np.max(x), np.max(y)))
    ax.plot([lo, hi], [lo, hi], color="grey", linestyle="--", linewidth=0.8, label="Y = X")


def _kde(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    if values.size < 2 or np.ptp(values) == 0:
        return np.zeros_like(grid)

    return gaussian_kde(values)(grid)


def _model_se(grid: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Model SE of a measure at each grid point, facing ``others`` (complete data)."""
    p = 1.0 / (1.0 + np.exp(others[None, :] - grid[:, None]))
    return 1.0 / np.sqrt((p * (1.0 - p)).sum(axis=1))
