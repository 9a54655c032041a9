"""Response matrices from evaluation runs.

- :func:`hits_matrix`: ranked retrieval runs (one per system or setting) and
  relevance judgments -> 1 where a relevant passage is in the run's top k for
  the topic. Runs and judgments in the TREC formats, which ``eval passages``
  and most IR tools write:
  run ``topic Q0 passage rank score tag``; qrels ``topic 0 passage relevance``.
- :func:`records_matrix`: any (system, question, correct) triples, e.g. per
  system x entity from entity scoring (1 = entity found with the right type
  and extent).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.rasch.errors import MatrixFileError
from engine.evaluate.rasch.matrix import MISSING, ResponseMatrix
from engine.numtext import whole_number
from engine.userfiles import read_text


def read_trec_run(path: str | Path) -> dict[str, list[str]]:
    """Topic -> passage ids ranked best first (by score, ties by rank, as trec_eval)."""
    p = Path(path)
    ranked: dict[str, list[tuple[float, int, str]]] = {}
    for line, fields in _fields(p):
        if len(fields) != 6:
            raise MatrixFileError(p, f"{len(fields)} fields; a run line is 'topic Q0 passage rank score tag'", line=line)
        topic, _, passage, rank, score, _ = fields
        try:
            key = (-float(score), int(rank), passage)
        except ValueError:
            raise MatrixFileError(p, f"rank {rank!r} or score {score!r} is not a number", line=line) from None
        ranked.setdefault(topic, []).append(key)
    if not ranked:
        raise MatrixFileError(p, "empty run: no ranked passages")
    return {t: [k[2] for k in sorted(v)] for t, v in ranked.items()}


def read_qrels(path: str | Path) -> dict[str, set[str]]:
    """Topic -> ids of passages judged relevant (relevance > 0)."""
    p = Path(path)
    relevant: dict[str, set[str]] = {}
    for line, fields in _fields(p):
        if len(fields) != 4:
            raise MatrixFileError(p, f"{len(fields)} fields; a qrels line is 'topic 0 passage relevance'", line=line)
        topic, _, passage, grade = fields
        try:
            rel = float(grade)
        except ValueError:
            raise MatrixFileError(p, f"relevance {grade!r} is not a number", line=line, column=4) from None
        bucket = relevant.setdefault(topic, set())
        if rel > 0:
            bucket.add(passage)
    if not any(relevant.values()):
        raise MatrixFileError(p, "no relevant passages: every judgment is 0")
    return relevant


def hits_matrix(
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, set[str]],
    *,
    k: int,
    unanswered: str = "missing",
) -> ResponseMatrix:
    """Run x topic matrix: 1 if a relevant passage is among the run's first ``k``.

    Parameters
    ----------
    runs : run name -> topic -> passage ids, best first.
    qrels : topic -> relevant passage ids; topics without any are left out.
    k : rank cut-off, >= 1.
    unanswered : what a topic the run returned nothing for counts as:
        ``"missing"`` (blank; the default) or ``"wrong"`` (0).
    """
    if k < 1:
        raise ParameterError(f"k must be >= 1, got {k}")
    if unanswered not in ("missing", "wrong"):
        raise ParameterError(f"unanswered must be 'missing' or 'wrong', got {unanswered!r}")
    if not runs:
        raise ParameterError("no runs given")
    topics = sorted((t for t, rel in qrels.items() if rel), key=_natural)
    if not topics:
        raise ParameterError("no topic has a relevant passage")
    names = list(runs)
    empty = MISSING if unanswered == "missing" else 0
    x = np.full((len(names), len(topics)), empty, dtype=np.int8)
    for i, name in enumerate(names):
        ranking = runs[name]
        for j, topic in enumerate(topics):
            if topic in ranking:
                x[i, j] = int(any(p in qrels[topic] for p in ranking[topic][:k]))
    return ResponseMatrix(tuple(names), tuple(topics), x, source=f"top-{k} hits")


def records_matrix(records: Iterable[tuple[str, str, int | bool | None]], *, source: str = "") -> ResponseMatrix:
    """Matrix from (system, question, correct) triples; correct None = missing.

    A (system, question) pair given twice is an error.
    """
    systems: dict[str, int] = {}
    questions: dict[str, int] = {}
    cells: dict[tuple[int, int], int] = {}
    for system, question, correct in records:
        r = systems.setdefault(str(system), len(systems))
        c = questions.setdefault(str(question), len(questions))
        if (r, c) in cells:
            raise ParameterError(f"system {system!r} and question {question!r} given twice")
        if correct is None:
            cells[(r, c)] = MISSING
        elif correct in (0, 1):  # also False/True
            cells[(r, c)] = int(correct)
        else:
            raise ParameterError(f"correct of system {system!r}, question {question!r} is {correct!r}; expected 1/0")
    if not cells:
        raise ParameterError("no records")
    x = np.full((len(systems), len(questions)), MISSING, dtype=np.int8)
    for (r, c), v in cells.items():
        x[r, c] = v
    return ResponseMatrix(tuple(systems), tuple(questions), x, source=source)


def _fields(path: Path) -> Iterable[tuple[int, list[str]]]:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise MatrixFileError(path, "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MatrixFileError(path, f"cannot read: {exc}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split()
        if fields:
            yield number, fields


def _natural(topic: str) -> tuple[int, int | str]:
    """Numeric topics in numeric order, before the others in text order."""
    number = whole_number(topic)
    return (0, number) if number is not None else (1, topic)
