"""The detectors on generated broadcasts (espeak-ng speech, synthetic music and noise, real
applause, laughter and crowd recordings from Debian packages), with assertions on the events found."""

from __future__ import annotations

import numpy as np
import pytest

from engine.detect import DetectorSettings, analyze, detect_applause, detect_laughter, detect_music
from engine.detect.events import Event


def overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def matched(truth: list[tuple[float, float]], found: list[Event], *, collar: float = 1.0) -> list[bool]:
    """For each true span: some event overlaps it, with onset within ``collar`` seconds."""
    return [any(overlap(span, (e.start, e.end)) > 0 and abs(e.start - span[0]) <= collar for e in found) for span in truth]


@pytest.mark.parametrize("kind", ["music", "applause", "laughter"])
def test_every_true_sound_event_is_found(clip_broadcast, kind):
    truth = clip_broadcast.truth_spans(kind)
    found = clip_broadcast.detections.of_type(kind)
    assert truth, f"the fixture broadcast should hold {kind}"
    assert all(matched(truth, found)), f"{kind}: truth {truth}, found {[(e.start, e.end) for e in found]}"


@pytest.mark.parametrize("kind", ["music", "applause", "laughter"])
def test_no_sound_event_lands_on_something_else(clip_broadcast, kind):
    truth = clip_broadcast.truth_spans(kind)
    for event in clip_broadcast.detections.of_type(kind):
        inside = sum(overlap(span, (event.start, event.end)) for span in truth)
        assert inside >= 0.5 * event.duration, f"{kind} event {event} does not lie on a true {kind} span"


def test_speech_events_cover_the_stories_and_skip_the_music(clip_broadcast):
    speech = [(e.start, e.end) for e in clip_broadcast.detections.of_type("speech")]
    for story in clip_broadcast.truth.stories:
        covered = sum(overlap((story.start, story.end), s) for s in speech)
        assert covered >= 0.9 * (story.end - story.start)
    music = clip_broadcast.truth_spans("music")
    # the hangover may run a few tenths of a second into a bed that starts after a short pad
    assert sum(overlap(m, s) for m in music for s in speech) < 0.1 * sum(b - a for a, b in music)


def test_plain_speech_has_no_false_alarms(plain_broadcast):
    kinds = {e.type for e in plain_broadcast.detections.events}
    assert not kinds & {"music", "applause", "laughter", "noise"}, plain_broadcast.detections.events


def test_x_duration_is_the_gap_before_a_story_and_zero_inside_speech(clip_broadcast):
    truth, xd = clip_broadcast.truth, clip_broadcast.detections.x_duration
    assert xd.shape == (len(truth.words),)
    firsts = [s.first_word for s in truth.stories]
    previous_end = 0.0
    for story in truth.stories:
        sound = sum(e.end - e.start for e in truth.events
                    if e.type != "silence" and e.start >= previous_end - 1e-6 and e.end <= story.start + 1e-6)  # fmt: skip
        assert xd[story.first_word] == pytest.approx(sound, abs=0.15), f"story {story.index}"
        previous_end = story.end
    inner = np.setdiff1d(np.arange(len(truth.words)), firsts)
    assert np.percentile(xd[inner], 99) < 0.05
    assert xd[inner].max() < 0.3
    # The true words were all spoken inside speech: every one counts as transcribed.
    assert clip_broadcast.detections.transcribed.shape == (len(truth.words),)
    assert clip_broadcast.detections.transcribed.mean() > 0.97


def test_detectors_are_pure_functions_of_the_features(clip_broadcast):
    f = clip_broadcast.features
    kw = dict(sr=f.sr, hop_length=f.hop_length)
    music = detect_music(chroma_stability=f.chroma_stability, voicing=f.voicing, flux=f.flux, energy_db=f.energy_db, **kw)
    rules = analyze(f, settings=DetectorSettings(sound_model="rules"))
    assert music == rules.of_type("music")
    # a less sensitive detector finds less: each of its events inside one of the default's, all of them shorter
    strict = detect_applause(flatness=f.flatness, voicing=f.voicing, chroma_stability=f.chroma_stability,
                             energy_db=f.energy_db, sensitivity=0.1, **kw)  # fmt: skip
    default = rules.of_type("applause")
    assert strict and all(any(d.start <= e.start and e.end <= d.end for d in default) for e in strict)
    assert sum(e.duration for e in strict) < sum(e.duration for e in default) - 0.1
    # and the same call twice gives the same answer
    args = dict(energy_db=f.energy_db, shape_stability=f.shape_stability, chroma_stability=f.chroma_stability, **kw)
    assert detect_laughter(**args) == detect_laughter(**args)


def test_steady_noise_scored_a_block_at_a_time_is_the_whole_recording_s(clip_broadcast):
    """Blocks of 997 frames (each with its windows' reach on either side) give the whole-file score."""
    from engine.detect.sounds import noise_score

    f = clip_broadcast.features
    kw = {"shape_stability": f.shape_stability, "flux": f.flux, "flatness": f.flatness, "energy_db": f.energy_db,
          "sr": f.sr, "hop_length": f.hop_length}
    whole_score, whole_level = noise_score(**kw, block_frames=10**9)
    score, level = noise_score(**kw, block_frames=997)
    assert f.n_frames > 5 * 997 and whole_score.max() > 0.5  # several blocks, and noise to score
    np.testing.assert_allclose(score, whole_score, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(level, whole_level, rtol=1e-9, atol=1e-9)
