"""The two networks with their real weights on real recordings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.speakers import features
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.segmentation import Segmentation, powerset_to_speakers
from tests.engine.speakers import reference
from tools import synth
from tools.voices import VoiceUnavailable, fetch_voice, load_utterance

LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")


@pytest.fixture(scope="module")
def seg_model(speaker_files) -> Segmentation:  # type: ignore[no-untyped-def]
    return Segmentation.load(speaker_files.segmentation)


@pytest.fixture(scope="module")
def cam_model(speaker_files) -> CamPlusPlus:  # type: ignore[no-untyped-def]
    return CamPlusPlus.load(speaker_files.embedding)


def _voice_clips(name: str, count: int, seconds: float = 3.0) -> list[np.ndarray]:
    try:
        files = fetch_voice(name)
    except VoiceUnavailable as error:
        pytest.skip(str(error))
    clips, parts = [], []
    for path in files:
        parts.append(load_utterance(path))
        if sum(map(len, parts)) >= seconds * 16_000:
            clips.append(np.concatenate(parts)[: int(seconds * 16_000)])
            parts = []
            if len(clips) == count:
                break
    return clips


@pytest.mark.slow
def test_segmentation_finds_speech_and_not_silence_or_music(seg_model: Segmentation, rng: np.random.Generator) -> None:
    files = sorted(LIBRIVOX.glob("*.wav"))
    if not files:
        pytest.skip("Debian package pocketsphinx-testdata is not installed")
    speech = np.concatenate([load_utterance(path) for path in files])[:80_000]
    window = np.zeros(160_000, dtype=np.float32)
    window[:80_000] = speech
    window += rng.normal(0, 1e-4, window.size).astype(np.float32)
    music = synth.music_bed(10.0, sample_rate=16_000, rng=rng) * 0.3
    active = powerset_to_speakers(seg_model(np.stack([window, music.astype(np.float32)]))).max(axis=2)
    assert active[0, 20:280].mean() > 0.9  # frames 0..294 cover the speech
    assert active[0, 310:].mean() < 0.05
    assert active[1].mean() < 0.2


@pytest.mark.slow
def test_segmentation_gives_two_voices_two_local_speakers(seg_model: Segmentation) -> None:
    a, b = _voice_clips("allison-en", 1, 4.0)[0], _voice_clips("carlo", 1, 4.0)[0]
    window = np.zeros(160_000, dtype=np.float32)
    window[8_000:72_000], window[88_000:152_000] = a, b
    speakers = powerset_to_speakers(seg_model(window[None]))[0]
    first, second = speakers[40:250].mean(axis=0), speakers[330:540].mean(axis=0)
    assert first.max() > 0.8 and second.max() > 0.8
    assert int(np.argmax(first)) != int(np.argmax(second))


@pytest.mark.slow
def test_the_fast_segmentation_gives_the_previous_log_probabilities_on_real_voices(seg_model: Segmentation) -> None:
    a, b = _voice_clips("allison-en", 1, 5.0)[0], _voice_clips("carlo", 1, 5.0)[0]
    windows = np.zeros((2, 160_000), dtype=np.float32)
    windows[0, :80_000], windows[0, 80_000:] = a, b
    windows[1, 20_000:100_000] = 0.5 * a + 0.5 * b  # two voices at once, then silence
    fast, previous = seg_model(windows), reference.segmentation_log_probs(seg_model, windows)
    np.testing.assert_allclose(fast, previous, atol=2e-3)
    assert (fast.argmax(axis=-1) == previous.argmax(axis=-1)).mean() > 0.999


@pytest.mark.slow
def test_the_fast_cam_embeddings_are_the_previous_ones_on_real_voices(cam_model: CamPlusPlus) -> None:
    clips = _voice_clips("carlo", 2, 5.0) + _voice_clips("allison-en", 1, 5.0)  # 5 s: 249 frames, 3 context segments
    feats = np.stack([f - f.mean(axis=0) for f in map(features.fbank, clips)])
    fast, previous = cam_model.embed_features(feats), reference.campplus_embeddings(cam_model, feats)
    np.testing.assert_allclose(fast, previous, atol=1e-3 * float(np.abs(previous).max()))
    cosine = (fast * previous).sum(axis=1) / np.linalg.norm(fast, axis=1) / np.linalg.norm(previous, axis=1)
    assert cosine.min() > 0.99999


@pytest.mark.slow
def test_cam_embeddings_separate_real_voices(cam_model: CamPlusPlus) -> None:
    names = ("allison-en", "june", "carlo", "librivox")
    embeddings, labels = [], []
    for name in names:
        for clip in _voice_clips(name, 3):
            embeddings.append(cam_model.embed(clip))
            labels.append(name)
    e = np.array(embeddings)
    assert e.shape == (12, 192)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    scores = e @ e.T
    same = np.equal.outer(labels, labels)
    upper = np.triu(np.ones_like(same), 1).astype(bool)
    assert scores[same & upper].min() > scores[~same & upper].max()  # no error at any threshold
