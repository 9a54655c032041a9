"""Rasch measurement: calibrate systems and questions from a response matrix; tables and the paper's maps."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from app.evaluation.common import FilePicker, RunBar, choice_box, fill_table, lay_out_panel, results_table, tabs
from app.plot_view import Plot, PlotView, Series
from app.tasks import TaskPool
from engine.research.runs import RaschRun, fit_matrix

MATRIX_FILTER = "Response matrices (*.csv *.tsv *.txt);;All files (*)"
_FACET_HEADERS = ("id", "status", "score", "count", "measure", "SE", "infit MSQ", "infit ZSTD", "outfit MSQ",
                  "outfit ZSTD")


class RaschPanel(QWidget):
    """Pick a 1/0/blank matrix (systems x questions), fit, browse systems, questions and plots."""

    def __init__(self, pool: TaskPool) -> None:
        super().__init__()
        self.result: RaschRun | None = None
        self.matrix = FilePicker("Response matrix…", "Response matrix", MATRIX_FILTER, one=True)
        self.layout_choice = choice_box("Matrix layout", (
            ("detect", "auto"), ("wide: rows are systems, columns questions", "wide"),
            ("long: system, question, correct", "long")))
        self.run = RunBar(pool, "Fit Rasch model", self.start, self.show_result)
        self.summary = QLabel()
        self.summary.setAccessibleName("Fit summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.systems = results_table("Systems", _FACET_HEADERS)
        self.questions = results_table("Questions", _FACET_HEADERS)
        self.map_plot = PlotView("Systems map plot")
        self.question_plot = PlotView("Questions map plot")
        self.density_plot = PlotView("Measure densities plot")
        tables = tabs("Rasch tables", ((self.systems, "Systems"), (self.questions, "Questions")))
        plots = tabs("Rasch plots", ((self.map_plot, "Systems: measure × outfit"),
                                     (self.question_plot, "Questions: measure × outfit"),
                                     (self.density_plot, "Densities")))
        lay_out_panel(self, (("Matrix", self.matrix), ("Layout", self.layout_choice)), self.run, tables, plots,
                      above=(self.summary,))

    def start(self) -> None:
        if not self.run.chosen((self.matrix,), "Choose a response matrix first."):
            return
        path, layout = self.matrix.paths[0], self.layout_choice.currentData()
        self.run.start(lambda report: fit_matrix(path, layout, report), "Rasch fit")

    def show_result(self, result: RaschRun) -> None:
        self.result = result
        fit = result.fit
        for table, facet in ((self.systems, fit.systems), (self.questions, fit.questions)):
            fill_table(table, [
                (facet.ids[i], facet.status[i], int(facet.score[i]), int(facet.count[i]), float(facet.measure[i]),
                 float(facet.se[i]), float(facet.infit_msq[i]), float(facet.infit_zstd[i]),
                 float(facet.outfit_msq[i]), float(facet.outfit_zstd[i]))
                for i in range(len(facet.ids))
            ])
        s_sep, q_sep = fit.system_separation(), fit.question_separation()
        converged = "converged" if fit.converged else "DID NOT converge"
        self.summary.setText(
            f"{result.source}: {fit.matrix.n_systems} systems × {fit.matrix.n_questions} questions, {converged} in "
            f"{fit.iterations} sweeps ({fit.origin}). Systems: separation {s_sep.model_separation:.2f}, reliability "
            f"{s_sep.model_reliability:.2f}. Questions: separation {q_sep.model_separation:.2f}, reliability "
            f"{q_sep.model_reliability:.2f}. Removed as extreme: {len(fit.removed)}."
        )
        self.map_plot.set_plot(_facet_plot(result.systems_map, "Systems"))
        self.question_plot.set_plot(_facet_plot(result.questions_map, "Questions"))
        d = result.density
        self.density_plot.set_plot(Plot(
            title="Densities of measures", x_label="logits",
            series=[Series("systems", d["grid"], d["density_systems"], "line"),
                    Series("questions", d["grid"], d["density_questions"], "line")],
            v_lines=[d["mean_systems"], d["mean_questions"]],
        ))
        self.run.status.setText(f"Fitted {result.source}.")


def _facet_plot(data: dict, title: str) -> Plot:
    se = np.asarray(data["se"], dtype=float)
    sizes = 2.0 + 6.0 * se / np.nanmax(se) if se.size and np.nanmax(se) > 0 else None
    return Plot(
        title=f"{title}: measure by outfit mean-square", x_label="outfit MSQ", y_label="logits",
        series=[Series(title.lower(), np.asarray(data["x_drawn"], dtype=float), np.asarray(data["measure"], dtype=float),
                       labels=list(data["ids"]), sizes=sizes)],
        v_lines=list(data["fit_range"]),
    )
