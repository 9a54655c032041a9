"""``earshot rasch ...`` end to end, through engine.cli.main.main."""

from __future__ import annotations

import csv
import json

import pytest


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_fit_writes_tables_plot_data_and_figures(earshot, kct, capsys, tmp_path):
    pytest.importorskip("matplotlib", reason="figures need matplotlib")
    assert earshot("rasch", "fit", kct["path"], "--out", "kct") == 0
    out = capsys.readouterr().out
    assert "kct_responses.csv: 35 systems x 18 questions, 630 responses (0 missing)" in out
    assert "left out for extreme scores: 1 system: 35 (all wrong)" in out
    d = tmp_path / "kct"
    for name in ("systems.csv", "systems.json", "questions.csv", "questions.json", "summary.json", "unexpected.csv",
                 "plots.json", "fig2_questions.png", "fig3_systems.png", "fig4_densities.png"):
        assert (d / name).stat().st_size > 0, name
    assert (d / "fig2_questions.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    questions = _csv(d / "questions.csv")
    assert [q["status"] for q in questions[:4]] == ["all_right"] * 3 + ["measured"]
    assert float(questions[3]["measure"]) == pytest.approx(-4.55, abs=0.01)
    summary = json.loads((d / "summary.json").read_text())
    assert summary["converged"] and summary["questions_estimated"] == 14
    plots = json.loads((d / "plots.json").read_text())
    assert set(plots) == {"fig2_questions", "fig3_systems", "fig4_densities"}
    assert len(plots["fig2_questions"]["measure"]) == 14
    unexpected = _csv(d / "unexpected.csv")
    assert unexpected and abs(float(unexpected[0]["z"])) >= 3


def test_fit_with_anchors_from_an_earlier_fit(earshot, kct, capsys, tmp_path):
    assert earshot("rasch", "fit", kct["path"], "--out", "first", "--no-plots") == 0
    assert earshot("rasch", "fit", kct["path"], "--out", "second", "--no-plots",
                   "--anchors", tmp_path / "first" / "questions.csv") == 0
    out = capsys.readouterr().out
    assert "anchoring 14 questions from" in out
    first = _csv(tmp_path / "first" / "questions.csv")
    second = _csv(tmp_path / "second" / "questions.csv")
    assert [q["status"] for q in second[3:17]] == ["anchored"] * 14
    for a, b in zip(first[3:17], second[3:17], strict=True):
        assert float(a["measure"]) == pytest.approx(float(b["measure"]), abs=1e-5)
    anchors = _csv(tmp_path / "second" / "anchors.csv")
    assert len(anchors) == 14 and all(abs(float(r["difference"])) < 1e-4 for r in anchors)
    assert not (tmp_path / "second" / "fig2_questions.png").exists()


def test_misfit_prints_table_1(earshot, kct, capsys):
    assert earshot("rasch", "misfit", kct["path"], "13") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("system 13: measured, ability -0.28 logits (SE 1.15), outfit 5.90")
    assert lines[1].split() == ["question", "Q_q", "datum", "P_sq", "residual", "z"]
    assert lines[2].split() == ["I07", "-3.97", "0", "0.98", "-0.98", "-6.34"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rasch", "misfit", "{kct}", "Nobody"], "earshot: error: no system 'Nobody' in kct_responses.csv"),
        (["rasch", "fit", "missing.csv"], "earshot: error: missing.csv: file not found"),
        (["rasch", "fit", "bad.csv"], "earshot: error: bad.csv: line 3, column 2: value '2' (system 'B', question "
                                      "'q1') is not 1, 0 or blank"),
        (["rasch", "fit", "{kct}", "--anchors", "anchors.csv"],
         "earshot: error: anchors.csv: none of its 1 questions is in kct_responses.csv"),
        (["rasch", "equate-sim", "{kct}"], "earshot: error: an equating set of 50 questions needs more Easy questions "
                                           "than the 7 there are (14 measurable questions in kct_responses.csv); "
                                           "pass smaller sizes"),
        (["rasch", "equate-sim", "{kct}", "--sizes", "2,x"],
         "earshot: error: --sizes must be whole numbers separated by commas, got '2,x'"),
    ],
    ids=["unknown-system", "missing-file", "non-binary", "foreign-anchors", "equating-too-big", "bad-sizes"],
)
def test_errors_are_one_line(earshot, request, capsys, tmp_path, argv, message):
    (tmp_path / "bad.csv").write_text("system,q1,q2\nA,1,0\nB,2,1\n")
    (tmp_path / "anchors.csv").write_text("question,difficulty\nX1,0.5\n")
    if "{kct}" in argv:  # only these need ../shared
        kct_path = str(request.getfixturevalue("kct")["path"])
        argv = [a.replace("{kct}", kct_path) for a in argv]
    args = argv
    assert earshot(*args) == 1
    err = capsys.readouterr().err
    assert err == message + "\n"


def test_usage_errors_exit_2(earshot, capsys):
    assert earshot("rasch") == 2
    assert "fit" in capsys.readouterr().out
    assert earshot("rasch", "fit") == 2
    assert "the following arguments are required: MATRIX" in capsys.readouterr().err


def test_simulate_purify_and_equate_sim(earshot, capsys, tmp_path):
    assert earshot("rasch", "simulate", "--seed", "3", "--out", "sim.csv", "--truth", "truth.json") == 0
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert len(truth["systems"]) == 67 and len(truth["questions"]) == 490
    assert earshot("rasch", "purify", "sim.csv", "--per-round", "5", "--no-plots") == 0
    assert json.loads((tmp_path / "sim_purify" / "purification.json").read_text())["correlation"] > 0.98
    assert earshot("rasch", "equate-sim", "sim.csv", "--no-plots", "--out", "eq") == 0
    out = capsys.readouterr().out
    assert "t_quad" in out
    table = _csv(tmp_path / "eq" / "equating_table.csv")
    assert [(r["size"], r["index"]) for r in table] == [
        ("20", "Rasch"), ("20", "# correct"), ("30", "Rasch"), ("30", "# correct"), ("50", "Rasch"), ("50", "# correct")]
    figures = json.loads((tmp_path / "eq" / "plots_equating.json").read_text())
    assert set(figures) == {"fig6_equating_20", "fig6_equating_30", "fig6_equating_50"}


def test_hits_then_fit(earshot, capsys, tmp_path):
    """The worked example of docs/rasch.md in miniature: ranked runs -> top-k hits -> Rasch fit."""
    (tmp_path / "qrels.txt").write_text("".join(f"{t} 0 rel{t} 1\n" for t in range(1, 7)))
    runs = {  # system -> topics where the relevant passage is ranked first
        "bm25": {1, 2, 3}, "ql": {1, 2, 4}, "rm3": {1, 2, 3, 5}, "mix": {1, 3, 4, 5, 6}, "weak": {2, 6}}
    for name, found in runs.items():
        lines = []
        for t in range(1, 7):
            first = f"rel{t}" if t in found else f"other{t}"
            lines += [f"{t} Q0 {first} 1 2.0 {name}\n", f"{t} Q0 filler{t} 2 1.0 {name}\n"]
        (tmp_path / f"{name}.run").write_text("".join(lines))
    args = ["rasch", "hits", "--qrels", "qrels.txt", "--k", "1", "--out", "hits.csv"]
    assert earshot(*args, *(f"{n}.run" for n in runs)) == 0
    assert "hits.csv: 5 runs x 6 topics, 17 hits in the top 1, 0 missing" in capsys.readouterr().out
    assert earshot("rasch", "fit", "hits.csv", "--no-plots") == 0
    systems = _csv(tmp_path / "hits_rasch" / "systems.csv")
    measure = {s["system"]: float(s["measure"]) for s in systems}
    assert measure["mix"] > measure["rm3"] > measure["bm25"] == measure["ql"] > measure["weak"]


def test_simulate_to_a_folder_is_refused_with_a_line(earshot, capsys, tmp_path):
    (tmp_path / "out").mkdir()
    assert earshot("rasch", "simulate", "--out", "out") == 1
    assert "out: is a folder; give a file name, e.g. out/simulated.csv" in capsys.readouterr().err
    assert list((tmp_path / "out").iterdir()) == []


def test_equate_sim_refuses_when_too_few_questions_fit(earshot, capsys, tmp_path):
    assert earshot("rasch", "simulate", "--seed", "3", "--out", "sim.csv") == 0
    assert earshot("rasch", "equate-sim", "sim.csv", "--no-plots", "--max-outfit", "0.5", "--out", "eq") == 1
    err = capsys.readouterr().err
    assert "Easy questions have outfit <= 0.5; cannot pick 20 equating questions" in err, err
