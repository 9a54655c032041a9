"""Choosing the music shape: event matching on exact cases, and the inner folds' choice on beds with dips."""

from __future__ import annotations

import numpy as np
import pytest

from engine.detect.classifier import CLASSES, SEGMENT_SECONDS, descriptor_size
from engine.detect.music_beds import MusicShape
from tools.train_detectors import Scene, choose_music_shape, event_counts, shape_f1, shape_name

FEW = ("Music", "Speech")


@pytest.mark.parametrize(
    ("reference", "estimated", "counts"),
    [([(2.0, 10.0)], [(2.5, 9.5)], (1, 1, 1)),  # within the 1 s collar at both ends
     ([(2.0, 10.0)], [(2.5, 6.5)], (1, 1, 1)),  # ends 3.5 s early: within half the bed (4 s)
     ([(2.0, 10.0)], [(2.5, 5.5)], (0, 1, 1)),  # ends 4.5 s early
     ([(2.0, 10.0)], [(2.0, 5.0), (5.5, 10.0)], (0, 1, 2)),  # in pieces: the first starts right, ends 5 s early
     ([(2.0, 4.0)], [(3.5, 4.0)], (0, 1, 1)),  # starts 1.5 s late
     ([], [(1.0, 3.0)], (0, 0, 1)), ([(1.0, 3.0)], [], (0, 1, 0))],
    ids=["whole", "ends-early-within-half", "ends-early", "in-pieces", "late-start", "false-alarm", "miss"],
)  # fmt: skip
def test_event_counts_match_one_to_one_with_a_one_second_onset_collar(reference, estimated, counts) -> None:
    assert event_counts(reference, estimated) == counts


def _bed_scenes(rng: np.random.Generator) -> tuple[list[Scene], list[tuple[np.ndarray, np.ndarray]]]:
    """Four packages of beds (8 s of music in 12 s) whose "Music" logit dips for 0.8 s every 2 s, plus speech alone.

    Every descriptor but the "Music" logit is noise, so the network learns music from that logit too.
    """
    scenes, described = [], []
    n, width = 120, descriptor_size(0) + 2 * len(FEW)
    for i in range(16):
        x = rng.standard_normal((n, width))
        y = np.zeros(n, dtype=np.int64)
        logit = np.full(n, -8.0)
        events = []
        if i < 12:
            y[20:100] = CLASSES.index("music")
            logit[20:100] = 4.0
            for dip in range(32, 100, 20):
                logit[dip : dip + 8] = -8.0  # a voice masking the bed
            events = [(2.0, 10.0, "music")]
        x[:, descriptor_size(0)] = logit + 0.3 * rng.standard_normal(n)
        scenes.append(Scene(np.zeros(1, np.float32), events, f"p{i % 4}" if i < 12 else "", "over", "speech-data"))
        described.append((x, y))
    return scenes, described


@pytest.mark.slow  # over 2 s: nine small networks
def test_the_inner_folds_choose_a_shape_that_keeps_a_dipping_bed_whole(rng) -> None:
    scenes, described = _bed_scenes(rng)
    shape, scores = choose_music_shape(scenes, described, zero_shot_threshold=-2.0, alpha=1.0, seed=0,
                                       audioset_classes=FEW)  # fmt: skip
    before = shape_name(MusicShape(zero_shot_threshold=-2.0))
    assert len(scores) == 36 and scores[shape_name(shape)] == max(scores.values(), key=sum)
    assert shape_name(shape) != before and scores[shape_name(shape)][0] > scores[before][0] + 0.3, (shape, scores[before])


def test_shape_f1_scores_the_events_and_segments_of_each_scene() -> None:
    network = np.r_[np.zeros(20), np.full(80, 0.9), np.zeros(20)]
    logit = np.zeros(120)
    shape = MusicShape()
    event, segment = shape_f1(shape, [network, np.zeros(120)], [logit, logit], [[(2.0, 10.0)], []])
    assert event == 1.0 and segment == pytest.approx(2 * 80 / (81 + 80), abs=0.02)
    assert SEGMENT_SECONDS == 0.1
