"""Story segmentation scoring: segment transcripts with story markers and compare (TDT cost, Pk, WindowDiff)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QSplitter, QVBoxLayout, QWidget

from app.evaluation.common import FilePicker, RunBar, choice_box, fill_table, form_rows, results_table
from app.plot_view import Plot, PlotView, Series
from app.tasks import TaskPool
from app.widgets import cell_text
from engine.research.runs import SegmentationRun, evaluate_segmentation
from models.segmentation import ACOUSTIC_MODEL_NAME, DEFAULT_MODEL_NAME, PUNCTUATED_MODEL_NAME, RECOGNISER_MODEL_NAME

TRANSCRIPT_FILTER = "Transcripts with story markers (*.txt3 *.txt);;All files (*)"


class SegmentationPanel(QWidget):
    """Pick .txt3 caption files (or .txt with blank lines between stories), run, read the table and plots."""

    def __init__(self, pool: TaskPool) -> None:
        super().__init__()
        self.result: SegmentationRun | None = None
        self.files = FilePicker("Transcripts…", "Transcripts with story markers", TRANSCRIPT_FILTER)
        self.model = choice_box("Segmentation model", (
            ("Shipped, chosen by punctuation", None), ("newsscape (paper's features)", DEFAULT_MODEL_NAME),
            ("newsscape-punctuated (+ sentence starts)", PUNCTUATED_MODEL_NAME),
            ("newsscape-acoustic (X-duration alone)", ACOUSTIC_MODEL_NAME),
            ("newsscape-recogniser (Whisper-style punctuation)", RECOGNISER_MODEL_NAME)),
            tip="Punctuated transcripts (captions, text) use the model with the sentence-start "
                "feature; recognizer output has no punctuation and uses the paper's features.")
        self.penalty = QDoubleSpinBox()
        self.penalty.setAccessibleName("Boundary penalty")
        self.penalty.setToolTip("Boundary penalty (log). Higher finds more, shorter stories.")
        self.penalty.setRange(-50.0, 50.0)
        self.penalty.setSingleStep(1.0)
        self.penalty.setSpecialValueText("model's own")  # shown at the minimum: the model's tuned penalty
        self.penalty.setValue(self.penalty.minimum())
        self.run = RunBar(pool, "Score segmentation", self.start, self.show_result)
        self.table = results_table("Segmentation scores", ("Transcript", "Words", "True stories", "Found", "P(miss)",
                                                           "P(false alarm)", "C_seg", "Pk", "WindowDiff"))
        self.table.itemSelectionChanged.connect(self._show_boundaries)
        self.scores_plot = PlotView("Segmentation scores plot")
        self.boundary_plot = PlotView("Story boundaries plot")

        form = form_rows((("Files", self.files), ("Model", self.model), ("Boundary penalty", self.penalty)))
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.scores_plot)
        plots.addWidget(self.boundary_plot)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(plots)
        split.setSizes([220, 420])
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.run)
        layout.addWidget(split, 1)

    def start(self) -> None:
        if not self.run.chosen((self.files,), "Choose one or more transcripts first."):
            return
        paths, model = list(self.files.paths), self.model.currentData()
        penalty = None if self.penalty.value() == self.penalty.minimum() else self.penalty.value()
        self.run.start(lambda report: evaluate_segmentation(paths, model, report, log_penalty=penalty),
                       "segmentation scoring")

    def show_result(self, result: SegmentationRun) -> None:
        self.result = result
        rows = []
        for name, s in result.rows:
            words = sum(result.lengths.values()) if name == "ALL" else result.lengths[name]
            true = sum(len(v) for v in result.reference.values()) if name == "ALL" else len(result.reference[name])
            found = sum(len(v) for v in result.hypothesis.values()) if name == "ALL" else len(result.hypothesis[name])
            rows.append((name, words, true, found, s.p_miss, s.p_false_alarm, s.tdt_cost, s.pk, s.windowdiff))
        fill_table(self.table, rows)
        per_file = [(n, s) for n, s in result.rows if n != "ALL"]
        x = np.arange(len(per_file), dtype=float)
        self.scores_plot.set_plot(Plot(
            title="Errors per transcript (lower is better)", categories=[n for n, _ in per_file],
            series=[Series("Pk", x, np.array([s.pk for _, s in per_file]), "bar"),
                    Series("WindowDiff", x, np.array([s.windowdiff for _, s in per_file]), "bar"),
                    Series("C_seg", x, np.array([s.tdt_cost for _, s in per_file]), "bar")],
        ))
        status = f"Scored {len(per_file)} transcript(s) with the {result.model} model."
        if result.note:
            status += f" Note: {result.note[0].upper()}{result.note[1:]}."
        self.run.status.setText(status)
        self.run.status.setWordWrap(True)
        if per_file:
            self.table.selectRow(0)

    def _show_boundaries(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if self.result is None or not rows:
            return
        name = cell_text(self.table, rows[0].row(), 0)
        if name not in self.result.reference:
            return
        ref, hyp = self.result.reference[name], self.result.hypothesis[name]
        self.boundary_plot.set_plot(Plot(
            title=f"Story starts in {name}", x_label="word", y_label="",
            series=[Series("true", ref.astype(float), np.ones(len(ref))),
                    Series("found", hyp.astype(float), np.zeros(len(hyp)))],
            h_lines=[0.5],
        ))
