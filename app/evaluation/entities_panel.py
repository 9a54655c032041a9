"""Named-entity scoring: tagged recogniser output against a marked-up reference (type, extent, content)."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from app.evaluation.common import FilePicker, RunBar, choice_box, fill_table, lay_out_panel, results_table, tabs, text_pane
from app.plot_view import Plot, PlotView, Series
from app.tasks import TaskPool
from engine.research.runs import EntityOptions, EntityRun, score_entities

TRANSCRIPT_FILTER = "Transcripts (*.txt *.sgml *.stm *.trn *.ctm);;All files (*)"
_COUNT_HEADERS = ("component", "correct", "substituted", "deleted", "inserted", "precision", "recall", "F", "SER")


class EntitiesPanel(QWidget):
    """Pick a reference and a hypothesis; read component and per-type scores, a plot and every aligned pair."""

    def __init__(self, pool: TaskPool) -> None:
        super().__init__()
        self.result: EntityRun | None = None
        self.reference = FilePicker("Reference…", "Reference with marked-up entities", TRANSCRIPT_FILTER, one=True)
        self.hypothesis = FilePicker("Hypothesis…", "Recogniser output (tagged, or a CTM to tag)", TRANSCRIPT_FILTER,
                                     one=True)
        self.align = _combo("Alignment", ("phonetic", "sclite"))
        self.mapping = _combo("Entity mapping", ("optimal", "greedy"))
        self.tolerance = QSpinBox()
        self.tolerance.setAccessibleName("Extent tolerance in words")
        self.tolerance.setRange(0, 10)
        self.tolerance.setValue(EntityOptions().tolerance)
        self.muc = QCheckBox("MUC mode (type and text)")
        self.muc.setAccessibleName("MUC mode")
        self.run = RunBar(pool, "Score entities", self.start, self.show_result)
        self.components = results_table("Entity scores by component", _COUNT_HEADERS)
        self.per_type = results_table("Entity scores by type", ("type", "reference", "hypothesis", "precision",
                                                                "recall", "F"))
        self.plot = PlotView("Entity scores plot")
        self.pairs = text_pane("Aligned entity pairs")

        options = QHBoxLayout()
        for caption, w in (("alignment", self.align), ("mapping", self.mapping), ("extent tolerance (words)",
                                                                                  self.tolerance), ("", self.muc)):
            if caption:
                options.addWidget(QLabel(caption))
            options.addWidget(w)
        options.addStretch(1)
        tables = tabs("Entity result tables",
                      ((self.components, "By component"), (self.per_type, "By type"), (self.pairs, "Aligned pairs")))
        lay_out_panel(self, (("Reference", self.reference), ("Hypothesis", self.hypothesis), ("Options", options)),
                      self.run, tables, self.plot)

    def start(self) -> None:
        if not self.run.chosen((self.reference, self.hypothesis), "Choose a reference and a hypothesis first."):
            return
        ref, hyp = self.reference.paths[0], self.hypothesis.paths[0]
        options = EntityOptions(self.align.currentText(), self.tolerance.value(), self.mapping.currentText(),
                                self.muc.isChecked())
        self.run.start(lambda report: score_entities(ref, hyp, options, report), "entity scoring")

    def show_result(self, result: EntityRun) -> None:
        self.result = result
        r = result.report
        rows = [*r.components.items(), ("overall", r.overall)]
        fill_table(self.components, [(name, c.correct, c.substitution, c.deletion, c.insertion, c.precision,
                                       c.recall, c.f, c.ser) for name, c in rows])
        types = list(r.per_type.items())
        fill_table(self.per_type, [(t, int(v["reference"]), int(v["hypothesis"]), v["precision"], v["recall"], v["f"])
                                   for t, v in types])
        self.pairs.setPlainText(result.pairs_text)
        x = np.arange(len(types), dtype=float)
        self.plot.set_plot(Plot(
            title="Scores by entity type", categories=[t for t, _ in types],
            series=[Series(m, x, np.array([v[key] for _, v in types]), "bar")
                    for m, key in (("precision", "precision"), ("recall", "recall"), ("F", "f"))],
        ))
        w = r.words
        wer = w["errors"] / w["ref_words"] if w["ref_words"] else 0.0
        tagged = " (the hypothesis was tagged with the shipped tagger)" if result.tagged else ""
        self.run.status.setText(f"{result.hypothesis} against {result.reference}: F {r.overall.f:.3f}, "
                                f"SER {r.overall.ser:.3f}, word error rate {wer:.1%}{tagged}.")


def _combo(name: str, items: tuple[str, ...]) -> QComboBox:
    return choice_box(name, [(item, None) for item in items], tip=name)
