"""Captions made recogniser-like, the calibrated posterior threshold and the recogniser model's training."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.research.segment.recogniser_like import (
    fit_posterior_threshold,
    threshold_starts,
    unpunctuated,
    whisper_like,
)
from engine.segment.text import Transcript


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20060613)


def _punctuated_day(rng, n_stories: int, *, name: str) -> Transcript:
    """Stories of 40-80 words from per-story vocabularies, a sentence every 10 words, 3 s pauses between stories."""
    words, starts, story_starts = [], [], []
    t = 0.0
    for k in range(n_stories):
        story_starts.append(len(words))
        t += 3.0 if k else 0.0
        topic = rng.integers(0, 40, size=12)
        for _ in range(int(rng.integers(40, 80))):
            words.append(f"w{rng.choice(topic)}" if rng.random() < 0.6 else f"c{rng.integers(0, 30)}")
            starts.append(t)
            t += 0.4
    starts_a = np.asarray(starts)
    n = len(words)
    return Transcript(words=words, story_starts=np.asarray(story_starts, dtype=np.int64), starts=starts_a,
                      ends=starts_a + 0.3, sentence_starts=np.arange(0, n, 10, dtype=np.int64), name=name)


def test_whisper_like_thins_sentences_to_the_rate_without_looking_at_stories(rng):
    day = _punctuated_day(rng, 60, name="day")
    thinned = whisper_like(day, words_per_sentence=40.0, rng=rng)
    assert thinned.sentence_starts[0] == 0
    assert set(thinned.sentence_starts.tolist()) <= set(day.sentence_starts.tolist())
    assert abs(len(day) / thinned.sentence_starts.size - 40.0) < 8.0
    # words, times and stories untouched
    assert thinned.words == day.words
    np.testing.assert_array_equal(thinned.story_starts, day.story_starts)
    # story starts that are sentence starts are kept at the same rate as any other
    at_story = np.isin(day.story_starts[1:], thinned.sentence_starts).mean()
    assert at_story < 0.6
    assert whisper_like(unpunctuated(day), rng=rng).sentence_starts.size == 0
    with pytest.raises(ParameterError, match="words_per_sentence must be positive, got 0"):
        whisper_like(day, words_per_sentence=0, rng=rng)


def test_posterior_threshold_is_fitted_between_true_and_spurious_peaks():
    n = 400
    truth = Transcript(words=["w"] * n, story_starts=np.array([0, 100, 200, 300]), name="t")
    posterior = np.zeros(n)
    posterior[[100, 200, 300]] = 0.85   # true starts
    posterior[[50, 150, 250, 350]] = 0.35  # spurious peaks
    threshold = fit_posterior_threshold([(posterior, truth)])
    assert 0.35 < threshold <= 0.85
    np.testing.assert_array_equal(threshold_starts(posterior, n, threshold=threshold), truth.story_starts)
    # a threshold below the spurious peaks takes them too
    assert threshold_starts(posterior, n, threshold=0.2).size == 8
    with pytest.raises(ParameterError, match="needs at least one decoded transcript"):
        fit_posterior_threshold([])


def test_recogniser_model_trains_on_a_small_fixture_and_carries_its_threshold(rng):
    """A fixture-sized run of the shipped recogniser model's training (tools/train_segmentation_models.py)."""
    from engine.segment.segmenter import segment_recognised
    from tools.train_segmentation_models import recogniser_model

    days = [_punctuated_day(rng, 14, name=f"day{i}") for i in range(3)]
    model = recogniser_model(days, {"corpus": "fixture"}, seed=3)
    assert "sentence_start" in model.feature_names
    assert model.info["input"] == "whisper-like captions"
    assert 0.0 < model.info["posterior_threshold"] < 1.0
    assert model.info["block_seconds"] in (0.0, 30.0, 45.0, 60.0, 90.0)
    test = _punctuated_day(rng, 14, name="test")
    shown = list(test.words)
    for i in whisper_like(test, rng=rng).sentence_starts[1:]:
        shown[i - 1] += "."
    seg = segment_recognised(test.words, shown, engine="whisper", starts=test.starts, ends=test.ends, model=model)
    assert seg.story_starts[0] == 0 and np.diff(np.append(seg.story_starts, len(test))).min() >= 30
    # the 3 s pauses between stories are learnt: most true starts are found
    hits = sum(np.abs(seg.story_starts - s).min() <= 2 for s in test.story_starts[1:])
    assert hits >= 0.6 * (test.story_starts.size - 1)
