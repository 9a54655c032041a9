"""Words a recogniser places inside detected music, applause, laughter or noise are dropped."""

from __future__ import annotations

from engine.asr.base import Word
from engine.detect.events import Event
from engine.ingest.transcribe import words_outside_sounds


def _event(kind: str, start: float, end: float) -> Event:
    return Event(kind, start, end, 1.0, 0.0)


def _words(*spans: tuple[float, float]) -> list[Word]:
    return [Word(a, b, 0.9, f"w{i}") for i, (a, b) in enumerate(spans)]


def test_words_whose_middle_lies_in_a_sound_event_are_dropped() -> None:
    words = _words((0.0, 0.4), (1.0, 1.4), (2.9, 3.3), (5.0, 5.2), (7.9, 8.3))
    events = [_event("speech", 0.0, 10.0), _event("music", 0.8, 3.0), _event("applause", 4.5, 6.0),
              _event("laughter", 7.0, 8.0)]
    kept = words_outside_sounds(words, events)
    # w2's middle (3.1 s) is past the music; w4's (8.1 s) past the laughter: both kept
    assert [w.text for w in kept] == ["w0", "w2", "w4"]


def test_nested_and_overlapping_events_and_no_events() -> None:
    words = _words((1.0, 1.2), (2.5, 2.7), (4.0, 4.2))
    events = [_event("noise", 0.5, 3.0), _event("music", 1.0, 1.5)]  # the second lies inside the first
    assert [w.text for w in words_outside_sounds(words, events)] == ["w2"]
    assert words_outside_sounds(words, [_event("speech", 0.0, 5.0)]) == words
