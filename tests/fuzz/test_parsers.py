"""Every importer and parser, fed thousands of random and hostile files: it returns, or raises the
project's own error with a one-line message. Any other exception is a traceback a user would see.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, seed

from tests.engine.test_file_parsers_fuzz import PARSERS, returns_or_refuses
from tests.fuzz.hostile import contents
from tests.fuzz.lane import FUZZ, SEED

pytestmark = pytest.mark.fuzz


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_a_parser_given_any_file_returns_or_refuses_in_one_line(name: str, tmp_path: Path) -> None:
    file_name, parse = PARSERS[name]
    path = tmp_path / file_name

    @seed(SEED)
    @FUZZ
    @given(data=contents)
    def check(data: bytes) -> None:
        path.write_bytes(data)
        returns_or_refuses(parse, path)

    check()
