"""How the leave-one-package-out bench describes the way a music bed was found: missed, whole or in pieces."""

from __future__ import annotations

import math

import pytest

from bench.detect_loso_bench import bed_piece_summary, bed_pieces, missed_by_level


def test_a_bed_found_whole_in_pieces_or_not_at_all() -> None:
    whole = bed_pieces((2.0, 14.0), [(2.4, 13.8), (20.0, 25.0)])  # the second event lies outside the bed
    assert whole == {"pieces": 1, "matched": 1.0, "late_start": pytest.approx(0.4), "early_end": pytest.approx(0.2)}
    pieces = bed_pieces((2.0, 14.0), [(3.5, 6.0), (7.0, 12.3)])  # neither starts within 1 s of the bed
    assert pieces["pieces"] == 2 and pieces["matched"] == 0.0
    assert pieces["late_start"] == pytest.approx(1.5) and pieces["early_end"] == pytest.approx(1.7)
    # a first piece starting on time and ending within half the bed matches it (sed_eval's offset rule)
    assert bed_pieces((2.0, 14.0), [(2.9, 9.1), (10.0, 12.3)])["matched"] == 1.0
    missed = bed_pieces((2.0, 14.0), [])
    assert missed["pieces"] == 0 and math.isnan(missed["late_start"])
    summary = bed_piece_summary([whole, pieces, missed])
    assert summary["beds"] == 3 and summary["missed"] == summary["one_piece"] == summary["in_pieces"] == pytest.approx(1 / 3)
    assert summary["matched"] == pytest.approx(1 / 3) and summary["median_late_start"] == pytest.approx(0.95)
    assert bed_piece_summary([]) == {}


def test_missed_beds_are_counted_by_their_level_below_the_speech() -> None:
    rows = [{**bed_pieces((2.0, 14.0), found), "below_db": below}
            for found, below in (([(2.4, 13.8)], 10.5), ([], 11.0), ([], 17.2), ([(3.0, 9.0)], 16.0))]  # fmt: skip
    by_level = missed_by_level(rows)
    assert list(by_level) == ["10-12", "12-14", "14-16", "16-18"]
    assert by_level["10-12"] == {"beds": 2, "missed": 0.5}
    assert by_level["16-18"] == {"beds": 2, "missed": 0.5}
    assert by_level["12-14"]["beds"] == 0 and math.isnan(by_level["12-14"]["missed"])
