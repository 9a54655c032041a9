"""Passage retrieval scoring: runs against judgements (character R-precision, bpref, average precision...)."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QWidget

from app.evaluation.common import FilePicker, RunBar, choice_box, fill_table, lay_out_panel, results_table, tabs, text_pane
from app.plot_view import Plot, PlotView, Series
from app.tasks import TaskPool
from engine.research.runs import PassageRun, evaluate_passages

RUN_FILTER = "Runs and judgements (*.run *.txt *.qrels *.tsv);;All files (*)"


class PassagesPanel(QWidget):
    """Pick judgements (qrels) and one or more runs; read the mean of every measure, per-topic values and t-tests."""

    def __init__(self, pool: TaskPool) -> None:
        super().__init__()
        self.result: PassageRun | None = None
        self.qrels = FilePicker("Judgements…", "Judgements (qrels: TOPIC DOC OFFSET LENGTH [RELEVANCE])", RUN_FILTER,
                                one=True)
        self.runs = FilePicker("Runs…", "Runs (TOPIC DOC OFFSET LENGTH RANK SCORE [TAG])", RUN_FILTER)
        self.units = choice_box("Units of offsets and lengths",
                                (("characters of the transcript", "chars"), ("seconds of audio", "seconds")))
        self.run = RunBar(pool, "Score runs", self.start, self.show_result)
        self.means = results_table("Mean of each measure per run", ("run", "topics"))
        self.per_topic = results_table("Measures per topic of the first run", ("topic",))
        self.tests = text_pane("Paired t-tests between runs")
        self.plot = PlotView("Passage retrieval plot")
        tables = tabs("Passage retrieval tables",
                      ((self.means, "Means"), (self.per_topic, "Per topic"), (self.tests, "t-tests")))
        lay_out_panel(self, (("Judgements", self.qrels), ("Runs", self.runs), ("Units", self.units)), self.run, tables,
                      self.plot)

    def start(self) -> None:
        if not self.run.chosen((self.qrels, self.runs), "Choose the judgements and at least one run first."):
            return
        qrels, runs, units = self.qrels.paths[0], list(self.runs.paths), self.units.currentData()
        self.run.start(lambda report: evaluate_passages(runs, qrels, units, report), "passage scoring")

    def show_result(self, result: PassageRun) -> None:
        self.result = result
        evs = result.evaluations
        measures = list(evs[0].measures)
        _headers(self.means, ["run", "topics", *measures])
        fill_table(self.means, [(e.name, len(e.per_topic), *e.means().values()) for e in evs])
        _headers(self.per_topic, ["topic", *measures])
        first = evs[0]
        fill_table(self.per_topic, [(t, *first.per_topic[t].values()) for t in sorted(first.per_topic)])
        self.tests.setPlainText(result.comparison_text or "Choose two or more runs to compare them.")
        x = np.arange(len(measures), dtype=float)
        self.plot.set_plot(Plot(title="Mean per measure", categories=measures,
                                series=[Series(e.name, x, np.array(list(e.means().values())), "bar") for e in evs]))
        topics = len(first.per_topic)
        self.run.status.setText(f"Scored {len(evs)} run(s) on {topics} judged topic(s), units {result.units}.")


def _headers(table, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    table.setColumnCount(len(names))
    table.setHorizontalHeaderLabels(names)
