"""Evaluation panels: pick files, run the engine's scoring tool, read tables and plots; placeholders say why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app import dialogs
from app.evaluation.window import PANELS, Placeholder, engine_available

pytestmark = pytest.mark.gui
NEWS = Path(__file__).resolve().parents[2] / "resources" / "news" / "en.txt"


def needs(package: str) -> pytest.MarkDecorator:
    """Skip unless the engine package a panel needs is in this build."""
    return pytest.mark.skipif(not engine_available(package), reason=f"{package} is not in this build")



@pytest.fixture
def evaluation(qtbot, make_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    window = make_window(tmp_path / "lib.sqlite")
    action = next(a for a in window.actions_by_menu["&Tools"] if a.text() == "&Evaluation…")
    action.trigger()
    qtbot.addWidget(window.evaluation)
    return window.evaluation


def _cell(table, row: int, col: int) -> str:  # type: ignore[no-untyped-def]
    return table.item(row, col).text()


@needs("engine.evaluate.rasch")
def test_rasch_panel_fits_a_matrix(qtbot, evaluation, tmp_path: Path, monkeypatch) -> None:
    from engine.evaluate.rasch import simulate_responses, write_matrix

    rng = np.random.default_rng(5)
    matrix = simulate_responses(rng.normal(0, 1, 12), rng.normal(0, 1.2, 40), rng=rng)
    path = write_matrix(matrix, tmp_path / "runs.csv")
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args: [str(path)])
    panel = evaluation.panels["Rasch measurement"]
    evaluation.tabs.setCurrentWidget(panel)
    qtbot.mouseClick(panel.matrix.button, Qt.MouseButton.LeftButton)
    assert panel.matrix.label.text() == "runs.csv"
    qtbot.mouseClick(panel.run.run_button, Qt.MouseButton.LeftButton)
    assert panel.run.status.text() == "Fitted runs.csv."
    assert panel.systems.rowCount() == 12 and panel.questions.rowCount() == 40
    assert "12 systems × 40 questions, converged" in panel.summary.text()
    measured = [float(_cell(panel.systems, r, 4)) for r in range(12) if _cell(panel.systems, r, 1) == "measured"]
    assert measured and all(-6 < m < 6 for m in measured)
    assert len(panel.map_plot.plot.series[0].x) == len(measured)
    assert [s.name for s in panel.density_plot.plot.series] == ["systems", "questions"]


@needs("engine.evaluate.rasch")
def test_rasch_panel_reports_a_bad_matrix_on_its_status_line(qtbot, evaluation, tmp_path: Path, monkeypatch) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("system,q1,q2\nA,1,7\n", encoding="utf-8")
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args: [str(bad)])
    panel = evaluation.panels["Rasch measurement"]
    qtbot.mouseClick(panel.matrix.button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.run.run_button, Qt.MouseButton.LeftButton)
    assert panel.run.status.text().startswith(str(bad))
    assert panel.run.run_button.isEnabled()


@needs("engine.evaluate.segmentation")
def test_segmentation_panel_scores_transcripts(qtbot, evaluation, tmp_path: Path, monkeypatch) -> None:
    stories = [line for line in NEWS.read_text(encoding="utf-8").splitlines() if line.strip()]
    files = []
    for k, chunk in enumerate((stories[:6], stories[6:])):
        path = tmp_path / f"bulletin{k}.txt"
        path.write_text("\n\n".join(chunk), encoding="utf-8")
        files.append(str(path))
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args: files)
    panel = evaluation.panels["Story segmentation"]
    evaluation.tabs.setCurrentWidget(panel)
    qtbot.mouseClick(panel.files.button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.run.run_button, Qt.MouseButton.LeftButton)
    # Punctuated text: the shipped model with the sentence-start feature is chosen.
    status = panel.run.status.text()
    assert status.startswith("Scored 2 transcript(s) with the newsscape-punctuated model. Note: The shipped models"
                             " learnt from broadcast captions"), status
    names = sorted(_cell(panel.table, r, 0) for r in range(panel.table.rowCount()))
    assert names == ["ALL", "bulletin0.txt", "bulletin1.txt"]
    for r in range(3):
        assert 0.0 <= float(_cell(panel.table, r, 7)) <= 1.0  # Pk
    assert [s.name for s in panel.scores_plot.plot.series] == ["Pk", "WindowDiff", "C_seg"]
    assert {s.name for s in panel.boundary_plot.plot.series} == {"true", "found"}
    panel.model.setCurrentIndex(panel.model.findData("newsscape"))
    qtbot.mouseClick(panel.run.run_button, Qt.MouseButton.LeftButton)
    assert panel.run.status.text().startswith("Scored 2 transcript(s) with the newsscape model. Note:")


@needs("engine.evaluate.entities")
def test_entities_panel_scores_a_hypothesis(qtbot, evaluation, tmp_path: Path, monkeypatch) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("yesterday <P>NEWT GINGRICH</P> spoke in <L>DES MOINES</L> to <O>THE RED CROSS</O>\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("yesterday <P>NEWT GOOD RICH</P> spoke in <P>DES MOINES</P> to the red cross\n")
    panel = evaluation.panels["Named entities"]
    evaluation.tabs.setCurrentWidget(panel)
    for picker, path in ((panel.reference, ref), (panel.hypothesis, hyp)):
        monkeypatch.setattr(dialogs, "ask_open_files", lambda *args, p=path: [str(p)])
        qtbot.mouseClick(picker.button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.run.run_button, Qt.MouseButton.LeftButton)
    report = panel.result.report
    assert panel.run.status.text().startswith(f"hyp.txt against ref.txt: F {report.overall.f:.3f}")
    components = [_cell(panel.components, r, 0) for r in range(panel.components.rowCount())]
    assert components == [*report.components, "overall"]
    types = {_cell(panel.per_type, r, 0) for r in range(panel.per_type.rowCount())}
    assert {"PERSON", "LOCATION", "ORGANIZATION"} <= types
    assert "GINGRICH" in panel.pairs.toPlainText()
    assert [s.name for s in panel.plot.plot.series] == ["precision", "recall", "F"]


@needs("engine.evaluate.passages")
def test_passages_panel_scores_and_compares_runs(qtbot, evaluation, tmp_path: Path, monkeypatch) -> None:
    qrels = tmp_path / "judged.qrels"
    qrels.write_text("T1 news1 100 200 1\nT2 news2 0 500 1\n")
    good, poor = tmp_path / "good.run", tmp_path / "poor.run"
    good.write_text("T1 news1 100 200 1 9.0 a\nT2 news2 0 400 1 8.0 a\n")
    poor.write_text("T1 news9 0 300 1 9.0 b\nT1 news1 250 100 2 5.0 b\nT2 news2 300 400 1 3.0 b\n")
    panel = evaluation.panels["Passage retrieval"]
    evaluation.tabs.setCurrentWidget(panel)
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args: [str(qrels)])
    qtbot.mouseClick(panel.qrels.button, Qt.MouseButton.LeftButton)
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args: [str(good), str(poor)])
    qtbot.mouseClick(panel.runs.button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.run.run_button, Qt.MouseButton.LeftButton)
    assert panel.run.status.text() == "Scored 2 run(s) on 2 judged topic(s), units chars."
    assert [_cell(panel.means, r, 0) for r in range(2)] == ["good.run", "poor.run"]
    headers = [panel.means.horizontalHeaderItem(c).text() for c in range(panel.means.columnCount())]
    r_prec = headers.index("rprec")  # character R-precision
    assert float(_cell(panel.means, 0, r_prec)) > float(_cell(panel.means, 1, r_prec))
    assert "good.run" in panel.tests.toPlainText()
    assert panel.per_topic.rowCount() == 2


def test_a_panel_is_a_placeholder_exactly_when_its_engine_is_missing(evaluation) -> None:
    for title, package, _purpose in PANELS:
        panel = evaluation.panels[title]
        assert isinstance(panel, Placeholder) != engine_available(package)


def test_a_placeholder_names_the_engine_it_waits_for(qtbot) -> None:
    panel = Placeholder("Named entities", "engine.nothing_here", "score entity tagging")
    qtbot.addWidget(panel)
    text = panel.findChild(QLabel).text()
    assert "engine.nothing_here" in text and "score entity tagging" in text
