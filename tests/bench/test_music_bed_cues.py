"""The music-bed cue bench: what sounds in the gaps of speech, its threshold from speech alone, and when a bed is heard."""

from __future__ import annotations

import numpy as np
import pytest

from bench.music_bed_cues_bench import events, heard, quiet_frame_descriptors, threshold_for
from engine.detect import frame_features

SR = 16000


def test_the_quiet_frames_hear_a_tone_in_the_gaps_of_the_speech_and_not_silence() -> None:
    rng = np.random.default_rng(3)
    audio = np.zeros(9 * SR, dtype=np.float32)
    for start in np.arange(0.0, 9.0, 0.6):  # 0.3 s noise bursts every 0.6 s: speech-like on and off
        i = int(start * SR)
        audio[i : i + int(0.3 * SR)] = 0.3 * rng.standard_normal(int(0.3 * SR))
    t = np.arange(3 * SR) / SR
    audio[3 * SR : 6 * SR] += (0.03 * np.sin(2 * np.pi * 440.0 * t)).astype(np.float32)  # a tone from 3 to 6 s
    audio += np.float32(1e-4) * rng.standard_normal(len(audio)).astype(np.float32)
    x = quiet_frame_descriptors(frame_features(audio, sr=SR))
    assert x.shape == (90, 16) and np.all(np.isfinite(x))
    # the quiet quarter's level above the recording's floor: the tone fills the gaps from 4 to 5 s, silence elsewhere
    assert np.min(x[40:50, 0]) > np.max(np.r_[x[5:20, 0], x[70:85, 0]]) + 20.0


def test_the_threshold_lets_at_most_two_percent_of_speech_scenes_pass_and_a_bed_is_heard_by_a_music_event() -> None:
    peaks = [np.array([0.0, float(p)]) for p in range(100)]
    threshold = threshold_for(peaks)
    assert threshold == 97.0  # scenes peaking at 98 and 99 pass it: 2 of 100
    assert sum(p.max() > threshold for p in peaks) == 2
    bed = (1.0, 5.0)  # seconds; segments of 0.1 s
    above = np.r_[-np.ones(30), np.ones(21), -np.ones(49)]  # 2.1 s above the threshold, from 3.0 s
    [(start, end)] = events(above)
    assert start == pytest.approx(3.0, abs=0.1) and end == pytest.approx(5.1, abs=0.1) and heard(above, bed)
    assert not heard(np.r_[-np.ones(30), np.ones(15), -np.ones(55)], bed)  # 1.5 s: shorter than a music event
    assert not heard(np.r_[-np.ones(60), np.ones(30), -np.ones(10)], bed)  # an event after the bed
    assert events(-np.ones(100)) == []


@pytest.mark.parametrize("n", [1, 49])
def test_a_few_speech_scenes_keep_the_highest_as_threshold(n: int) -> None:
    assert threshold_for([np.array([float(i)]) for i in range(n)]) == float(n - 1)
