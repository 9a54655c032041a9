"""Whole numbers a user types: plain digits that fit an SQLite integer, nothing else."""

from __future__ import annotations

import pytest

from engine.numtext import MAX_DIGITS, whole_number


@pytest.mark.parametrize(("text", "value"), [
    ("0", 0), ("42", 42), ("007", 7), ("9" * MAX_DIGITS, int("9" * MAX_DIGITS)), ("\u0663", 3),  # Arabic-Indic three
    ("", None), ("-1", None), ("1.5", None), ("²", None), ("1e3", None), (" 4", None),
    ("9" * (MAX_DIGITS + 1), None), ("9" * 5000, None),
])
def test_whole_number(text: str, value: int | None) -> None:
    assert whole_number(text) == value


def test_every_whole_number_fits_an_sqlite_integer() -> None:
    assert int("9" * MAX_DIGITS) < 2**63
