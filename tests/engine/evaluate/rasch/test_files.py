"""Reading matrices and anchors: both layouts, and one exact line per bad file."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from engine.errors import EarshotError, ParameterError
from engine.evaluate.rasch import MatrixFileError, ResponseMatrix, read_anchors, read_matrix, records_matrix, write_matrix


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_wide_csv_with_missing(tmp_path):
    path = _write(tmp_path, "m.csv", "system,q1,q2,q3\nA,1,0,\nB, 0 ,1,1\n\nC,NA,1,0\n")
    m = read_matrix(path)
    assert m.systems == ("A", "B", "C") and m.questions == ("q1", "q2", "q3")
    assert m.responses.tolist() == [[1, 0, -1], [0, 1, 1], [-1, 1, 0]]
    assert m.source == "m.csv"


def test_wide_tsv_by_extension_and_by_sniffing(tmp_path):
    text = "run\tT1\tT2\nx\t1\t0\ny\t0\t1\n"
    for name in ("m.tsv", "m.txt"):
        m = read_matrix(_write(tmp_path, name, text))
        assert m.questions == ("T1", "T2") and m.responses.tolist() == [[1, 0], [0, 1]]


def test_long_layout(tmp_path):
    text = "question,system,correct,note\nq1,A,1,x\nq2,A,0,\nq1,B,0,\nq2,B,,unjudged\nq3,B,1,\n"
    m = read_matrix(_write(tmp_path, "long.csv", text))
    assert m.systems == ("A", "B") and m.questions == ("q1", "q2", "q3")
    assert m.responses.tolist() == [[1, 0, -1], [0, -1, 1]]


def test_roundtrip_through_write_matrix(tmp_path, rng):
    values = rng.integers(0, 2, (5, 4)).astype(float)
    values[1, 2] = np.nan
    m = ResponseMatrix.from_array(values, systems=list("abcde"))
    again = read_matrix(write_matrix(m, tmp_path / "out.tsv"))
    assert again.systems == m.systems and np.array_equal(again.responses, m.responses)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.csv", "", "a.csv: empty file: no header and no responses"),
        ("a.csv", "system,q1,q2\n", "a.csv: no systems: the file has a header but no rows"),
        ("a.csv", "system\nA\n", "a.csv: line 1: the header has no question columns (is the delimiter right?)"),
        ("a.csv", "system,q1,q2\nA,1,2\n",
         "a.csv: line 2, column 3: value '2' (system 'A', question 'q2') is not 1, 0 or blank"),
        ("a.csv", "system,q1,q2\nA,1,0\nB,yes,0\n",
         "a.csv: line 3, column 2: value 'yes' (system 'B', question 'q1') is not 1, 0 or blank"),
        ("a.csv", "system,q1,q2\nA,1,0\nA,0,1\n", "a.csv: line 3, column 1: system 'A' appears twice (lines 2 and 3)"),
        ("a.csv", "system,q1,q1\nA,1,0\n",
         "a.csv: line 1, column 3: question 'q1' appears twice in the header (columns 2 and 3)"),
        ("a.csv", "system,q1,\nA,1,0\n", "a.csv: line 1, column 3: empty question id in the header"),
        ("a.csv", "system,q1,q2\nA,1,0\nB,,\n", "a.csv: line 3: system 'B' has no responses (every cell blank)"),
        ("a.csv", "system,q1,q2\nA,1,\nB,0,\n", "a.csv: column 3: question 'q2' has no responses (every cell blank)"),
        ("a.csv", "system,q1,q2\nA,1,0,1\n", "a.csv: line 2: 4 cells but the header has 3"),
        ("a.csv", "system,q1,q2\n,1,0\n", "a.csv: line 2, column 1: empty system id"),
        ("l.csv", "system,question,correct\nA,q1,1\nA,q1,0\n",
         "l.csv: line 3: system 'A' and question 'q1' already given on line 2"),
        ("l.csv", "system,question,correct\nA,q1,0.5\n",
         "l.csv: line 2, column 3: value '0.5' of 'correct' is not 1, 0 or blank"),
        ("l.csv", "system,question,correct\nA,q1,1\nB,q1,\n",
         "l.csv: line 3: system 'B' has no responses (every 'correct' blank)"),
        ("l.csv", "system,question,correct\nA,q1\n",
         "l.csv: line 2: 2 cells but the columns system, question, correct need 3"),
    ],
    ids=["empty", "header-only", "no-questions", "value-2", "value-yes", "duplicate-system", "duplicate-question",
         "empty-question-id", "empty-row", "empty-column", "ragged-row", "empty-system-id", "long-duplicate",
         "long-non-binary", "long-empty-system", "long-short-row"],
)
def test_bad_matrix_files(tmp_path, name, text, message):
    path = _write(tmp_path, name, text)
    with pytest.raises(MatrixFileError) as info:
        read_matrix(path)
    assert str(info.value) == f"{tmp_path / message.split(':')[0]}:{message.split(':', 1)[1]}"
    assert "\n" not in str(info.value)


def test_file_level_errors(tmp_path):
    with pytest.raises(MatrixFileError, match=r"nope.csv: file not found$"):
        read_matrix(tmp_path / "nope.csv")
    with pytest.raises(MatrixFileError, match=r": is a folder, not a file$"):
        read_matrix(tmp_path)
    bad = tmp_path / "bin.csv"
    bad.write_bytes(b"system,q1\nA,1\n\xff\xfe\n")
    with pytest.raises(MatrixFileError, match=r"bin.csv: line 3: not UTF-8 text \(byte 0xff\)$"):
        read_matrix(bad)
    with pytest.raises(MatrixFileError, match=r"long layout needs the columns system, question, correct; missing "
                                              r"question, correct"):
        read_matrix(_write(tmp_path, "w.csv", "system,q1\nA,1\n"), layout="long")
    assert isinstance(MatrixFileError("f", "r"), EarshotError)


def test_anchors_from_csv_table_and_json(tmp_path):
    path = _write(tmp_path, "questions.csv",
                  "question,status,measure,se\nq1,measured,-1.5,0.3\nq2,all_right,-6.1,1.8\nq3,measured,0.25,0.2\n")
    assert read_anchors(path) == {"q1": -1.5, "q3": 0.25}
    path = _write(tmp_path, "a.tsv", "question\tdifficulty\nq1\t1\n")
    assert read_anchors(path) == {"q1": 1.0}
    path = _write(tmp_path, "a.json", json.dumps({"q1": 0.5, "q2": -1}))
    assert read_anchors(path) == {"q1": 0.5, "q2": -1.0}
    records = [{"question": "q1", "status": "measured", "measure": 0.1}, {"question": "q2", "status": "all_wrong",
                                                                          "measure": 5.0}]
    assert read_anchors(_write(tmp_path, "q.json", json.dumps(records))) == {"q1": 0.1}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.csv", "question,value\nq1,1\n", "line 1: the header needs a 'question' column and a 'difficulty'"),
        ("a.csv", "question,difficulty\nq1,easy\n", "line 2, column 2: difficulty 'easy' is not a number"),
        ("a.csv", "question,difficulty\nq1,1\nq1,2\n", "line 3: question 'q1' anchored twice (lines 2 and 3)"),
        ("a.csv", "question,difficulty\n", "no anchors: the file lists no question with a difficulty"),
        ("a.json", '{"q1": "hard"}', "difficulty of question 'q1' is 'hard', not a number of logits"),
        ("a.json", "{oops", "line 1, column 2: not valid JSON"),
    ],
    ids=["no-difficulty-column", "not-a-number", "twice", "empty", "json-string", "json-syntax"],
)
def test_bad_anchor_files(tmp_path, name, text, message):
    with pytest.raises(MatrixFileError, match=re.escape(f"{name}: {message}")):
        read_anchors(_write(tmp_path, name, text))


def test_matrix_validation():
    with pytest.raises(ParameterError, match=r"value 2.0 at row 0, column 1 is not 0, 1 or missing"):
        ResponseMatrix.from_array([[1, 2]])
    with pytest.raises(ParameterError, match=r"system id 'a' appears twice \(#1 and #2\)"):
        ResponseMatrix.from_array([[1], [0]], systems=["a", "a"])
    with pytest.raises(ParameterError, match=r"responses have shape \(1, 2\) but there are 1 systems and 1 questions"):
        ResponseMatrix(("a",), ("q",), np.zeros((1, 2), np.int8))


def test_records_matrix():
    m = records_matrix([("asr-a", "ORG:1", True), ("asr-a", "PER:2", 0), ("asr-b", "ORG:1", None)])
    assert m.responses.tolist() == [[1, 0], [-1, -1]]
    with pytest.raises(ParameterError, match="given twice"):
        records_matrix([("a", "q", 1), ("a", "q", 0)])
