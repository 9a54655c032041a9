"""Words as people write them: legacy pieces joined for display, number words read."""

from __future__ import annotations

import pytest

from engine.writing import (
    continues,
    ends_sentence,
    join_written,
    number_value,
    number_words,
    ordinal_digits,
    ordinal_value,
    written_groups,
)


@pytest.mark.parametrize(
    ("pieces", "written"),
    [(["U", ".S."], "U.S."), (["al", "-Qaeda"], "al-Qaeda"), (["$5", ",000"], "$5,000"),
     (["26", "-year", "-old"], "26-year-old"), (["self", "-substantial"], "self-substantial"),
     (["Obama", "'s", "plan"], "Obama's plan"), (["wait", "-", "what"], "wait - what"),
     (["ends.", "Next"], "ends. Next"), ([], "")],
    ids=["initials", "hyphen-name", "thousands", "two-hyphens", "hyphen-word", "possessive", "lone-dash",
         "two-words", "nothing"],
)
def test_stored_pieces_are_joined_where_shown(pieces: list[str], written: str) -> None:
    assert join_written(pieces) == written


def test_written_groups_name_the_pieces_of_each_word() -> None:
    assert written_groups(["The", "U", ".S.", "26", "-year", "-old"]) == [range(0, 1), range(1, 3), range(3, 6)]
    assert not continues("-") and not continues("Hello") and continues(",000")


def test_numbers_are_read_and_spelled_alike() -> None:
    assert number_words(1925) == ["one", "thousand", "nine", "hundred", "twenty", "five"]
    assert [number_value(w) for w in ("zero", "one", "nineteen", "twenty", "ninety", "hundred", "on")] == \
        [0, 1, 19, 20, 90, None, None]
    assert [ordinal_value(w) for w in ("first", "twelfth", "twentieth", "ninetieth", "one")] == [1, 12, 20, 90, None]
    assert [ordinal_digits(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


@pytest.mark.parametrize(("word", "ends"), [
    ("closed.", True), ("closed.\u201d", True), ("why?", True), ("U.S.", False), (".S.", False), ("W.", False),
    ("DR.", False), ("Mr.", False), ("\u4e86\u3002", True), ("\u5417\uff1f", True),
    ("\u0644\u0645\u0627\u0630\u0627\u061f", True), ("\u0939\u0948\u0964", True), ("closed", False),
    ("closed,", False),
])
def test_a_word_ends_a_sentence_in_any_script(word: str, ends: bool) -> None:
    assert ends_sentence(word) is ends
