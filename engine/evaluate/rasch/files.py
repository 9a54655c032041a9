"""Reading response matrices and anchor files; writing tables.

Two layouts, CSV or TSV (tab-separated when the name ends in .tsv/.tab, or
when the first line holds a tab):

- wide: a header ``<label>,Q1,Q2,...``, then one row per system
  ``<system id>,1,0,,1,...`` with 1 right, 0 wrong, blank (or NA, .) missing;
- long: a header naming at least the columns ``system``, ``question`` and
  ``correct`` (any order, other columns ignored), one response per row.

Every problem is reported as one line naming the file, the line and column
where they are known, and the reason (:class:`MatrixFileError`).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from engine.errors import file_access_reason
from engine.evaluate.rasch.errors import MatrixFileError
from engine.evaluate.rasch.matrix import MISSING, ResponseMatrix
from engine.userfiles import read_bytes

#: Cell values accepted in a matrix, after stripping blanks.
CELL_CODES = {"1": 1, "0": 0, "": MISSING, "NA": MISSING, "na": MISSING, ".": MISSING}
LONG_COLUMNS = ("system", "question", "correct")
LAYOUTS = ("auto", "wide", "long")
#: Statuses (as written by ``rasch fit``) whose measures cannot serve as anchors.
_NOT_ANCHORS = {"all_right", "all_wrong", "no_responses"}


def read_matrix(path: str | Path, *, layout: str = "auto") -> ResponseMatrix:
    """Read a response matrix from a CSV/TSV file, wide or long layout.

    Raises :class:`MatrixFileError` for anything wrong with the file: missing,
    not text, ragged rows, values other than 1/0/blank, duplicate or empty
    ids, systems or questions without a single response.
    """
    if layout not in LAYOUTS:
        raise MatrixFileError(path, f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    p = Path(path)
    rows = _csv_rows(p)
    line, header, names = _header(p, rows, "no header and no responses")
    is_long = all(c in names for c in LONG_COLUMNS)
    if layout == "long" and not is_long:
        missing = [c for c in LONG_COLUMNS if c not in names]
        raise MatrixFileError(p, f"long layout needs the columns {', '.join(LONG_COLUMNS)}; "
                                 f"missing {', '.join(missing)}", line=line)
    if layout == "long" or (layout == "auto" and is_long):
        return _read_long(p, names, rows)
    return _read_wide(p, line, header, rows)


def _header(path: Path, rows: Iterator[tuple[int, list[str]]], if_empty: str) -> tuple[int, list[str], list[str]]:
    """Take the first row off ``rows``: its line number, its cells and their lower-cased names.
    An empty file raises MatrixFileError("empty file: " + ``if_empty``)."""
    try:
        line, header = next(rows)
    except StopIteration:
        raise MatrixFileError(path, f"empty file: {if_empty}") from None
    return line, header, [h.strip().lower() for h in header]


def _csv_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every non-blank row."""
    text = _read_text(path)
    first = text.split("\n", 1)[0]
    delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") or "\t" in first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    start = 1
    try:
        for row in reader:
            if row and any(cell.strip() for cell in row):
                yield start, row
            start = reader.line_num + 1
    except csv.Error as exc:
        raise MatrixFileError(path, f"not valid CSV: {exc}", line=reader.line_num) from None


def _read_text(path: Path) -> str:
    try:
        data = read_bytes(path)
    except OSError as exc:
        raise MatrixFileError(path, file_access_reason(exc, "read")) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MatrixFileError(path, f"not UTF-8 text (byte 0x{data[exc.start]:02x})", line=line) from None


def _read_wide(path: Path, header_line: int, header: list[str], rows: Iterable[tuple[int, list[str]]]) -> ResponseMatrix:
    questions = [h.strip() for h in header[1:]]
    if not questions:
        raise MatrixFileError(path, "the header has no question columns (is the delimiter right?)", line=header_line)
    seen_q: dict[str, int] = {}
    for j, q in enumerate(questions, start=2):
        if not q:
            raise MatrixFileError(path, "empty question id in the header", line=header_line, column=j)
        if q in seen_q:
            raise MatrixFileError(path, f"question {q!r} appears twice in the header (columns {seen_q[q]} and {j})",
                                  line=header_line, column=j)
        seen_q[q] = j
    width = len(header)
    systems: list[str] = []
    seen_s: dict[str, int] = {}
    values: list[list[int]] = []
    for line, row in rows:
        if len(row) != width:
            raise MatrixFileError(path, f"{len(row)} cells but the header has {width}", line=line)
        system = row[0].strip()
        if not system:
            raise MatrixFileError(path, "empty system id", line=line, column=1)
        if system in seen_s:
            raise MatrixFileError(path, f"system {system!r} appears twice (lines {seen_s[system]} and {line})",
                                  line=line, column=1)
        seen_s[system] = line
        try:
            codes = [CELL_CODES[c] for c in row[1:]]
        except KeyError:
            codes = _codes_slowly(path, line, row, questions)
        if max(codes) == MISSING:
            raise MatrixFileError(path, f"system {system!r} has no responses (every cell blank)", line=line)
        systems.append(system)
        values.append(codes)
    if not systems:
        raise MatrixFileError(path, "no systems: the file has a header but no rows")
    responses = np.array(values, dtype=np.int8)
    empty = np.flatnonzero((responses == MISSING).all(axis=0))
    if empty.size:
        j = int(empty[0])
        raise MatrixFileError(path, f"question {questions[j]!r} has no responses (every cell blank)", column=j + 2)
    return ResponseMatrix(tuple(systems), tuple(questions), responses, source=path.name)


def _codes_slowly(path: Path, line: int, row: list[str], questions: list[str]) -> list[int]:
    """Cell codes allowing blanks around values; names the first bad cell."""
    codes = []
    for j, cell in enumerate(row[1:]):
        code = CELL_CODES.get(cell.strip())
        if code is None:
            raise MatrixFileError(
                path, f"value {cell!r} (system {row[0].strip()!r}, question {questions[j]!r}) is not 1, 0 or blank",
                line=line, column=j + 2,
            )
        codes.append(code)
    return codes


def _read_long(path: Path, names: list[str], rows: Iterable[tuple[int, list[str]]]) -> ResponseMatrix:
    i_sys, i_q, i_c = (names.index(c) for c in LONG_COLUMNS)
    need = max(i_sys, i_q, i_c) + 1
    system_pos: dict[str, int] = {}
    question_pos: dict[str, int] = {}
    cells: dict[tuple[int, int], tuple[int, int]] = {}  # (row, col) -> (code, line)
    first_line: dict[int, int] = {}
    for line, row in rows:
        if len(row) < need:
            raise MatrixFileError(path, f"{len(row)} cells but the columns system, question, correct need {need}",
                                  line=line)
        system, question, value = row[i_sys].strip(), row[i_q].strip(), row[i_c].strip()
        if not system:
            raise MatrixFileError(path, "empty system id", line=line, column=i_sys + 1)
        if not question:
            raise MatrixFileError(path, "empty question id", line=line, column=i_q + 1)
        code = CELL_CODES.get(value)
        if code is None:
            raise MatrixFileError(path, f"value {value!r} of 'correct' is not 1, 0 or blank", line=line,
                                  column=i_c + 1)
        r = system_pos.setdefault(system, len(system_pos))
        c = question_pos.setdefault(question, len(question_pos))
        first_line.setdefault(r, line)
        if (r, c) in cells:
            raise MatrixFileError(path, f"system {system!r} and question {question!r} already given on line "
                                        f"{cells[(r, c)][1]}", line=line)
        cells[(r, c)] = (code, line)
    if not cells:
        raise MatrixFileError(path, "no responses: the file has a header but no rows")
    responses = np.full((len(system_pos), len(question_pos)), MISSING, dtype=np.int8)
    for (r, c), (code, _) in cells.items():
        responses[r, c] = code
    systems = tuple(system_pos)
    questions = tuple(question_pos)
    empty_rows = np.flatnonzero((responses == MISSING).all(axis=1))
    if empty_rows.size:
        first = int(empty_rows[0])
        raise MatrixFileError(path, f"system {systems[first]!r} has no responses (every 'correct' blank)",
                              line=first_line[first])
    empty_cols = np.flatnonzero((responses == MISSING).all(axis=0))
    if empty_cols.size:  # pragma: no cover - a question only exists through a row that names it
        raise MatrixFileError(path, f"question {questions[int(empty_cols[0])]!r} has no responses")
    return ResponseMatrix(systems, questions, responses, source=path.name)


def read_anchors(path: str | Path) -> dict[str, float]:
    """Question id -> difficulty (logits) from an earlier calibration.

    Accepted: CSV/TSV with a header holding ``question`` and ``difficulty`` (or
    ``measure``, as in the ``questions.csv`` that ``rasch fit`` writes; rows whose
    ``status`` is all_right, all_wrong or no_responses are skipped), or JSON: an
    object ``{"Q1": -0.5, ...}`` or a list of such records (``questions.json``).
    """
    p = Path(path)
    if p.suffix.lower() == ".json":
        return _anchors_from_json(p)
    rows = _csv_rows(p)
    line, _, names = _header(p, rows, "expected a header with question and difficulty columns")
    value_name = "difficulty" if "difficulty" in names else "measure" if "measure" in names else None
    if "question" not in names or value_name is None:
        raise MatrixFileError(p, "the header needs a 'question' column and a 'difficulty' (or 'measure') column",
                              line=line)
    i_q, i_v = names.index("question"), names.index(value_name)
    i_status = names.index("status") if "status" in names else None
    anchors: dict[str, float] = {}
    lines: dict[str, int] = {}
    for line, row in rows:
        if len(row) <= max(i_q, i_v):
            raise MatrixFileError(p, f"{len(row)} cells, fewer than the header's columns", line=line)
        if i_status is not None and i_status < len(row) and row[i_status].strip() in _NOT_ANCHORS:
            continue
        question, text = row[i_q].strip(), row[i_v].strip()
        if not question:
            raise MatrixFileError(p, "empty question id", line=line, column=i_q + 1)
        if question in anchors:
            raise MatrixFileError(p, f"question {question!r} anchored twice (lines {lines[question]} and {line})",
                                  line=line)
        anchors[question] = _logits(p, text, line=line, column=i_v + 1)
        lines[question] = line
    if not anchors:
        raise MatrixFileError(p, "no anchors: the file lists no question with a difficulty")
    return anchors


def _anchors_from_json(path: Path) -> dict[str, float]:
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise MatrixFileError(path, f"not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    anchors: dict[str, float] = {}
    if isinstance(data, dict):
        items: list[tuple[str, object]] = [(str(k), v) for k, v in data.items()]
    elif isinstance(data, list):
        items = []
        for k, rec in enumerate(data):
            if not isinstance(rec, dict) or "question" not in rec:
                raise MatrixFileError(path, f"record #{k + 1} is not an object with a 'question' key")
            if rec.get("status") in _NOT_ANCHORS:
                continue
            value = rec.get("difficulty", rec.get("measure"))
            items.append((str(rec["question"]), value))
    else:
        raise MatrixFileError(path, "expected an object {question: difficulty} or a list of records")
    for question, value in items:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise MatrixFileError(path, f"difficulty of question {question!r} is {value!r}, not a number of logits")
        anchors[question] = float(value)
    if not anchors:
        raise MatrixFileError(path, "no anchors: the file lists no question with a difficulty")
    return anchors


def _logits(path: Path, text: str, *, line: int, column: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise MatrixFileError(path, f"difficulty {text!r} is not a number", line=line, column=column) from None
    if not math.isfinite(value):
        raise MatrixFileError(path, f"difficulty {text!r} is not finite", line=line, column=column)
    return value


def write_matrix(matrix: ResponseMatrix, path: str | Path) -> Path:
    """Write the wide layout (tab-separated for .tsv, else CSV; blank = missing)."""
    p = Path(path)
    delimiter = "\t" if p.suffix.lower() in (".tsv", ".tab") else ","
    text = {1: "1", 0: "0", MISSING: ""}
    try:
        with p.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
            w.writerow(["system", *matrix.questions])
            for system, row in zip(matrix.systems, matrix.responses, strict=True):
                w.writerow([system, *(text[int(v)] for v in row)])
    except OSError as exc:
        raise MatrixFileError(p, f"cannot write ({exc.strerror or exc})") from None
    return p


def write_csv(records: Sequence[Mapping[str, object]], path: str | Path, columns: Sequence[str] | None = None) -> Path:
    """Write dict records as CSV; None and NaN become empty cells, floats get 6 decimals."""
    p = Path(path)
    cols = list(columns) if columns is not None else list(records[0]) if records else []
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        for rec in records:
            w.writerow([_cell(rec.get(c)) for c in cols])
    return p


def write_json(data: object, path: str | Path) -> Path:
    """Write JSON with NaN/inf as null and NumPy values as plain numbers."""
    p = Path(path)
    p.write_text(json.dumps(to_plain(data), indent=1, allow_nan=False) + "\n", encoding="utf-8")
    return p


def to_plain(data: object) -> object:
    """Recursively turn NumPy arrays/scalars into lists/numbers and NaN into None."""
    if isinstance(data, dict):
        return {str(k): to_plain(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [to_plain(v) for v in data]
    if isinstance(data, np.ndarray):
        return [to_plain(v) for v in data.tolist()]
    if isinstance(data, np.generic):
        data = data.item()
    if isinstance(data, float) and not math.isfinite(data):
        return None
    return data


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.6g}" if abs(value) >= 1e6 else f"{value:.6f}"
    return str(value)
