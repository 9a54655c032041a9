"""Music event shaping: the score sources, hysteresis and gap bridging on exact traces, the shape's file form,
and a real music-on-hold bed under real telephone prompts that the old shaping cut into pieces."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engine.detect import frame_features
from engine.detect.audioset import AudioSetModel
from engine.detect.classifier import (
    AUDIOSET_MODEL,
    SEGMENT_SECONDS,
    SoundClassifier,
    audioset_logits_per_segment,
    detect_sounds,
    raw_music_scores,
    shaped_music_events,
)
from engine.detect.music_beds import MusicShape, music_events, music_score
from engine.errors import ParameterError
from tools.detector_corpus import collect, default_cache, load_corpus_clip
from tools.sound_clips import ClipsUnavailable
from tools.train_detectors import SR, SpeechPool, scene

#: The shaping every kind had before music got its own: network posterior, 0.9 s median, 0.5 s bridged, hold at 0.6.
AS_BEFORE = MusicShape()
#: A shape that bridges the dips a voice makes in a bed: the mean of both scores, 2 s bridged, hold at 0.3.
BRIDGED = MusicShape("mean", 0.9, 2.0, 0.3, zero_shot_threshold=-3.0)


def _trace(*runs: tuple[float, float]) -> np.ndarray:
    """A score per 0.1 s segment: runs of (seconds, score) one after another."""
    return np.concatenate([np.full(round(s / SEGMENT_SECONDS), v) for s, v in runs])


def test_a_bed_dipping_under_the_threshold_is_one_event_when_bridged_and_held() -> None:
    # 1 s before, then 10 s of bed whose score dips to 0.2 for 0.8 s twice (a voice masking it), 1 s after;
    # segment i covers [(i - 0.5) * 0.1, (i + 0.5) * 0.1) s
    score = _trace((1.0, 0.0), (3.0, 0.8), (0.8, 0.2), (3.0, 0.8), (0.8, 0.2), (2.4, 0.8), (1.0, 0.0))
    before = music_events(score, AS_BEFORE, segment_seconds=SEGMENT_SECONDS)
    assert [(e.start, e.end) for e in before] == [(0.95, 3.95), (4.75, 7.75), (8.55, 10.95)]
    held = music_events(score, dataclasses.replace(AS_BEFORE, low_fraction=0.3), segment_seconds=SEGMENT_SECONDS)
    bridged = music_events(score, dataclasses.replace(AS_BEFORE, max_gap_seconds=2.0), segment_seconds=SEGMENT_SECONDS)
    for events in (held, bridged):
        assert [(e.start, e.end) for e in events] == [(0.95, 10.95)]


def test_a_run_shorter_than_two_seconds_is_not_music_and_sensitivity_moves_the_opening_level() -> None:
    score = _trace((1.0, 0.0), (1.5, 0.9), (2.0, 0.0), (4.0, 0.45), (1.0, 0.0))
    assert music_events(score, AS_BEFORE, segment_seconds=SEGMENT_SECONDS) == []
    found = music_events(score, AS_BEFORE, segment_seconds=SEGMENT_SECONDS, sensitivity=0.6)
    assert [(e.start, e.end) for e in found] == [(4.45, 8.45)]


@pytest.mark.parametrize(("source", "expected"), [("network", 0.8), ("zero-shot", 0.5), ("mean", 0.65)])
def test_each_source_reads_its_scores(source: str, expected: float) -> None:
    network, logit = np.full(21, 0.8), np.full(21, -3.0)  # the logit sits on the threshold: zero-shot score 0.5
    shape = MusicShape(source, 0.9, 0.5, 0.6, zero_shot_threshold=-3.0)
    np.testing.assert_allclose(music_score(network, logit, shape, segment_seconds=SEGMENT_SECONDS), expected)


def test_the_median_removes_dips_shorter_than_half_its_length() -> None:
    network = _trace((2.0, 0.9), (0.5, 0.1), (2.0, 0.9))
    short = music_score(network, network, AS_BEFORE, segment_seconds=SEGMENT_SECONDS)
    long = music_score(network, network, dataclasses.replace(AS_BEFORE, median_seconds=2.9), segment_seconds=SEGMENT_SECONDS)
    assert short.min() == pytest.approx(0.1) and long.min() == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"source": "loudness"}, "music score source must be one of"), ({"median_seconds": 0.0}, "music shape out of range"),
     ({"max_gap_seconds": -1.0}, "music shape out of range"), ({"low_fraction": 1.5}, "music shape out of range")],
    ids=["unknown-source", "no-median", "negative-gap", "hold-above-open"],
)  # fmt: skip
def test_bad_shapes_are_refused(fields: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        MusicShape(**fields)


def test_a_shape_survives_its_file_form_and_a_broken_one_is_refused() -> None:
    assert MusicShape.from_json(BRIDGED.to_json()) == BRIDGED
    with pytest.raises(ParameterError, match="not a music shape"):
        MusicShape.from_json('{"source": "mean", "gap": 2}')


def test_scores_of_different_lengths_are_refused() -> None:
    with pytest.raises(ParameterError, match="1-D of one length"):
        music_score(np.zeros(10), np.zeros(9), BRIDGED, segment_seconds=SEGMENT_SECONDS)


# --- a real bed: Asterisk's music on hold 14 dB under its recorded prompts -----------------------------------


@pytest.fixture(scope="module")
def real_bed(tagger: AudioSetModel) -> tuple[object, tuple[float, float]]:
    """Features (with AudioSet scores) of a music-on-hold excerpt under telephone prompts, and the bed's span."""
    try:
        clips = collect(packages={"asterisk-moh-opsound-wav", "asterisk-core-sounds-en-wav"})
    except ClipsUnavailable as exc:
        pytest.skip(f"Asterisk's sounds cannot be fetched here: {exc}")
    cache = default_cache()
    music = next(c for c in clips if c.kind == "music" and "robot_dity" in c.member)
    rng = np.random.default_rng(1)
    pool = SpeechPool([load_corpus_clip(c, cache, sample_rate=SR) for c in clips if c.kind == "speech"][:20], rng)
    bed = load_corpus_clip(music, cache, sample_rate=SR)
    s = scene("music", "over", bed, pool, rng)
    feats = frame_features(s.audio, sr=SR, audioset=tagger)
    return feats, s.events[0][:2]


def _covering(events: list, span: tuple[float, float]) -> list[tuple[float, float]]:
    a, b = span
    return [(e.start, e.end) for e in events if e.type == "music" and min(b, e.end) > max(a, e.start)]


@pytest.mark.slow  # fetches two Debian packages on first use
def test_a_real_bed_cut_in_pieces_before_is_one_event_bridged(real_bed) -> None:
    """YAMNet's "Music" score alone (the pinned tagger, not our trained network), shaped the old way and bridged."""
    feats, span = real_bed
    logit = audioset_logits_per_segment(feats, ("Music",))[:, 0]
    shaped = {}
    for name, shape in (("before", AS_BEFORE), ("bridged", BRIDGED)):
        shape = dataclasses.replace(shape, source="zero-shot", zero_shot_threshold=-3.0)
        score = music_score(np.zeros_like(logit), logit, shape, segment_seconds=SEGMENT_SECONDS)
        shaped[name] = music_events(score, shape, segment_seconds=SEGMENT_SECONDS)
    before, bridged = _covering(shaped["before"], span), _covering(shaped["bridged"], span)
    assert len(before) >= 2, f"the old shaping found the bed as {before}"
    assert len(bridged) == 1, f"bridged, the bed came out as {bridged}"
    (start, end), (a, b) = bridged[0], span
    assert abs(start - a) <= 1.0 and abs(end - b) <= max(1.0, 0.5 * (b - a)), f"{bridged[0]} does not match the bed {span}"


@pytest.mark.slow  # over 2 s of CPU
def test_the_shipped_model_shapes_music_as_it_was_chosen(real_bed) -> None:
    feats, _ = real_bed
    model = SoundClassifier.load(AUDIOSET_MODEL)
    assert model.music_shape is not None, "the shipped AudioSet model carries no music shape"
    network, logit = raw_music_scores(model, feats)
    assert network.shape == logit.shape == (len(model.descriptors(feats)),)
    found = [e for e in detect_sounds(feats, model=model) if e.type == "music"]
    assert found == shaped_music_events(model, feats)
