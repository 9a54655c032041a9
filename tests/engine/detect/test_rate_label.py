"""Speech rate as people read it: words per minute beside syllables per second."""

from __future__ import annotations

from engine.detect.rate import rate_label


def test_words_per_minute_count_the_words_starting_inside_the_stretch() -> None:
    # 1.0, 1.5, 2.0 and 2.9 start inside [1, 3): 4 words in 2 s; 3.0 starts at the stretch's end: outside
    starts = [0.0, 0.4, 1.0, 1.5, 2.0, 2.9, 3.0]
    assert rate_label("slow", 1.0, 3.0, 2.04, starts) == "slow speech 2 s: 2.0 syllables/s, 120 words/min"


def test_an_unknown_syllable_rate_or_an_empty_stretch_is_left_out() -> None:
    assert rate_label("fast", 0.0, 30.0, None, [1.0, 2.0]) == "fast speech 30 s: 4 words/min"
    assert rate_label("fast", 5.0, 5.0, 3.0, [5.0]) == "fast speech 0 s: 3.0 syllables/s"
