"""Search segments: runs of words cut by length and by pauses."""

from __future__ import annotations

from engine.asr.base import Word
from engine.search.segments import segment_bounds


def test_segment_bounds_split_on_length_and_pauses() -> None:
    utt1 = [Word(i * 0.3, i * 0.3 + 0.2, 1.0, "w") for i in range(5)]
    utt2 = [Word(10 + i * 0.3, 10.2 + i * 0.3, 1.0, "w") for i in range(3)] + [Word(20, 20.2, 1.0, "w")]
    assert segment_bounds([utt1, utt2], max_words=3) == [(0, 2), (3, 4), (5, 7), (8, 8)]
