"""The downstream bench's true-stories condition: a recogniser's words indexed with the true stories
given, so that search on Earshot's own stories is compared with the same words, not with the truth's."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.downstream_bench import search_measures, with_true_stories


def _record(words: list[tuple[float, str]], stories: list[list[int]]) -> dict:
    return {"seconds": 0.0, "words": [[t, t + 0.3, 1.0, w, w] for t, w in words], "stories": stories, "entities": []}


# Two true stories; the recogniser missed the first word of the second and put its own story edge one word late.
WORDS = [(0.0, "flood"), (0.5, "warning"), (1.0, "river"), (1.5, "rising"), (5.0, "budget"), (5.5, "council"),
         (6.0, "vote"), (6.5, "tonight")]  # fmt: skip
TRUTH = {"stories": [{"start": 0.0, "end": 2.0}, {"start": 4.6, "end": 7.0}]}


def test_true_stories_start_at_the_first_recognised_word_of_each_story() -> None:
    record = _record(WORDS, [[0, 4], [5, 7]])
    assert with_true_stories(record, TRUTH)["stories"] == [[0, 3], [4, 7]]
    assert with_true_stories(record, TRUTH)["words"] == record["words"]


def test_a_true_story_with_no_recognised_word_is_no_story() -> None:
    truth = {"stories": [{"start": 0.0, "end": 2.0}, {"start": 2.5, "end": 4.0}, {"start": 4.6, "end": 7.0}]}
    assert with_true_stories(_record(WORDS, [[0, 7]]), truth)["stories"] == [[0, 3], [4, 7]]


def test_nothing_recognised_gives_no_stories() -> None:
    assert with_true_stories(_record([], []), TRUTH)["stories"] == []


def test_search_on_the_given_true_stories_returns_the_whole_story(tmp_path: Path) -> None:
    records = {"b1": with_true_stories(_record(WORDS, [[0, 7]]), TRUTH)}
    queries = [("T001", "budget council", "b1", 5.0, 6.8)]  # the second story's words, first to last
    found = search_measures(records, queries, tmp_path, "engine", stories_given=True)
    assert found["top_hit_in_story"] == 1.0
    assert found["rprec_seconds"] == pytest.approx(1.0, abs=0.01)

