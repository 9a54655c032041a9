"""The learned sound classifier: trained and applied on a small fixture, the shipped parameters, bad inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import engine.detect.classifier as classifier_module
from engine.detect import DetectorSettings, analyze, frame_features
from engine.detect.classifier import (
    CLASSES,
    DEFAULT_MODEL,
    SoundClassifier,
    default_classifier,
    descriptor_size,
    detect_sounds,
)
from engine.detect.descriptors import segment_descriptors
from engine.detect.speech import detect_speech
from engine.errors import ParameterError
from tools.sound_clips import ClipsUnavailable, fetch_clips, load_clip
from tools.synth import music_bed
from tools.train_detectors import (
    ALPHAS,
    SR,
    Scene,
    SpeechPool,
    choose_alpha,
    fit,
    negative_scenes,
    scene,
    scene_data,
    segment_labels,
    tone_scenes,
)


def _music_scenes(pool: SpeechPool, rng: np.random.Generator, n: int) -> list[Scene]:
    out = []
    for i in range(n):
        bed = music_bed(rng.uniform(5.0, 9.0), sample_rate=SR, rng=rng)
        out.append(scene("music", ("pause", "over", "alone")[i % 3], bed, pool, rng))
    return out


@pytest.fixture(scope="module")
def small_model(speech_clips: list[np.ndarray]) -> SoundClassifier:
    """Music and beeps against speech, trained on a score of generated mixtures (two minutes of audio)."""
    rng = np.random.default_rng(7)
    pool = SpeechPool(speech_clips[:4], rng)
    scenes = _music_scenes(pool, rng, 9) + negative_scenes(pool, rng, 5) + tone_scenes(pool, rng, 6)
    x, y = scene_data(scenes)
    return fit(x, y, seed=0, hidden=8, max_rows=6000)


@pytest.mark.slow  # over 2 s
def test_trained_on_a_small_fixture_finds_music_on_unseen_mixtures(small_model, speech_clips) -> None:
    rng = np.random.default_rng(99)  # other music, other speakers' sentences
    pool = SpeechPool(speech_clips[4:], rng)
    found, total = 0, 0
    for s in _music_scenes(pool, rng, 6):
        events = detect_sounds(frame_features(s.audio, sr=SR), model=small_model)
        start, end, _ = s.events[0]
        music = [e for e in events if e.type == "music"]
        total += 1
        found += any(min(e.end, end) - max(e.start, start) > 0.5 * (end - start) for e in music)
    assert found >= 5, f"music found in {found} of {total} held-out mixtures"
    for s in negative_scenes(pool, rng, 3, variants=(0,)):
        assert not [e for e in detect_sounds(frame_features(s.audio, sr=SR), model=small_model) if e.type == "music"]


def _beeps_in_silence(rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Eight 1 kHz beeps of 0.2-1 s with 0.5-1.5 s of near silence between them, and their spans."""
    parts, spans, t = [np.zeros(SR // 2, dtype=np.float32)], [], 0.5
    for _ in range(8):
        n = int(rng.uniform(0.2, 1.0) * SR)
        parts.append((0.1 * np.sin(2 * np.pi * 1000.0 * np.arange(n) / SR)).astype(np.float32))
        spans.append((t, t + n / SR))
        gap = int(rng.uniform(0.5, 1.5) * SR)
        parts.append(np.zeros(gap, dtype=np.float32))
        t += (n + gap) / SR
    audio = np.concatenate(parts)
    return audio + (1e-4 * rng.standard_normal(len(audio))).astype(np.float32), spans


def _beep_time_in_speech(features, sounds, spans) -> float:
    speech = detect_speech(features.vad, vad_frame_seconds=features.vad_frame_seconds, exclude=sounds,
                           duration=features.duration)  # fmt: skip
    return sum(max(0.0, min(b, e.end) - max(a, e.start)) for a, b in spans for e in speech)


def test_trained_on_a_small_fixture_beeps_are_tones_never_speech(small_model) -> None:
    audio, spans = _beeps_in_silence(np.random.default_rng(5))
    feats = frame_features(audio, sr=SR)
    sounds = detect_sounds(feats, model=small_model)
    tones = [e for e in sounds if e.type == "noise"]  # tones are reported as steady non-speech sound
    found = sum(any(min(b, e.end) - max(a, e.start) > 0.5 * (b - a) for e in tones) for a, b in spans)
    assert found >= 7, f"{found} of 8 beeps found as tones: {sounds}"
    assert all(-30.0 < e.value < -15.0 for e in tones)  # the level of a 0.1-amplitude sine is -23 dBFS
    assert _beep_time_in_speech(feats, sounds, spans) == 0.0


@pytest.mark.parametrize("sound_model", ["rules", "learned"])
def test_the_shipped_classifier_keeps_beeps_out_of_speech(sound_model: str) -> None:
    audio, _ = _beeps_in_silence(np.random.default_rng(11))
    feats = frame_features(audio, sr=SR)
    detections = analyze(feats, settings=DetectorSettings(sound_model=sound_model))
    assert not detections.of_type("speech"), detections.events
    assert len(detections.of_type("noise")) >= 7  # the beeps, as steady non-speech sound
    assert not {e.type for e in detections.events} & {"music", "applause", "laughter"}


def test_posteriors_are_distributions_and_descriptors_have_the_documented_shape(small_model, speech_clips) -> None:
    audio = speech_clips[0]
    x = segment_descriptors(frame_features(audio, sr=SR))
    assert x.shape == (int(np.ceil(len(audio) / SR / 0.1 - 1e-9)), descriptor_size())
    p = small_model.posteriors(x)
    assert p.shape == (len(x), len(CLASSES))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p[:, CLASSES.index("applause")] < 1e-6).all()  # a class never trained on is never chosen


def test_posteriors_do_not_depend_on_the_row_blocks(small_model, speech_clips, monkeypatch) -> None:
    x = np.concatenate([segment_descriptors(frame_features(clip, sr=SR)) for clip in speech_clips[:2]])
    whole = small_model.posteriors(x)
    monkeypatch.setattr(classifier_module, "POSTERIOR_ROWS", 7)  # blocks that do not divide the rows
    np.testing.assert_allclose(small_model.posteriors(x), whole, rtol=1e-12, atol=1e-15)


def test_save_and_load_give_the_same_posteriors(small_model, tmp_path: Path, speech_clips) -> None:
    path = tmp_path / "sounds.npz"
    small_model.save(path)
    x = segment_descriptors(frame_features(speech_clips[1], sr=SR))
    np.testing.assert_allclose(SoundClassifier.load(path).posteriors(x), small_model.posteriors(x))


def test_segment_labels_follow_the_scene_truth() -> None:
    s = Scene(np.zeros(SR * 3, dtype=np.float32), [(1.0, 2.0, "laughter")])
    y = segment_labels(s, 30)
    assert (y[10:20] == CLASSES.index("laughter")).all() and (y[:10] == 0).all() and (y[20:] == 0).all()


def test_the_shipped_classifier_loads_and_the_analyzer_uses_it_when_chosen() -> None:
    if not DEFAULT_MODEL.is_file():
        pytest.fail(f"{DEFAULT_MODEL} is missing: run tools/train_detectors.py")
    model = default_classifier()
    assert model.classes == CLASSES and model.w1.shape[0] == descriptor_size()
    # Real applause (lmms-common, one of its training clips) is applause to the shipped classifier and to the analyzer
    try:
        clip = load_clip(fetch_clips("applause")[0], sample_rate=SR)
    except ClipsUnavailable as exc:
        pytest.skip(f"the real applause clip is unavailable here: {exc}")
    pad = np.zeros(SR, dtype=np.float32)
    feats = frame_features(np.concatenate([pad, clip, clip, pad]), sr=SR)
    learned = detect_sounds(feats)
    assert sum(e.duration for e in learned if e.type == "applause") > 2.0, learned
    chosen = DetectorSettings(sound_model="learned")
    assert [e for e in analyze(feats, settings=chosen).events if e.type == "applause"] == [
        e for e in learned if e.type == "applause"
    ]
    assert DetectorSettings().sound_model == "audioset"  # held out, it beats the rules (bench/results/detect_loso.md)


def test_an_unknown_sound_model_is_refused() -> None:
    with pytest.raises(ParameterError, match="sound_model must be one of rules, learned, audioset, got 'svm'"):
        DetectorSettings(sound_model="svm")


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"not an npz", "not a sound classifier"), (None, "not a sound classifier")],
    ids=["garbage", "missing"],
)
def test_bad_parameter_files_are_refused_with_their_name(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "sounds.npz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ParameterError, match=f"{path.name}.*{message}"):
        SoundClassifier.load(path)


def test_descriptors_of_the_wrong_width_are_refused(small_model) -> None:
    with pytest.raises(ParameterError, match=rf"descriptors must have shape \(n, {descriptor_size()}\), got \(4, 3\)"):
        small_model.posteriors(np.zeros((4, 3)))


@pytest.mark.slow  # 2 s of CPU
def test_the_l2_penalty_is_chosen_by_inner_folds_over_packages(rng) -> None:
    """Four packages of sound scenes and some scenes of speech alone, classes told apart by their descriptors."""
    scenes, described = [], []
    for i in range(16):
        y = np.zeros(40, dtype=np.int64)
        if i < 12:
            y[10:30] = 1 + (i // 4) % 3  # every package holds every sound class
        centres = 3.0 * np.eye(len(CLASSES))[y] @ np.eye(len(CLASSES), descriptor_size())
        x = rng.standard_normal((40, descriptor_size())) + centres
        scenes.append(Scene(np.zeros(1, dtype=np.float32), [], f"p{i % 4}" if i < 12 else "", "pause", "speech-data"))
        described.append((x, y))
    alpha, scores = choose_alpha(scenes, described, seed=0)
    assert alpha in ALPHAS and set(scores) == {str(a) for a in ALPHAS}
    assert scores[str(alpha)] == max(scores.values()) > 0.8
