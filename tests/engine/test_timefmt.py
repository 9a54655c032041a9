"""The one clock every surface prints times with."""

from __future__ import annotations

import pytest

from engine.timefmt import clock, timestamp


@pytest.mark.parametrize(
    ("seconds", "decimals", "text"),
    [(0, 0, "0:00"), (59.4, 0, "0:59"), (59.6, 0, "1:00"), (3599.4, 0, "59:59"), (3600, 0, "1:00:00"),
     (59.96, 1, "1:00.0"), (61.25, 2, "1:01.25"), (7322.5, 1, "2:02:02.5"), (-3, 0, "0:00")],
)
def test_clock(seconds: float, decimals: int, text: str) -> None:
    assert clock(seconds, decimals=decimals) == text


def test_subtitle_timestamps() -> None:
    assert timestamp(3723.0456) == "01:02:03,046"
    assert timestamp(0.5, ".") == "00:00:00.500"
