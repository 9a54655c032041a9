"""Whisper's log-mel features computed a block at a time: the library's numbers, in the output's memory."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from engine.asr.whisper_features import BLOCK_FRAMES, lean_extractor, log_mel
from engine.audio.decode import decode_all

feature_extractor = pytest.importorskip("faster_whisper.feature_extractor", reason="faster-whisper is not installed")


@pytest.fixture(scope="module")
def library() -> object:
    return feature_extractor.FeatureExtractor()


def _peak_bytes(fn: object, *args: object) -> int:
    tracemalloc.start()
    try:
        fn(*args)  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_features_of_read_speech_are_the_librarys(library: object, librivox: dict[Path, str]) -> None:
    """The five LibriVox clips joined, twice (over three Fourier blocks): equal to faster-whisper's own."""
    speech = np.concatenate([decode_all(p) for p in sorted(librivox)] * 2).astype(np.float32) / 32768.0
    assert speech.size > 3 * BLOCK_FRAMES * 160
    ours = lean_extractor(library)(speech)
    theirs = library(speech)  # type: ignore[operator]
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 199, 200, 201, 400, 160 * BLOCK_FRAMES - 160, 160 * BLOCK_FRAMES + 1])
def test_edges_and_short_inputs_are_framed_as_the_library_frames_them(library: object, n: int) -> None:
    noise = np.random.default_rng(n).standard_normal(n).astype(np.float32) * 0.1
    ours = lean_extractor(library)(noise)
    theirs = library(noise)  # type: ignore[operator]
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


def test_ten_minutes_cost_less_than_their_samples_not_fourteen_times_them(library: object) -> None:
    """The library's extractor holds the whole input's spectrum; the lean one a block of it and the output
    (half the samples' size), never a padded copy of the input."""
    audio = np.random.default_rng(0).standard_normal(600 * 16000).astype(np.float32) * 0.1
    filters = library.mel_filters  # type: ignore[attr-defined]
    ours = _peak_bytes(log_mel, audio, filters)
    theirs = _peak_bytes(library, audio)
    assert ours < audio.nbytes < theirs / 10, (ours / audio.nbytes, theirs / audio.nbytes)


def test_the_wrapped_extractor_keeps_the_librarys_settings(library: object) -> None:
    lean = lean_extractor(library)
    assert isinstance(lean, feature_extractor.FeatureExtractor)
    for name in ("n_fft", "hop_length", "sampling_rate", "nb_max_frames", "time_per_frame"):
        assert getattr(lean, name) == getattr(library, name)
    lean(np.zeros(16000, dtype=np.float32), chunk_length=20)
    assert lean.nb_max_frames == 2000 and library.nb_max_frames == 3000  # type: ignore[attr-defined]
