"""Whole numbers a user types (ids, labels, counts, ports): read only when they are plain decimal digits
that fit an SQLite integer, so a superscript digit or a 5,000-digit string is "not a number", not a
``ValueError`` (Python refuses to convert more than 4,300 digits) or an ``OverflowError`` in SQLite."""

from __future__ import annotations

#: The most digits a whole number may have: every 18-digit number fits a signed 64-bit integer.
MAX_DIGITS = 18


def whole_number(text: str) -> int | None:
    """``text`` as a non-negative int when it is 1 to MAX_DIGITS decimal digits, else None."""
    return int(text) if text.isdecimal() and len(text) <= MAX_DIGITS else None
