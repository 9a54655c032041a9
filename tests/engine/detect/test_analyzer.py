"""The streaming front end the ingest worker uses: AudioAnalyzer.feed / finish."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from engine.asr.base import Word
from engine.detect import AudioAnalyzer, DetectorSettings, analyze
from engine.detect.events import EVENT_TYPES
from engine.errors import ParameterError

from .conftest import truth_words


@pytest.mark.slow  # a second whole analyzer pass over the broadcast, about 2 s of CPU
def test_blocks_of_any_length_give_the_same_detections(clip_broadcast, rng):
    analyzer = AudioAnalyzer(sr=clip_broadcast.truth.sample_rate)
    audio, i = clip_broadcast.audio, 0
    while i < len(audio):
        n = int(rng.integers(100, 20000))
        analyzer.feed(audio[i : i + n])
        i += n
    words = truth_words(clip_broadcast.truth)
    detections = analyzer.finish(words)
    assert [(e.type, e.start, e.end) for e in detections.events] == [
        (e.type, e.start, e.end) for e in clip_broadcast.detections.events
    ]
    np.testing.assert_allclose(detections.x_duration, clip_broadcast.detections.x_duration, atol=0.02)


def test_events_are_sorted_typed_and_inside_the_recording(clip_broadcast):
    events = clip_broadcast.detections.events
    assert [e.start for e in events] == sorted(e.start for e in events)
    assert {e.type for e in events} <= set(EVENT_TYPES)
    duration = len(clip_broadcast.audio) / clip_broadcast.truth.sample_rate
    assert all(0 <= e.start < e.end <= duration + 0.01 for e in events)
    assert all(np.isfinite(e.score) and np.isfinite(e.value) for e in events)


def test_unknown_and_unsure_words_count_as_untranscribed(clip_broadcast):
    words = truth_words(clip_broadcast.truth)
    story = clip_broadcast.truth.stories[1]
    first = story.first_word
    # the recogniser heard the story's first two words only as [unk] and a low-confidence guess
    words[first] = dataclasses.replace(words[first], text="[unk]")
    words[first + 1] = dataclasses.replace(words[first + 1], conf=0.05)
    xd = analyze(clip_broadcast.features, words, settings=DetectorSettings(min_word_confidence=0.1)).x_duration
    before = clip_broadcast.detections.x_duration[first]
    assert xd[first] == pytest.approx(before)
    assert xd[first + 2] >= before + 0.8 * (words[first + 2].start - words[first].start) - 0.2
    assert xd[first + 3] == pytest.approx(0.0, abs=0.05)


def test_low_confidence_counts_only_when_asked(clip_broadcast):
    words = truth_words(clip_broadcast.truth)
    first = clip_broadcast.truth.stories[1].first_word
    words[first + 1] = dataclasses.replace(words[first + 1], conf=0.05)
    default = analyze(clip_broadcast.features, words).x_duration
    assert default[first + 2] == pytest.approx(0.0, abs=0.05)


def test_no_words_and_no_audio():
    analyzer = AudioAnalyzer()
    detections = analyzer.finish([])
    assert detections.events == [] and detections.x_duration.shape == (0,)
    analyzer = AudioAnalyzer()
    analyzer.feed(np.zeros(8000, dtype=np.int16))
    detections = analyzer.finish([Word(0.1, 0.2, 1.0, "hello")])
    assert detections.events == [] and detections.x_duration.tolist() == [0.0]


def test_words_out_of_order_are_refused(clip_broadcast):
    words = [Word(2.0, 2.5, 1.0, "b"), Word(1.0, 1.5, 1.0, "a")]
    with pytest.raises(ParameterError, match="time order"):
        analyze(clip_broadcast.features, words)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("vad_aggressiveness", 5, "vad_aggressiveness must be 0, 1, 2 or 3"),
        ("speech_hangover_seconds", -0.1, "speech_hangover_seconds must lie in"),
        ("music_sensitivity", 1.0, "music_sensitivity must lie strictly between 0 and 1"),
        ("applause_sensitivity", 0.0, "applause_sensitivity must lie strictly between 0 and 1"),
        ("laughter_sensitivity", -1, "laughter_sensitivity must lie strictly between 0 and 1"),
        ("rate_deviation", 1.5, "rate_deviation must lie strictly between 0 and 1"),
        ("min_word_confidence", 2.0, "min_word_confidence must lie in"),
    ],
    ids=["vad-mode", "hangover", "music", "applause", "laughter", "rate", "confidence"],
)
def test_bad_settings_raise_parameter_error(field, value, message):
    with pytest.raises(ParameterError, match=message):
        DetectorSettings(**{field: value})


def test_settings_change_what_is_found(clip_broadcast):
    def seconds(settings: DetectorSettings | None) -> dict[str, float]:
        found = clip_broadcast.detections if settings is None else analyze(clip_broadcast.features, settings=settings)
        return {kind: sum(e.duration for e in found.of_type(kind)) for kind in ("music", "applause", "laughter")}

    shy = seconds(DetectorSettings(music_sensitivity=0.05, applause_sensitivity=0.05, laughter_sensitivity=0.05))
    keen = seconds(DetectorSettings(music_sensitivity=0.95, applause_sensitivity=0.95, laughter_sensitivity=0.95))
    default = seconds(None)
    for kind in default:  # each kind's sensitivity moves its own detector, both ways
        assert shy[kind] < default[kind] < keen[kind], (kind, shy, default, keen)


def test_events_keep_their_kinds_shape_at_every_sensitivity(clip_broadcast):
    """However keen, a music event lasts 2 s, applause 0.8 s, and events of a kind closer than 0.5 s are one."""
    shortest = {"music": 2.0, "applause": 0.8}
    for sensitivity in (0.05, 0.5, 0.95):
        settings = DetectorSettings(music_sensitivity=sensitivity, applause_sensitivity=sensitivity)
        found = analyze(clip_broadcast.features, settings=settings)
        for kind, seconds in shortest.items():
            events = found.of_type(kind)
            assert all(e.duration >= seconds - 0.05 for e in events), (sensitivity, kind, events)
            assert all(b.start - a.end > 0.5 for a, b in itertools.pairwise(events)), (sensitivity, kind, events)


def test_a_recording_without_a_quiet_moment_still_has_sound(rng):
    # two seconds of hiss at -20 dBFS: its 5th-percentile level is no background to measure against
    hiss = (0.1 * rng.standard_normal(2 * 16000) * 32767).astype(np.int16)
    analyzer = AudioAnalyzer()
    analyzer.feed(hiss)
    detections = analyzer.finish([Word(1.0, 1.2, 1.0, "hello")])
    assert [e.type for e in detections.events] == ["noise"]
    assert detections.x_duration[0] == pytest.approx(1.0, abs=0.05)  # a word "heard" in noise is no word
    assert detections.transcribed.tolist() == [False]


def test_speech_rate_in_words_per_minute_beside_syllables_per_second(clip_broadcast):
    d = clip_broadcast.detections
    assert d.words_per_minute == pytest.approx(60.0 * d.words_per_second)
    assert 90.0 < d.words_per_minute < 300.0  # espeak-ng reads at 150-190 words a minute between pauses
    assert d.syllables_per_second > d.words_per_second
