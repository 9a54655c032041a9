"""Audience events on exact score traces: applause or laughter the detector cannot tell apart."""

from __future__ import annotations

import numpy as np
import pytest

from engine.detect.classifier import audience_by_scores, merged_audience
from engine.detect.events import Event

SEG = 0.1


def _trace(*runs: tuple[float, float]) -> np.ndarray:
    """A score per 0.1 s segment: runs of (seconds, score) one after another."""
    return np.concatenate([np.full(round(s / SEG), v) for s, v in runs])


def test_a_clear_call_keeps_its_kind_and_a_close_one_is_audience() -> None:
    applause = _trace((2.0, 0.8), (2.0, 0.6), (2.0, 0.1))
    laughter = _trace((2.0, 0.2), (2.0, 0.4), (2.0, 0.7))
    events = [Event("applause", 0.0, 2.0, 0.8, 0.8), Event("applause", 2.0, 4.0, 0.6, 0.6),
              Event("laughter", 4.0, 6.0, 0.7, 0.7)]  # fmt: skip
    out = audience_by_scores(events, applause=applause, laughter=laughter, segment_seconds=SEG)
    kinds = [(e.type, e.start, e.end) for e in out]
    # 0.2 < 0.5 * 0.8 and 0.1 < 0.5 * 0.7: clear; 0.4 >= 0.5 * 0.6: too close to call
    assert kinds == [("applause", 0.0, 2.0), ("laughter", 4.0, 6.0), ("audience", 2.0, 4.0)]
    audience = out[-1]
    assert audience.score == pytest.approx(0.6) and audience.value == pytest.approx(0.4)  # laughter's share of 0.6 + 0.4


def test_overlapping_audience_events_merge_weighted_by_length() -> None:
    merged = merged_audience([Event("audience", 3.0, 4.0, 0.5, 0.8), Event("audience", 0.0, 3.0, 0.9, 0.2)])
    assert [(e.start, e.end) for e in merged] == [(0.0, 4.0)]
    assert merged[0].score == pytest.approx((0.9 * 3 + 0.5) / 4) and merged[0].value == pytest.approx((0.2 * 3 + 0.8) / 4)


def test_other_kinds_pass_untouched() -> None:
    music = Event("music", 0.0, 3.0, 0.9, 0.9)
    flat = np.full(30, 0.5)
    assert audience_by_scores([music], applause=flat, laughter=flat, segment_seconds=SEG) == [music]
