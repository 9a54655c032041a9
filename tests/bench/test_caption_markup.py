"""The caption-markup count: chevrons on a segment's opening caption row and in all rows."""

from __future__ import annotations

from bench.caption_markup_bench import markup_counts

LINES = [
    "TOP|20060803000000|header",
    "20060803000001.000|20060803000001.200|SEG_00|Type=Story start",
    "20060803000001.300|20060803000002.000|CC1|>>> GOOD EVENING.",
    "20060803000002.100|20060803000003.000|CC1|>> THANK YOU.",
    "20060803000004.000|20060803000004.200|SEG_00|Type=Commercial",
    "20060803000004.300|20060803000005.000|CC1|>>Reporter: BUY NOW.",
    "20060803000005.000|20060803000005.200|SEG_00|Type=Story start",
    "20060803000005.300|20060803000006.000|CC1|THE COUNCIL MET.",
]


def test_chevrons_are_counted_where_a_segment_opens_and_in_all_rows() -> None:
    assert markup_counts(LINES) == {"segments": 3, "opening_story_change": 1, "opening_speaker_change": 1,
                                    "story_change_rows": 1, "speaker_change_rows": 2}  # fmt: skip
