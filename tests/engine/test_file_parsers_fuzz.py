"""Every file parser, fed random bytes and near-valid text: it returns, or raises the project's own error.

A traceback a user would see is any other exception. Hypothesis shrinks a failure to the
smallest file that causes it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EarshotError
from engine.evaluate import passages
from engine.evaluate.entities.readers import FORMATS, read_transcript
from engine.evaluate.rasch import sources
from engine.evaluate.rasch.files import read_anchors, read_matrix
from engine.importer.captions import read_captions
from engine.research.entities.conll import read_conll
from engine.segment import text as segment_text

#: Tokens that real files are made of, plus the ones that broke parsers before.
TOKENS = ["0", "1", "-1", "2.5", "1e308", "1e999", "nan", "NaN", "inf", "-inf", "", " ", "\t", ",", ";", ";;", "#",
          "(", ")", "(a1)", "<", ">", "<P>", "</P>", "<L>", '<ENAMEX TYPE="PERSON">', "</ENAMEX>", "<DOC>", "</DOC>",
          "<DOCNO>", "</DOCNO>", "<TEXT>", '<b_enamex type="PERSON">', "<e_enamex>", "Q0", "rec", "A", "word", "é",
          "system", "question", "\x00", "\r", "\ufeff", "-DOCSTART-", "O", "B-PER", "I-PER", '"', "'", "\\",
          "\n", "-->", "WEBVTT", "00:00:01,000", "00:02.500", "[00:01]", "9" * 400 + ":00:01,000", "[" + "9" * 5000 + ":00:01]"]

lines = st.lists(st.lists(st.sampled_from(TOKENS), max_size=8).map(" ".join), max_size=12).map("\n".join)
near_valid = lines.map(lambda t: t.encode("utf-8"))
raw_bytes = st.binary(max_size=400)
contents = st.one_of(near_valid, raw_bytes, near_valid.map(lambda b: b + b"\xe9\xff"))

def _evaluate_passages(path: Path) -> object:
    """A file read both as a run and as judgements, then scored in both units."""
    run, qrels = passages.read_run(path), passages.read_qrels(path)
    return [passages.evaluate_run(run, qrels, units=units) for units in ("chars", "seconds")]


PARSERS: dict[str, tuple[str, Callable[[Path], object]]] = {
    "passages-evaluate": ("run.txt", _evaluate_passages),
    "passages-run": ("run.txt", passages.read_run),
    "passages-qrels": ("qrels.txt", passages.read_qrels),
    "rasch-trec-run": ("a.run", sources.read_trec_run),
    "rasch-qrels": ("qrels.txt", sources.read_qrels),
    "rasch-matrix": ("m.csv", read_matrix),
    "rasch-matrix-tsv": ("m.tsv", read_matrix),
    "rasch-anchors": ("anchors.csv", read_anchors),
    "conll": ("train.txt", read_conll),
    "segment-txt3": ("a.txt3", segment_text.read_txt3),
    "segment-story-text": ("a.txt", segment_text.read_story_text),
    "segment-transcript": ("a.txt", segment_text.read_transcript),
    "segment-lee": ("lee.txt", segment_text.read_lee_articles),
    "entities-detected": ("ref.txt", read_transcript),
    **{f"entities-{fmt}": (f"ref.{fmt}", read_transcript) for fmt in FORMATS},
    **{f"captions-{fmt}": (f"a.{fmt}", read_captions) for fmt in ("srt", "vtt", "txt", "txt3")},
}


def returns_or_refuses(parse: Callable[[Path], object], path: Path) -> None:
    """Parse ``path``: any result, or the project's own error in one line; anything else propagates."""
    try:
        parse(path)
    except EarshotError as exc:
        assert "\n" not in str(exc).strip(), f"a multi-line error: {exc!r}"


#: Parsers whose hundred examples take over 2 s.
SLOW_PARSERS = frozenset({"conll"})


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_PARSERS else n for n in sorted(PARSERS)]
)
def test_a_parser_never_raises_anything_but_its_own_error(name: str) -> None:
    file_name, parse = PARSERS[name]

    @settings(max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=contents)
    def check(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / file_name
            path.write_bytes(data)
            returns_or_refuses(parse, path)

    check()


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_a_folder_or_a_missing_file_is_the_parsers_own_error(name: str, tmp_path: Path) -> None:
    _, parse = PARSERS[name]
    for path in (tmp_path, tmp_path / "missing.txt"):
        with pytest.raises(EarshotError, match=f"^{os.fspath(path)}"):
            parse(path)
