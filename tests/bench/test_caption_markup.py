"""The caption-markup count: chevrons on a segment's opening caption row and in all rows; what the truth marks."""

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
                                    "story_change_rows": 1, "speaker_change_rows": 2, "commercials": 1,
                                    "stories_after_commercial": 1, "other_stories": 1}  # fmt: skip


def test_a_story_start_counts_as_a_commercial_edge_only_right_after_a_commercial_block() -> None:
    more = [*LINES, "20060803000007.000|20060803000007.200|SEG_00|Type=Story start",
            "20060803000007.300|20060803000008.000|CC1|IN SPORTS TONIGHT.",
            "20060803000009.000|20060803000009.200|SEG_00|Type=Commercial",
            "20060803000010.000|20060803000010.200|SEG_00|Type=Commercial"]  # fmt: skip
    counts = markup_counts(more)
    assert (counts["commercials"], counts["stories_after_commercial"], counts["other_stories"]) == (3, 1, 2)
