"""Reading a user's file: a device or a folder is refused with an OSError, never read for ever."""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest

from engine.errors import EarshotError
from engine.evaluate import passages
from engine.evaluate.entities.readers import read_transcript
from engine.evaluate.rasch.files import read_matrix
from engine.evaluate.rasch.sources import read_trec_run
from engine.research.entities.conll import read_conll
from engine.segment.text import read_lee_articles, read_story_text, read_txt3
from engine.userfiles import NOT_REGULAR, read_bytes, read_text


@pytest.fixture
def zero(tmp_path: Path) -> Path:
    """A link to /dev/zero, an endless file, under a name each reader accepts."""
    link = tmp_path / "zero.txt"
    link.symlink_to("/dev/zero")
    return link


def test_a_regular_files_text_has_its_newlines_made_plain(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\rthree\n")
    assert read_text(tmp_path / "a.txt") == "one\ntwo\nthree\n"
    assert read_bytes(tmp_path / "a.txt") == b"one\r\ntwo\rthree\n"


def test_a_link_to_dev_zero_is_refused_not_read(zero: Path) -> None:
    with pytest.raises(OSError, match=re.escape(NOT_REGULAR)) as caught:
        read_bytes(zero)
    assert caught.value.errno == errno.EINVAL and caught.value.filename == str(zero)


def test_a_folder_is_a_directory_error(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        read_text(tmp_path)


@pytest.mark.parametrize("parse", [read_matrix, read_trec_run, passages.read_run, passages.read_qrels, read_transcript,
                                   read_conll, read_txt3, read_story_text, read_lee_articles],
                         ids=lambda f: f"{f.__module__.rsplit('.', 1)[-1]}.{f.__name__}")
def test_every_reader_refuses_a_link_to_dev_zero_in_one_line(parse, zero: Path) -> None:
    with pytest.raises(EarshotError, match=f"^{zero}") as caught:
        parse(zero)
    assert "\n" not in str(caught.value)
