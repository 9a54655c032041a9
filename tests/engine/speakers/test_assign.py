"""Turns cut at holes, a speaker per word, talk time."""

from __future__ import annotations

import pytest

from engine.speakers.assign import talk_seconds, turns_outside, word_speakers
from engine.speakers.diarize import SpeakerTurn


def test_holes_cut_turns_and_short_pieces_go() -> None:
    turns = [SpeakerTurn(0.0, 10.0, 0), SpeakerTurn(10.0, 20.0, 1)]
    cut = turns_outside(turns, [(12.0, 19.9), (3.0, 4.0)], min_seconds=0.2)
    assert cut == [SpeakerTurn(0.0, 3.0, 0), SpeakerTurn(4.0, 10.0, 0), SpeakerTurn(10.0, 12.0, 1)]


def test_without_holes_turns_stay_whole() -> None:
    turns = [SpeakerTurn(1.0, 2.0, 0)]
    assert turns_outside(turns, []) == turns


def test_each_word_goes_to_the_speaker_covering_most_of_it() -> None:
    turns = [SpeakerTurn(0.0, 1.2, 0), SpeakerTurn(1.2, 3.0, 1), SpeakerTurn(5.0, 6.0, 0)]
    starts, ends = [0.1, 1.0, 1.5, 3.5, 5.2], [0.5, 1.6, 2.0, 4.0, 5.2]
    assert word_speakers(starts, ends, turns) == [0, 1, 1, None, 0]


def test_no_turns_no_speakers() -> None:
    assert word_speakers([0.0, 1.0], [0.5, 1.5], []) == [None, None]


def test_talk_seconds_add_up_per_speaker() -> None:
    turns = [SpeakerTurn(0.0, 1.5, 0), SpeakerTurn(2.0, 3.0, 1), SpeakerTurn(4.0, 4.5, 0)]
    assert talk_seconds(turns, 2) == pytest.approx([2.0, 1.0])
