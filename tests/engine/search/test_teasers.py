"""Teaser cues: a matched word that follows "coming up", "stay with us", ... within a few words."""

from __future__ import annotations

import pytest

from engine.search import config
from engine.search.query import _CUE_WORDS, _ends_with_cue

from . import naive

AFTER = config.TEASER_CUE_WORDS


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], False),
        (["coming", "up"], True),
        (["stay", "with", "us", "the", "budget"], True),
        (["we'll", "be", "right", "back"], True),
        (["coming", "up"] + ["word"] * AFTER, True),
        (["coming", "up"] + ["word"] * (AFTER + 1), False),
        (["word"] * 5 + ["when", "we", "return"] + ["word"] * AFTER, True),
        (["coming", "the", "up"], False),
        (["up", "coming"], False),
    ],
    ids=["nothing", "a-cue-alone", "cue-then-words", "four-word-cue", "cue-at-the-limit", "cue-one-word-too-far",
         "cue-inside", "cue-words-apart", "cue-words-swapped"],
)
def test_a_cue_counts_only_within_its_reach(words: list[str], expected: bool) -> None:
    assert _ends_with_cue(words) is expected


def test_cue_search_matches_its_slow_twin(rng) -> None:
    vocabulary = [*sorted({w for cue in _CUE_WORDS for w in cue}), "the", "budget", "vote"]
    for _ in range(3000):
        words = [vocabulary[i] for i in rng.integers(0, len(vocabulary), int(rng.integers(0, 2 * AFTER)))]
        assert _ends_with_cue(words) == naive.ends_with_cue(words, _CUE_WORDS, AFTER), words
