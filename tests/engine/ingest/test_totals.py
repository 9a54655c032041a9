"""A batch's totals: files and hours queued and done, the rate and the time left."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from engine.ingest.totals import BatchTotals


@dataclass
class _File:
    path: str
    duration: float


def test_totals_follow_the_files_of_a_batch() -> None:
    totals = BatchTotals()
    totals.queued(_File("a.wav", 0.0))  # queued before it was probed
    totals.queued(_File("a.wav", 1800.0))  # probed: its duration replaces the first count
    totals.queued(_File("b.wav", 5400.0))
    assert (totals.files, totals.seconds) == (2, 7200.0)
    assert totals.line() == "0 of 2 files, 0.00 of 2.00 h of audio"
    assert not totals.progress("a.wav", 10.0)  # not running yet
    totals.start("a.wav")
    assert totals.progress("a.wav", 1.0)
    assert totals.line() == "0 of 2 files, 0.00 of 2.00 h of audio"  # no rate from the first seconds
    totals.started = time.monotonic() - 600.0  # ten minutes into the run
    assert totals.progress("a.wav", 900.0)
    assert totals.seconds_heard == 900.0
    # 0.25 h heard in 1/6 h: 1.5 h per hour, 1.75 h left take 70 minutes.
    assert re.fullmatch(r"0 of 2 files, 0\.25 of 2\.00 h of audio, 1\.5 h per hour, about 1:(09:5\d|10:00) left",
                        totals.line()), totals.line()
    assert totals.ended(_File("a.wav", 1800.0))
    assert not totals.ended(_File("a.wav", 1800.0))  # counted once
    assert not totals.ended(_File("never-started.wav", 60.0))
    assert (totals.files_done, totals.seconds_done, totals.seconds_heard) == (1, 1800.0, 1800.0)
    assert re.fullmatch(r"1 of 2 files, 0\.50 of 2\.00 h of audio, 3\.0 h per hour, about (29:5\d|30:00) left",
                        totals.line()), totals.line()
    totals.start("b.wav")
    assert totals.ended(_File("b.wav", 5400.0))
    assert re.fullmatch(r"2 of 2 files, 2\.00 h of audio in 10:0\d, 12\.0 h per hour", totals.line()), totals.line()
