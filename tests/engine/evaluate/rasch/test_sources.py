"""Response matrices from ranked runs: 'relevant passage in the top k' per run x topic."""

from __future__ import annotations

import pytest

from engine.errors import ParameterError
from engine.evaluate.rasch import MatrixFileError, hits_matrix, read_qrels, read_trec_run

QRELS = "1 0 p1 1\n1 0 p2 0\n2 0 p9 2\n3 0 p5 0\n10 0 p7 1\n"
# topic 1: p1 relevant; topic 2: p9; topic 3: none relevant (left out); topic 10: p7.
RUN_A = "1 Q0 p2 1 9.0 a\n1 Q0 p1 2 8.0 a\n2 Q0 p9 1 5.0 a\n10 Q0 p3 1 1.0 a\n"
RUN_B = "1 Q0 p1 2 1.0 b\n1 Q0 p2 1 3.0 b\n1 Q0 p4 3 2.0 b\n"  # ranked by score: p2, p4, p1


def test_qrels_keep_the_relevant_passages(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    assert read_qrels(tmp_path / "qrels") == {"1": {"p1"}, "2": {"p9"}, "3": set(), "10": {"p7"}}


def test_hits_matrix(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run").write_text(RUN_B)
    qrels = read_qrels(tmp_path / "qrels")
    runs = {"a": read_trec_run(tmp_path / "a.run"), "b": read_trec_run(tmp_path / "b.run")}
    assert runs["b"]["1"] == ["p2", "p4", "p1"]
    top2 = hits_matrix(runs, qrels, k=2)
    assert top2.systems == ("a", "b") and top2.questions == ("1", "2", "10")
    assert top2.responses.tolist() == [[1, 1, 0], [0, -1, -1]]
    top3 = hits_matrix(runs, qrels, k=3, unanswered="wrong")
    assert top3.responses.tolist() == [[1, 1, 0], [1, 0, 0]]
    with pytest.raises(ParameterError, match="k must be >= 1, got 0"):
        hits_matrix(runs, qrels, k=0)


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        (read_trec_run, "1 Q0 p1 1 9.0\n", "line 1: 5 fields; a run line is 'topic Q0 passage rank score tag'"),
        (read_trec_run, "1 Q0 p1 one 9.0 a\n", "line 1: rank 'one' or score '9.0' is not a number"),
        (read_trec_run, "\n\n", "empty run: no ranked passages"),
        (read_qrels, "1 0 p1\n", "line 1: 3 fields; a qrels line is 'topic 0 passage relevance'"),
        (read_qrels, "1 0 p1 yes\n", "line 1, column 4: relevance 'yes' is not a number"),
        (read_qrels, "1 0 p1 0\n", "no relevant passages: every judgment is 0"),
    ],
    ids=["run-short-line", "run-bad-rank", "run-empty", "qrels-short-line", "qrels-bad-grade", "qrels-none-relevant"],
)
def test_bad_run_and_qrels_files(tmp_path, reader, text, message):
    path = tmp_path / "f.txt"
    path.write_text(text)
    with pytest.raises(MatrixFileError) as info:
        reader(path)
    assert str(info.value) == f"{path}: {message}"
