"""Section 2's measures: hand-computed values, a character-by-character twin, Figure 1, files, t-tests."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.passages import (
    Judgement,
    Retrieved,
    bpref_at,
    bpref_at_min,
    bpref_at_r,
    char_average_precision,
    char_r_precision,
    compare,
    comparison_table,
    evaluate_run,
    halve_passages,
    paired_t_test,
    passage_r_precision,
    precision_at,
    precision_at_min,
    ranked_units,
    read_qrels,
    read_run,
    write_qrels,
    write_run,
)

from . import naive


def run_of(topic, spans):
    return [Retrieved(topic, d, a, b - a, k + 1, -k) for k, (d, a, b) in enumerate(spans)]


def qrels_of(topic, spans):
    return [Judgement(topic, d, a, b - a) for d, a, b in spans]


# Judged: D[0,10) and D[20,30): R = 20 characters in R_p = 2 passages.
# Run: D[5,15) D[0,8) D[18,26) -> ranked characters R5 N5 | R5 N3 | N2 R6
# (the second passage repeats 5-7: counted non-relevant).
JUDGED = qrels_of("t", [("D", 0, 10), ("D", 20, 30)])
RUN = run_of("t", [("D", 5, 15), ("D", 0, 8), ("D", 18, 26)])


@pytest.fixture
def example():
    return ranked_units(RUN, JUDGED)


def test_runs_of_the_example(example):
    assert example.lengths.tolist() == [5, 5, 5, 3, 2, 6]  # runs never span two passages
    assert example.relevant.tolist() == [True, False, True, False, False, True]
    assert example.passage.tolist() == [0, 0, 1, 1, 2, 2]
    assert (example.n_relevant, example.n_judged) == (20, 2)


def test_passage_r_precision_by_hand(example):
    # First R_p = 2 passages hold 10 + 8 characters, 5 + 5 of them relevant (first time).
    assert passage_r_precision(example) == pytest.approx(10 / 18)


def test_precision_by_hand(example):
    assert char_r_precision(example) == pytest.approx(10 / 20)  # R5 N5 R5 N5
    assert precision_at_min(example, 12) == pytest.approx(7 / 12)  # R5 N5 R2
    assert precision_at_min(example, 12_000) == char_r_precision(example)
    assert precision_at(example, 30) == pytest.approx(16 / 30)  # ranks past the run count as non-relevant


def test_bpref_by_hand(example):
    # k = R = 20: 5 relevant with no non-relevant before (1 each), 5 after 5 (0.75), 6 after 10 (0.5).
    assert bpref_at_r(example) == pytest.approx((5 + 5 * 0.75 + 6 * 0.5) / 20)
    # k = 12: only the first 12 relevant count: 5 x 1, 5 x (1 - 5/12), 2 x (1 - 10/12).
    assert bpref_at_min(example, 12) == pytest.approx((5 + 5 * 7 / 12 + 2 * 2 / 12) / 12)
    assert bpref_at(example, 12) == bpref_at_min(example, 12)


def test_average_precision_by_hand(example):
    # Relevant characters at ranks 1-5, 11-15, 21-26; four never retrieved (rank infinity).
    by_hand = (5 + sum((5 + i) / (10 + i) for i in range(1, 6)) + sum((10 + i) / (20 + i) for i in range(1, 7))) / 20
    assert char_average_precision(example) == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.5743447856491335)


def test_seconds_by_hand():
    # Judged 0-2 s; retrieved 1-3 s: 1,000 relevant then 1,000 non-relevant milliseconds, R = 2,000.
    ru = ranked_units(run_of("t", [("D", 1.0, 3.0)]), qrels_of("t", [("D", 0.0, 2.0)]), units="seconds")
    assert (ru.lengths.tolist(), ru.n_relevant) == ([1000, 1000], 2000)
    assert passage_r_precision(ru) == pytest.approx(0.5)
    assert char_r_precision(ru) == pytest.approx(0.5)
    assert bpref_at_r(ru) == pytest.approx(0.5)
    assert char_average_precision(ru) == pytest.approx(0.5)
    ev = evaluate_run({"t": run_of("t", [("D", 1.0, 3.0)])}, {"t": qrels_of("t", [("D", 0.0, 2.0)])},
                      units="seconds", n=1.5)
    assert ev.per_topic["t"]["prec@2"] == pytest.approx(1000 / 1500)  # N = 1.5 s, label rounded


@pytest.mark.parametrize("trial", range(30))
def test_measures_match_character_by_character(rng, trial):
    docs = ["A", "B", "C"]
    judged = [(docs[rng.integers(3)], a, a + int(rng.integers(1, 40))) for a in rng.integers(0, 150, 4)]
    retrieved = [(docs[rng.integers(3)], a, a + int(rng.integers(1, 60))) for a in rng.integers(0, 150, 8)]
    ru = ranked_units(run_of("t", retrieved), qrels_of("t", judged))
    flags, passage, n_rel = naive.ranked_flags(retrieved, judged)
    assert ru.n_relevant == n_rel and int(ru.lengths.sum()) == len(flags)
    n = int(rng.integers(1, 80))
    assert passage_r_precision(ru) == pytest.approx(naive.passage_r_precision(flags, passage, len(judged)))
    assert precision_at_min(ru, n) == pytest.approx(naive.precision_at(flags, min(n, n_rel)))
    assert bpref_at_min(ru, n) == pytest.approx(naive.bpref_at(flags, min(n, n_rel)))
    assert char_r_precision(ru) == pytest.approx(naive.precision_at(flags, n_rel))
    assert bpref_at_r(ru) == pytest.approx(naive.bpref_at(flags, n_rel))
    assert char_average_precision(ru) == pytest.approx(naive.average_precision(flags, n_rel), rel=1e-9)


def test_figure_1_halving_inflates_passage_r_precision_only():
    # One judged 100-character passage; the run returns it at the head of a 400-character passage.
    qrels = {"t": qrels_of("t", [("D", 0, 100)])}
    run = {"t": run_of("t", [("D", 0, 400), ("E", 0, 300)])}
    series = []
    for _ in range(6):
        series.append(evaluate_run(run, qrels).per_topic["t"])
        run = halve_passages(run)
    assert [s["psg_rprec"] for s in series] == pytest.approx([0.25, 0.5, 1.0, 1.0, 1.0, 1.0])
    for m in ("prec@12000", "bpref@12000", "rprec", "bpref@R", "cap"):
        assert {s[m] for s in series} == {series[0][m]}


@pytest.mark.parametrize("trial", range(5))
def test_halving_never_changes_a_character_measure(rng, trial):
    spans = [(str(rng.integers(3)), a, a + int(rng.integers(2, 90))) for a in rng.integers(0, 300, 12)]
    judged = [(str(rng.integers(3)), a, a + int(rng.integers(5, 60))) for a in rng.integers(0, 300, 5)]
    run, qrels = {"t": run_of("t", spans)}, {"t": qrels_of("t", judged)}
    before = evaluate_run(run, qrels).per_topic["t"]
    after = evaluate_run(halve_passages(halve_passages(run)), qrels).per_topic["t"]
    for m in ("prec@12000", "bpref@12000", "rprec", "bpref@R", "cap"):
        assert after[m] == pytest.approx(before[m], abs=1e-12)


def test_missing_topic_scores_zero_and_unjudged_topic_is_ignored():
    qrels = {"a": qrels_of("a", [("D", 0, 10)]), "b": qrels_of("b", [("D", 0, 10)])}
    run = {"a": run_of("a", [("D", 0, 10)]), "z": run_of("z", [("D", 0, 10)])}
    ev = evaluate_run(run, qrels)
    assert sorted(ev.per_topic) == ["a", "b"]
    assert ev.per_topic["a"]["cap"] == 1.0 and ev.per_topic["b"]["cap"] == 0.0
    assert ev.means()["rprec"] == 0.5


def test_files_round_trip(tmp_path):
    write_run(tmp_path / "run", RUN, tag="x")
    write_qrels(tmp_path / "qrels", JUDGED)
    assert read_run(tmp_path / "run")["t"] == RUN
    assert read_qrels(tmp_path / "qrels")["t"] == JUDGED
    (tmp_path / "q2").write_text("# comment\nt D 0 10 1\nt D 50 10 0\n")
    assert read_qrels(tmp_path / "q2")["t"] == [Judgement("t", "D", 0, 10)]


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        pytest.param(read_run, "t D 0 10 1\n", "needs 6 fields", id="short-run-line"),
        pytest.param(read_run, "t D zero 10 1 0.5\n", "must be numbers", id="non-numeric-offset"),
        pytest.param(read_qrels, "t D 5 0\n", "length > 0", id="empty-judgement"),
        pytest.param(read_qrels, "t D\n", "needs 4 fields", id="short-qrels-line"),
    ],
)
def test_bad_files_name_the_line(tmp_path, reader, text, message):
    path = tmp_path / "bad"
    path.write_text(text)
    with pytest.raises(ParameterError, match=f"bad:1: .*{message}"):
        reader(path)


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(ParameterError, match="cannot read run"):
        read_run(tmp_path / "absent")


def test_paired_t_test_by_hand():
    # Differences 0, 1, 2, 3: mean 1.5, sd 1.2910, t = 2.3238 on 3 df, two-tailed p = 0.1027.
    assert paired_t_test(np.array([1, 2, 3, 4]), np.array([1, 1, 1, 1])) == pytest.approx(0.10272807885839899)
    assert paired_t_test(np.ones(4), np.ones(4)) == 1.0


def test_compare_and_table():
    qrels = {t: qrels_of(t, [("D", 0, 10)]) for t in "abcd"}
    good = {t: run_of(t, [("D", 0, 10)]) for t in "abcd"}
    poor = {t: run_of(t, [("D", 5, 20)]) for t in "abcd"}
    mixed = {t: run_of(t, [("D", 0, 10)] if t in "ab" else [("D", 10, 20)]) for t in "abcd"}
    c = compare([evaluate_run(r, qrels, name=n) for n, r in (("good", good), ("poor", poor), ("mixed", mixed))])
    assert c.means["rprec"] == {"good": 1.0, "poor": 0.5, "mixed": 0.5}
    assert c.p_values["rprec"][("good", "poor")] == 0.0  # the same difference on every topic
    table = comparison_table(c, "rprec")
    assert table.splitlines()[-1].startswith("| good | 1.0000 |") and "(+100.0%)" in table


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: precision_at(ranked_units(RUN, JUDGED), 0), "k >= 1"),
        (lambda: ranked_units(RUN, JUDGED, units="bytes"), "units must be"),
        (lambda: compare([evaluate_run({}, {})]), "at least two runs"),
        (lambda: evaluate_run({}, {}, n=0), "N must be positive"),
    ],
    ids=["zero-k", "bad-units", "one-run", "zero-n"],
)
def test_bad_arguments(call, message):
    with pytest.raises(ParameterError, match=message):
        call()
