"""Writing results to a folder: tables (CSV and JSON), plot data (JSON) and figures (PNG)."""

from __future__ import annotations

from pathlib import Path

from engine.evaluate.rasch import config, plots
from engine.evaluate.rasch.equate import EquatingSimulation
from engine.evaluate.rasch.errors import MatrixFileError
from engine.evaluate.rasch.estimate import RaschFit
from engine.evaluate.rasch.files import write_csv, write_json
from engine.evaluate.rasch.purify import Purification

SYSTEM_COLUMNS = ("system", "status", "score", "count", "measure", "se",
                  "infit_msq", "infit_zstd", "outfit_msq", "outfit_zstd", "displacement")
QUESTION_COLUMNS = ("question", *SYSTEM_COLUMNS[1:])
UNEXPECTED_COLUMNS = ("system", "question", "ability", "difficulty", "datum", "p", "z")
TABLE2_COLUMNS = ("size", "index", "systems", "mean_easy", "sd_easy", "mean_hard", "sd_hard", "r")


def output_dir(path: str | Path) -> Path:
    """Create ``path`` (and parents) for results; MatrixFileError if it cannot be."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise MatrixFileError(p, "exists and is not a folder") from None
    except OSError as exc:
        raise MatrixFileError(p, f"cannot create the output folder: {exc.strerror or exc}") from None
    return p


def write_fit(
    fit: RaschFit,
    out: str | Path,
    *,
    draw: bool = True,
    anchor_records: list[dict] | None = None,
    unexpected_z: float = config.UNEXPECTED_Z,
) -> list[Path]:
    """Write a calibration: systems/questions tables, summary, unexpected responses, Figures 2-4 (and 6).

    ``anchor_records`` (from :func:`engine.evaluate.rasch.equate.anchor_check`) adds
    ``anchors.csv`` and the anchor figure. Returns the files written.
    """
    d = output_dir(out)
    written = []
    systems = fit.systems.records("system")
    questions = fit.questions.records("question")
    written += [write_csv(systems, d / "systems.csv", SYSTEM_COLUMNS), write_json(systems, d / "systems.json")]
    written += [write_csv(questions, d / "questions.csv", QUESTION_COLUMNS),
                write_json(questions, d / "questions.json")]
    written.append(write_json(fit.summary(), d / "summary.json"))
    written.append(write_csv(fit.unexpected(min_abs_z=unexpected_z), d / "unexpected.csv", UNEXPECTED_COLUMNS))
    figures = {
        "fig2_questions": plots.facet_map_data(fit.questions, kind="questions"),
        "fig3_systems": plots.facet_map_data(fit.systems, kind="systems"),
        "fig4_densities": plots.density_data(fit),
    }
    if anchor_records:
        written.append(write_csv(anchor_records, d / "anchors.csv"))
        figures["fig6_anchors"] = plots.anchor_data(anchor_records)
    written.append(write_json(figures, d / "plots.json"))
    if draw:
        written.append(plots.draw_facet_map(figures["fig2_questions"], d / "fig2_questions.png"))
        written.append(plots.draw_facet_map(figures["fig3_systems"], d / "fig3_systems.png"))
        written.append(plots.draw_densities(figures["fig4_densities"], d / "fig4_densities.png"))
        if "fig6_anchors" in figures and figures["fig6_anchors"]["anchor"]:
            written.append(plots.draw_anchors(figures["fig6_anchors"], d / "fig6_anchors.png"))
    return written


def write_purification(result: Purification, out: str | Path, *, draw: bool = True) -> list[Path]:
    """Write the purified calibration's tables, the drop log and Figure 5."""
    d = output_dir(out)
    questions = result.purified.questions.records("question")
    written = [
        write_json(result.summary(), d / "purification.json"),
        write_csv([{"round": r, "question": q, "outfit_msq": o} for r, q, o in result.dropped], d / "dropped.csv",
                  ("round", "question", "outfit_msq")),
        write_csv(questions, d / "purified_questions.csv", QUESTION_COLUMNS),
        write_csv([{"system": s, "all_questions": a, "purified": b}
                   for s, a, b in zip(result.systems, result.before, result.after, strict=True)],
                  d / "purified_systems.csv", ("system", "all_questions", "purified")),
    ]
    data = plots.purification_data(result)
    written.append(write_json({"fig5_purification": data}, d / "plots_purification.json"))
    if draw and len(result.systems) > 1:
        written.append(plots.draw_purification(data, d / "fig5_purification.png"))
    return written


def write_equating(result: EquatingSimulation, out: str | Path, *, draw: bool = True) -> list[Path]:
    """Write Table 2 (CSV/JSON), each run's details and Figure 6 per equating-set size."""
    d = output_dir(out)
    table = result.table()
    runs = [{**run.statistics(), "equating_questions": list(run.equating)} for run in result.runs]
    written = [
        write_csv(table, d / "equating_table.csv", TABLE2_COLUMNS),
        write_json({"easy": list(result.easy), "hard": list(result.hard), "table": table, "runs": runs},
                   d / "equating.json"),
    ]
    figures = {f"fig6_equating_{run.size}": plots.equating_data(run) for run in result.runs}
    written.append(write_json(figures, d / "plots_equating.json"))
    if draw:
        for name, data in figures.items():
            written.append(plots.draw_equating(data, d / f"{name}.png"))
    return written
