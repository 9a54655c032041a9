"""Numbers searched alike whether written as digits or words, in the index and the query."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.search import search
from engine.search.config import TERMS_VERSION
from engine.search.text import number_terms, parse_query, word_terms
from engine.storage.passages import PassageIndex
from engine.storage.store import Store

from .conftest import add_recording


@pytest.mark.parametrize(("toks", "expected"), [
    (["press", "one"], [("press", 0), ("1", 1)]),
    (["twenty", "five", "men"], [("25", 0), ("men", 2)]),
    (["twenty", "men"], [("20", 0), ("men", 1)]),
    (["twenty", "first", "century"], [("21st", 0), ("century", 2)]),
    (["the", "third", "time"], [("the", 0), ("3rd", 1), ("time", 2)]),
    (["five", "five"], [("5", 0), ("5", 1)]),
    (["twenty", "twenty"], [("20", 0), ("20", 1)]),
    (["twenty", "eleven"], [("20", 0), ("11", 1)]),
    (["nineteen"], [("19", 0)]),
], ids=["one", "tens-units", "tens", "tens-ordinal", "ordinal", "repeated", "tens-twice", "not-a-unit", "teen"])
def test_number_words_become_digits(toks: list[str], expected: list[tuple[str, int]]) -> None:
    assert number_terms(toks) == expected


def test_written_numbers_are_terms_at_their_words() -> None:
    assert word_terms(["Press", "1", "for", "$5,000,", "twenty-five", "people", "on", "the", "21st"]) == \
        (["press", "1", "5000", "25", "people", "21st"], [0, 1, 3, 4, 5, 8])
    assert word_terms(["twenty", "five", "people"]) == (["25", "people"], [0, 2])


def test_the_query_reads_numbers_as_the_index_does() -> None:
    assert parse_query("press one").terms == ("press", "1")
    assert parse_query('"twenty five people"').phrases == (("25", "people"),)
    assert parse_query("the first one").ignored == ("the",)


_FILLER = "the council met in the town hall and talked about roads schools and the harbour " * 3


@pytest.fixture
def index(tmp_path: Path):  # type: ignore[no-untyped-def]
    """An index file: one recording says numbers in digits, one in words, one has no numbers."""
    store = Store(tmp_path / "index.sqlite")
    ids = {
        "digits": add_recording(store, "digits.wav", _FILLER + "for sales press 1 and 25 people on the 3rd floor "
                                "paid $5,000 " + _FILLER),
        "words": add_recording(store, "words.wav", _FILLER + "for billing press two and twenty-five buses on the "
                               "fourth of july " + _FILLER),
        "none": add_recording(store, "none.wav", _FILLER + "for sales press the button on the wall " + _FILLER),
    }
    yield store, ids
    store.close()


@pytest.mark.parametrize(("query", "found"), [
    ("press one", "digits"), ("press 1", "digits"), ("twenty five people", "digits"), ("third floor", "digits"),
    ("5,000", "digits"), ("press 2", "words"), ("25 buses", "words"), ("4th of july", "words"),
], ids=["word-finds-digit", "digit", "two-words-find-digits", "ordinal-word", "thousands", "digit-finds-word",
        "digits-find-hyphened-words", "ordinal-digits"])
def test_spoken_and_written_numbers_find_each_other_in_an_index_file(index, query: str, found: str) -> None:
    store, ids = index
    hits = search(store, query, limit=3)
    assert hits and hits[0].recording_id == ids[found], [(h.recording_id, h.snippet) for h in hits]


def test_a_number_is_not_found_where_another_was_said(index) -> None:
    store, ids = index
    assert {h.recording_id for h in search(store, "9", limit=5)} == set()
    assert ids["words"] not in {h.recording_id for h in search(store, '"press 1"', limit=5)}


def test_an_index_made_before_number_terms_is_reindexed_by_the_cli(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from engine.cli.main import main

    path = tmp_path / "old.sqlite"
    with Store(path) as old:
        rid = add_recording(old, "digits.wav", _FILLER + "for sales press 1 now " + _FILLER)
        old.conn.execute("ALTER TABLE search_recordings DROP COLUMN terms_version")
        old.conn.execute("DELETE FROM migrations WHERE name = '0006_search_terms_version'")
    with Store(path) as store:  # migrated: its passages were made under the old rules
        assert PassageIndex(store).stale_recordings(TERMS_VERSION) == [rid]
    assert main(["--db", str(path), "reindex"]) == 0
    assert "re-indexed 1 recording whose" in capsys.readouterr().out
    with Store(path) as store:
        assert PassageIndex(store).stale_recordings(TERMS_VERSION) == []
        assert [h.recording_id for h in search(store, "press one")] == [rid]
    assert main(["--db", str(path), "reindex"]) == 0
    assert "re-indexed 0 recordings" in capsys.readouterr().out


def test_snippets_show_words_stored_in_pieces_whole(tmp_path: Path) -> None:
    with Store(tmp_path / "index.sqlite") as store:
        add_recording(store, "old.wav", _FILLER + "the U .S. embassy paid $5 ,000 to a 26 -year -old guard " + _FILLER)
        hits = search(store, "embassy guard")
    assert hits and "the U.S. [embassy] paid $5,000 to a 26-year-old [guard]" in hits[0].snippet, hits[0].snippet
