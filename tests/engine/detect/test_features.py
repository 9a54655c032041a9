"""The streaming feature front end: block-size invariance, units on textbook signals, bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from engine.asr.base import Word
from engine.detect import config
from engine.detect import features as features_module
from engine.detect.analyzer import analyze
from engine.detect.features import (
    FEATURE_NAMES,
    FeatureExtractor,
    chroma_filters,
    frame_features,
    slaney_mel_filters,
    slaney_mel_frequencies,
)
from engine.errors import ParameterError, StorageError

SR = 16000


def tone(freqs, seconds, *, amplitude=0.5):
    t = np.arange(round(seconds * SR)) / SR
    x = sum(np.sin(2 * np.pi * f * t) for f in freqs)
    return (amplitude * x / len(freqs)).astype(np.float32)


@pytest.mark.parametrize("sr", [8000, 16000, 32000, 48000])
@pytest.mark.parametrize("n_fft", [512, 1024, 4096])
def test_chroma_filters_are_librosa_s(sr, n_fft):
    librosa = pytest.importorskip("librosa", reason="librosa is the reference")
    expected = librosa.filters.chroma(sr=sr, n_fft=n_fft, dtype=np.float64)
    np.testing.assert_allclose(chroma_filters(sr=sr, n_fft=n_fft), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("sr", [8000, 16000, 22050, 48000])
@pytest.mark.parametrize(("n_fft", "n_mels"), [(512, 40), (1024, 64), (400, 26)])
def test_mel_filters_are_librosa_s_bit_for_bit(sr, n_fft, n_mels):
    librosa = pytest.importorskip("librosa", reason="librosa is the reference")
    expected = librosa.filters.mel(sr=sr, n_fft=n_fft, n_mels=n_mels, fmin=0.0, fmax=sr / 2, norm="slaney")
    np.testing.assert_array_equal(slaney_mel_filters(sr=sr, n_fft=n_fft, n_mels=n_mels), expected)
    np.testing.assert_array_equal(slaney_mel_frequencies(n_mels + 2, fmin=0.0, fmax=sr / 2),
                                  librosa.mel_frequencies(n_mels=n_mels + 2, fmin=0.0, fmax=sr / 2))
    np.testing.assert_array_equal(slaney_mel_frequencies(10, fmin=300.0, fmax=900.0),
                                  librosa.mel_frequencies(n_mels=10, fmin=300.0, fmax=900.0))


def test_the_extractor_imports_neither_librosa_nor_scipy_signal():
    """The recognition worker's start: neither package is imported by the feature extractor."""
    import subprocess
    import sys

    code = ("import sys; import engine.detect.features, engine.detect.analyzer; "
            "print(sorted(m for m in ('librosa', 'scipy.signal', 'scipy.stats') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[3]))
    assert out.stdout.strip() == "[]"


def test_features_do_not_depend_on_block_size(rng):
    audio = (rng.standard_normal(SR * 3) * 3000).astype(np.int16)
    whole = frame_features(audio, sr=SR, block_seconds=10.0)
    extractor = FeatureExtractor(sr=SR)
    i = 0
    while i < len(audio):
        n = int(rng.integers(1, 3000))
        extractor.feed(audio[i : i + n])
        i += n
    pieces = extractor.finish()
    for name in (*FEATURE_NAMES, "vad"):
        np.testing.assert_allclose(getattr(pieces, name), getattr(whole, name), rtol=1e-4, atol=1e-4, err_msg=name)
    np.testing.assert_allclose(pieces.cepstrum.astype(np.float32), whole.cepstrum.astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("n_samples", [1, 159, 160, 161, 16000, 16001])
def test_one_frame_per_started_hop(n_samples):
    features = frame_features(np.zeros(n_samples, dtype=np.int16), sr=SR)
    assert features.n_frames == -(-n_samples // 160)
    assert features.vad.shape == (n_samples // 480,)
    assert all(getattr(features, name).dtype == np.float32 for name in FEATURE_NAMES)
    assert features.cepstrum.shape == (features.n_frames, 8) and features.cepstrum.dtype == np.float16


def test_full_scale_sine_reads_minus_three_db():
    features = frame_features(tone([1000.0], 1.0, amplitude=1.0), sr=SR)
    np.testing.assert_allclose(features.energy_db[10:-10], -3.01, atol=0.1)
    np.testing.assert_allclose(features.vowel_db[10:-10], -3.01, atol=0.1)  # 1 kHz is in the vowel band


def test_digital_silence_sits_at_the_floor():
    features = frame_features(np.zeros(SR, dtype=np.int16), sr=SR)
    assert features.energy_db.max() <= -99.0


def test_harmonic_tone_is_voiced_stable_and_tonal_noise_is_not(rng):
    chord = frame_features(tone([220.0, 440.0, 660.0, 880.0], 1.0), sr=SR)
    noise = frame_features((0.1 * rng.standard_normal(SR)).astype(np.float32), sr=SR)
    inner = slice(15, -15)
    assert chord.voicing[inner].min() > 0.9
    assert np.median(noise.voicing[inner]) < 0.4
    assert chord.chroma_stability[inner].min() > 0.99
    assert np.median(chord.flatness[inner]) < -2.0
    assert np.median(noise.flatness[inner]) > -0.3  # white noise: flat
    assert np.median(chord.flux[inner]) < 0.05  # a held chord barely changes


def test_memory_per_hour_of_features():
    features = frame_features(np.zeros(SR * 2, dtype=np.int16), sr=SR)
    per_hour = features.nbytes / features.duration * 3600
    assert per_hour < 17e6  # about 16 MB an hour (6 of them the cepstrum): flat enough for a 3-hour file


def _speechlike_with_music_and_noise(rng) -> np.ndarray:
    """6 s: a chord, white noise, then a tone gliding under bursts (the detectors have something to find)."""
    t = np.arange(2 * SR) / SR
    glide = np.sin(2 * np.pi * (150 + 100 * t) * t) * (np.sin(2 * np.pi * 3 * t) > 0)
    parts = [tone([220.0, 440.0, 660.0], 2.0), (0.05 * rng.standard_normal(2 * SR)), 0.4 * glide]
    return np.concatenate(parts).astype(np.float32)


def test_features_spilled_to_a_temporary_file_are_the_same(rng, monkeypatch, tagger):
    audio = _speechlike_with_music_and_noise(rng)
    held = frame_features(audio, sr=SR, audioset=tagger)
    monkeypatch.setattr(config, "FEATURE_SPILL_BYTES", 64)  # a 6 s file spills many times over
    spilled = frame_features(audio, sr=SR, audioset=tagger)
    np.testing.assert_array_equal(held.audioset, spilled.audioset)
    for name in (*FEATURE_NAMES, "cepstrum", "vad"):
        a, b = getattr(held, name), getattr(spilled, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)
        assert not b.flags.writeable, f"{name} is not read from the mapped file"
    assert held.energy_db.flags.writeable  # under the limit, held in memory as before
    words = [Word(4.0 + 0.3 * k, 4.25 + 0.3 * k, 0.9, w) for k, w in enumerate(["the", "glide", "goes", "up", "and", "down"])]
    a, b = analyze(spilled, words), analyze(held, words)  # the detectors read mapped columns unchanged
    assert a.events == b.events and a.syllables_per_second == b.syllables_per_second
    np.testing.assert_array_equal(a.x_duration, b.x_duration)
    np.testing.assert_array_equal(a.transcribed, b.transcribed)


def test_a_full_temporary_folder_is_one_clear_error(rng, monkeypatch):
    monkeypatch.setattr(config, "FEATURE_SPILL_BYTES", 2048)
    monkeypatch.setattr(features_module.tempfile, "TemporaryFile", lambda **_: open("/dev/full", "w+b"))  # noqa: SIM115
    extractor = FeatureExtractor(sr=SR)
    with pytest.raises(StorageError, match=r"temporary folder .*: No space left on device"):
        extractor.feed(_speechlike_with_music_and_noise(rng))


def test_cepstrum_is_flat_for_white_noise_and_not_for_a_tone(rng):
    noise = frame_features((0.1 * rng.standard_normal(SR)).astype(np.float32), sr=SR)
    beep = frame_features(tone([1000.0], 1.0), sr=SR)
    inner = slice(15, -15)
    # a flat log mel spectrum has no energy in c1..c8 (the orthonormal DCT of a constant is c0 alone)
    assert np.abs(np.median(noise.cepstrum[inner].astype(np.float64), axis=0)).max() < 1.0
    assert np.abs(np.median(beep.cepstrum[inner].astype(np.float64), axis=0)).max() > 10.0
    assert noise.slice(0.2, 0.5).cepstrum.shape == (30, 8)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: FeatureExtractor(sr=22050), "sr must be one of"),
        (lambda: FeatureExtractor(vad_aggressiveness=4), "vad_aggressiveness must be 0, 1, 2 or 3"),
        (lambda: FeatureExtractor().feed(np.zeros((10, 2), dtype=np.int16)), "must be mono"),
        (lambda: FeatureExtractor().feed(np.zeros(10, dtype=np.int32)), "integer blocks must be int16"),
    ],
    ids=["bad-rate", "bad-aggressiveness", "stereo", "int32"],
)
def test_bad_inputs_raise_parameter_error(make, message):
    with pytest.raises(ParameterError, match=message):
        make()


def test_feed_after_finish_raises():
    extractor = FeatureExtractor()
    extractor.feed(np.zeros(100, dtype=np.int16))
    extractor.finish()
    with pytest.raises(ParameterError, match=r"feed\(\) after finish\(\)"):
        extractor.feed(np.zeros(100, dtype=np.int16))
