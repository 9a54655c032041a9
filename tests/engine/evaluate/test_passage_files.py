"""Run and judgement files with bad bytes or bad numbers give one line naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParameterError
from engine.evaluate.passages import read_qrels, read_run


@pytest.mark.parametrize(
    ("reader", "content", "message"),
    [
        (read_run, b"t1 d1 0 10 1 2.0 x\nt1 d\xe92 0 10 2 1.0 x\n", "run.txt: not UTF-8 text (byte 0xe9 at offset 23)"),
        (read_qrels, b"t1 d\xe9 0 10 1\n", "run.txt: not UTF-8 text (byte 0xe9 at offset 4)"),
        (read_run, b"t1 d1 nan 10 1 2.0 x\n", "run.txt:1: offset and length must be finite, got nan, 10.0"),
        (read_run, b"t1 d1 0 inf 1 2.0 x\n", "run.txt:1: offset and length must be finite, got 0.0, inf"),
        (read_run, b"t1 d1 1e308 1e308 1 2.0 x\n", "run.txt:1: offset and length must be finite, got 1e+308, 1e+308"),
        (read_run, b"t1 d1 0 10 1 nan x\n", "run.txt:1: the score must be finite, got nan"),
        (read_qrels, b"t1 d1 nan 10 1\n", "run.txt:1: offset and length must be finite, got nan, 10.0"),
        (read_qrels, b"t1 d1 0 10 nan\n", "run.txt:1: the relevance must be finite, got nan"),
    ],
    ids=["run-latin1", "qrels-latin1", "run-nan-offset", "run-inf-length", "run-end-overflows", "run-nan-score",
         "qrels-nan-offset", "qrels-nan-relevance"],
)
def test_bad_bytes_and_numbers_are_refused_with_the_place(tmp_path: Path, reader, content: bytes, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "run.txt"
    path.write_bytes(content)
    with pytest.raises(ParameterError) as info:
        reader(path)
    assert str(info.value) == f"{tmp_path}/{message}"


def test_a_folder_given_for_a_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match=f"^{tmp_path}: cannot read run .*Is a directory"):
        read_run(tmp_path)
