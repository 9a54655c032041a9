"""Numba kernels against their slow twins on random inputs, exact textbook cases, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from engine.detect.frames import (
    close_and_prune,
    envelope_periodicity,
    grow_over,
    hysteresis,
    mask_spans,
    moving_mean,
    smooth_hangover,
    window_stats_at,
)
from engine.detect.kernels import _syllable_nuclei_kernel, _x_duration_kernel
from engine.detect.rate import syllable_nuclei
from engine.detect.xduration import x_duration
from engine.errors import ParameterError

from . import naive


def random_mask(rng, n, p=0.5):
    return (rng.random(n) < p).astype(np.uint8)


@pytest.mark.parametrize("trial", range(30))
def test_hangover_matches_naive(rng, trial):
    n = int(rng.integers(1, 200))
    active = random_mask(rng, n, rng.uniform(0.2, 0.8))
    onset, hang = int(rng.integers(1, 5)), int(rng.integers(0, 6))
    np.testing.assert_array_equal(smooth_hangover(active, onset=onset, hangover=hang), naive.hangover(active, onset, hang))


def test_hangover_textbook_case():
    active = np.array([0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0], dtype=np.uint8)
    # the lone 1 never opens (onset 2); the run opens at 3, keeps two frames of hangover after 5
    expected = [0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    np.testing.assert_array_equal(smooth_hangover(active, onset=2, hangover=2), expected)


@pytest.mark.parametrize("trial", range(30))
def test_hysteresis_matches_naive(rng, trial):
    score = rng.random(int(rng.integers(1, 200)))
    low = float(rng.uniform(0, 0.6))
    high = float(rng.uniform(low, 1.0))
    np.testing.assert_array_equal(hysteresis(score, high=high, low=low), naive.hysteresis(score, high, low))


def test_hysteresis_textbook_case():
    score = np.array([0.1, 0.4, 0.6, 0.9, 0.5, 0.2, 0.5, 0.6, 0.1])
    np.testing.assert_array_equal(hysteresis(score, high=0.8, low=0.4), [0, 1, 1, 1, 1, 0, 0, 0, 0])


@pytest.mark.parametrize("trial", range(30))
def test_close_and_prune_matches_naive(rng, trial):
    mask = random_mask(rng, int(rng.integers(1, 200)), rng.uniform(0.1, 0.9))
    gap, length = int(rng.integers(0, 5)), int(rng.integers(1, 8))
    np.testing.assert_array_equal(close_and_prune(mask, max_gap=gap, min_length=length), naive.close_and_prune(mask, gap, length))


@pytest.mark.parametrize("trial", range(30))
def test_grow_matches_naive(rng, trial):
    n = int(rng.integers(1, 200))
    mask, active = random_mask(rng, n, 0.1), random_mask(rng, n, 0.7)
    k = int(rng.integers(0, 10))
    np.testing.assert_array_equal(grow_over(mask, active, max_frames=k), naive.grow(mask, active, k))


@pytest.mark.parametrize("trial", range(12))
def test_envelope_periodicity_matches_naive(rng, trial):
    n = int(rng.integers(40, 300))
    level = -30 + 10 * rng.standard_normal(n)
    window, step = int(rng.integers(35, 80)), int(rng.integers(1, 6))
    max_lag = int(rng.integers(12, window - 2))
    min_lag = int(rng.integers(3, max_lag + 1))
    short_lag = int(rng.integers(1, min_lag))
    kw = dict(window=window, step=step, range_db=25.0, min_lag=min_lag, max_lag=max_lag, short_lag=short_lag)
    peak, dip, lag = envelope_periodicity(level, **kw)
    expected = naive.envelope_periodicity(level, **kw)
    np.testing.assert_array_equal(lag, expected[2])
    np.testing.assert_allclose(peak, expected[0], atol=1e-5)
    np.testing.assert_allclose(dip, expected[1], atol=1e-5)


def test_envelope_periodicity_finds_a_five_hertz_pulse_train():
    # 100 frames per second, bursts every 20 frames: the autocorrelation peaks at lag 20 exactly
    level = np.where(np.arange(300) % 20 < 8, -10.0, -40.0)
    peak, dip, lag = envelope_periodicity(level, window=100, range_db=30.0, min_lag=14, max_lag=28, short_lag=7)
    assert set(lag[50:250]) == {20}
    assert peak[150] > 0.7 and dip[150] < -0.5


@pytest.mark.parametrize("trial", range(30))
def test_syllable_nuclei_matches_naive(rng, trial):
    n = int(rng.integers(3, 200))
    intensity = np.round(rng.normal(-30, 6, n), 1)  # rounding makes plateaus (ties) happen
    voicing = rng.random(n)
    speech = random_mask(rng, n, 0.85)
    threshold = np.full(n, float(rng.uniform(-40, -25)))
    got = _syllable_nuclei_kernel(intensity, voicing, speech, threshold, 2.0, 0.4)
    assert got.tolist() == naive.syllable_nuclei(intensity, voicing, speech, threshold, 2.0, 0.4)


def test_syllable_nuclei_counts_three_voiced_bumps():
    t = np.arange(100)
    bumps = -40 + 20 * (np.exp(-((t - 20) ** 2) / 20) + np.exp(-((t - 50) ** 2) / 20) + np.exp(-((t - 80) ** 2) / 20))
    voicing = np.where(np.abs(t - 80) < 5, 0.1, 0.9)  # the third bump is unvoiced
    nuclei = syllable_nuclei(vowel_db=bumps, voicing=voicing, speech=np.ones(100, bool), sr=100, hop_length=1,
                             smooth_seconds=0.01)  # fmt: skip
    np.testing.assert_allclose(nuclei, [0.2, 0.5])


@pytest.mark.parametrize("trial", range(30))
def test_x_duration_matches_naive(rng, trial):
    n_frames, n_words = int(rng.integers(1, 300)), int(rng.integers(1, 30))
    starts = np.sort(rng.integers(-5, n_frames + 5, n_words))
    ends = starts + rng.integers(0, 20, n_words)
    good = random_mask(rng, n_words, 0.7)
    active = random_mask(rng, n_frames, 0.6)
    cumsum = np.concatenate([[0], np.cumsum(active)]).astype(np.float64)
    got = _x_duration_kernel(starts.astype(np.int64), ends.astype(np.int64), good, cumsum, 0)
    np.testing.assert_array_equal(got, naive.x_duration(starts, ends, good, active))


def test_x_duration_textbook_case():
    # 10 ms frames: sound everywhere except frames 100-149; words at 0.0-0.5 s, an [unk] at 0.6-0.9 s,
    # then 2.0-2.3 s: the last word's gap runs from 0.5 s (last good word) to 2.0 s, sound in 1.0 of it.
    active = np.ones(300, dtype=bool)
    active[100:150] = False
    xd = x_duration(word_starts=[0.0, 0.6, 2.0], word_ends=[0.5, 0.9, 2.3], good=[True, False, True],
                    active=active, frame_seconds=0.01)  # fmt: skip
    np.testing.assert_allclose(xd, [0.0, 0.1, 1.0])


def test_moving_mean_textbook_case():
    np.testing.assert_allclose(moving_mean(np.array([1.0, 2, 3, 4, 5]), width=3), [1.5, 2, 3, 4, 4.5])
    np.testing.assert_allclose(moving_mean(np.array([1.0, 2, 3]), width=3, weights=np.array([1.0, 0, 1])), [1, 2, 3])


@pytest.mark.parametrize("width", [1, 2, 3, 4, 7, 50, 400])
@pytest.mark.parametrize("n", [1, 2, 5, 199])
def test_moving_mean_matches_a_loop(n, width):
    rng = np.random.default_rng(n * 1000 + width)
    x, w = rng.normal(size=n) * 30, (rng.random(n) < 0.6).astype(float)
    for weights in (None, w):
        ww = np.ones(n) if weights is None else weights
        want = np.zeros(n)
        for i in range(n):
            a, b = max(0, i - width // 2), min(n, i - width // 2 + width)
            total = ww[a:b].sum()
            want[i] = (x[a:b] * ww[a:b]).sum() / total if total > 1e-12 else 0.0
        np.testing.assert_allclose(moving_mean(x, width=width, weights=weights), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("width", [1, 2, 3, 12, 120])
@pytest.mark.parametrize("n", [1, 5, 1_999])
def test_window_stats_at_some_frames_are_the_moving_means_numbers(n, width):
    rng = np.random.default_rng(n + width)
    x = rng.normal(size=n) * 30 + 40
    at = np.arange(0, n, 10)
    mean, std = window_stats_at(x, width, at)
    full = moving_mean(x, width=width)
    np.testing.assert_array_equal(mean, full[at])  # the same sums and divisions: not close, equal
    np.testing.assert_array_equal(std, np.sqrt(np.maximum(moving_mean(x * x, width=width) - full * full, 0.0))[at])
    for k, i in enumerate(at):  # and what they mean
        window = x[max(0, i - width // 2) : i - width // 2 + width]
        assert mean[k] == pytest.approx(window.mean(), abs=1e-6)
        assert std[k] == pytest.approx(window.std(), abs=1e-2)  # a difference of running sums: a deviation of 0 reads ~1e-6


def test_mask_spans():
    assert mask_spans(np.array([0, 1, 1, 0, 1])) == [(1, 3), (4, 5)]
    assert mask_spans(np.zeros(3)) == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: smooth_hangover(np.ones(5), onset=0, hangover=1), "onset must be >= 1"),
        (lambda: smooth_hangover(np.ones((2, 2)), onset=1, hangover=1), "one-dimensional"),
        (lambda: hysteresis(np.ones(3), high=0.2, low=0.5), "low <= high"),
        (lambda: hysteresis(np.array([0.1, np.nan]), high=0.5, low=0.2), "frame 1 is nan"),
        (lambda: close_and_prune(np.ones(3), max_gap=-1, min_length=1), "max_gap must be >= 0"),
        (lambda: grow_over(np.ones(3), np.ones(4), max_frames=1), "same length"),
        (lambda: envelope_periodicity(np.zeros(50), window=20, range_db=30, min_lag=5, max_lag=25, short_lag=2),
         "max_lag < window"),
        (lambda: moving_mean(np.ones(3), width=0), "width must be at least 1"),
        (lambda: x_duration(word_starts=[1.0], word_ends=[0.5], good=[True], active=np.ones(10), frame_seconds=0.01),
         "word 0 ends before it starts"),
        (lambda: x_duration(word_starts=[1.0, 0.5], word_ends=[1.2, 0.6], good=[1, 1], active=np.ones(10),
                            frame_seconds=0.01), "time order"),
        (lambda: x_duration(word_starts=[0.0], word_ends=[0.1], good=[1], active=np.ones(3), frame_seconds=0.0),
         "frame_seconds must be a positive number"),
    ],
    ids=["onset-zero", "not-1d", "low-above-high", "nan-score", "negative-gap", "length-mismatch", "lag-window",
         "zero-width", "word-reversed", "words-unordered", "zero-frame"],
)  # fmt: skip
def test_bad_inputs_raise_parameter_error(call, message):
    with pytest.raises(ParameterError, match=message):
        call()
