"""The classifier that reads AudioSet scores: trained and applied on a small fixture, saved and loaded,
speech heard under a music bed, and features without AudioSet scores refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine.asr.base import Word
from engine.detect import DetectorSettings, frame_features
from engine.detect.analyzer import AudioAnalyzer, audio_events, speech_under_music, transcribed_words
from engine.detect.audioset import AudioSetModel
from engine.detect.classifier import (
    AUDIOSET_CLASSES,
    AUDIOSET_MODEL,
    CLASSES,
    SoundClassifier,
    descriptor_size,
    detect_sounds,
)
from engine.detect.descriptors import audioset_descriptors
from engine.detect.events import Event
from engine.errors import ParameterError
from engine.ingest.speech_gate import speech_spans
from tools.sound_clips import ClipsUnavailable, fetch_clips, load_clip
from tools.synth import music_bed
from tools.train_detectors import SR, Scene, SpeechPool, fit, negative_scenes, scene, scene_data, zero_shot_thresholds

#: A few of the model's AudioSet classes keep the fixture small.
FEW = ("Music", "Speech", "Silence", "Laughter")


def _music_scenes(pool: SpeechPool, rng: np.random.Generator, n: int) -> list[Scene]:
    return [scene("music", ("pause", "over", "alone")[i % 3], music_bed(rng.uniform(5.0, 9.0), sample_rate=SR, rng=rng),
                  pool, rng) for i in range(n)]  # fmt: skip


@pytest.fixture(scope="module")
def small_model(tagger: AudioSetModel, speech_clips: list[np.ndarray]) -> SoundClassifier:
    """Music against speech, reading four AudioSet classes, trained on fourteen generated mixtures."""
    rng = np.random.default_rng(7)
    pool = SpeechPool(speech_clips[:4], rng)
    x, y = scene_data(_music_scenes(pool, rng, 9) + negative_scenes(pool, rng, 5, variants=(0, 1)), FEW)
    assert x.shape[1] == descriptor_size(len(FEW))
    return fit(x, y, seed=0, hidden=8, max_rows=6000, audioset_classes=FEW)


@pytest.mark.slow  # over 2 s
def test_trained_on_a_small_fixture_with_audioset_scores_finds_music_on_unseen_mixtures(
    small_model: SoundClassifier, tagger: AudioSetModel, speech_clips: list[np.ndarray]
) -> None:  # fmt: skip
    rng = np.random.default_rng(99)  # other music, other speakers' sentences
    pool = SpeechPool(speech_clips[4:], rng)
    found = 0
    for s in _music_scenes(pool, rng, 6):
        events = detect_sounds(frame_features(s.audio, sr=SR, audioset=tagger), model=small_model)
        start, end, _ = s.events[0]
        found += any(min(e.end, end) - max(e.start, start) > 0.5 * (end - start) for e in events if e.type == "music")
    assert found >= 5, f"music found in {found} of 6 held-out mixtures"
    for s in negative_scenes(pool, rng, 3, variants=(0,)):
        feats = frame_features(s.audio, sr=SR, audioset=tagger)
        assert not [e for e in detect_sounds(feats, model=small_model) if e.type == "music"]


def test_audioset_descriptors_follow_the_logits_and_are_saved_with_the_model(
    small_model: SoundClassifier, tagger: AudioSetModel, speech_clips: list[np.ndarray], tmp_path: Path
) -> None:  # fmt: skip
    feats = frame_features(speech_clips[0], sr=SR, audioset=tagger)
    d = audioset_descriptors(feats, FEW)
    assert d.shape == (len(small_model.descriptors(feats)), 2 * len(FEW))
    # speech scores above silence in spoken audio, at the segments and over the long window
    assert np.median(d[:, 1]) > np.median(d[:, 2]) and np.median(d[:, 5]) > np.median(d[:, 6])
    path = tmp_path / "sounds.npz"
    small_model.save(path)
    loaded = SoundClassifier.load(path)
    assert loaded.audioset_classes == FEW and loaded.classes == CLASSES
    before = small_model.posteriors(small_model.descriptors(feats))
    np.testing.assert_allclose(loaded.posteriors(loaded.descriptors(feats)), before)


def test_features_without_audioset_scores_are_refused_by_a_model_that_reads_them(
    small_model: SoundClassifier, speech_clips: list[np.ndarray]
) -> None:  # fmt: skip
    with pytest.raises(ParameterError, match=r"these features carry no AudioSet scores"):
        detect_sounds(frame_features(speech_clips[0], sr=SR), model=small_model)


def test_unknown_audioset_class_names_are_refused(tagger: AudioSetModel, speech_clips: list[np.ndarray]) -> None:
    feats = frame_features(speech_clips[0][: SR // 2], sr=SR, audioset=tagger)
    with pytest.raises(ParameterError, match=r"not AudioSet class names: 'Kazoo solo'"):
        audioset_descriptors(feats, ("Music", "Kazoo solo"))


def _speech_under_bed(tagger: AudioSetModel, speech_clips: list[np.ndarray]) -> tuple[object, float, float, float]:
    """Two sentences, then 4 s of music alone; a music bed 12 dB below the speech under the second sentence
    and after it. Returns the features, where the bed starts, where the speech ends and where the audio ends."""
    rng = np.random.default_rng(3)
    a, b = speech_clips[0], speech_clips[3]
    gap = np.zeros(SR // 2, np.float32)
    voice = np.concatenate([gap, a, gap, b, np.zeros(4 * SR, np.float32)])
    start = (len(gap) * 2 + len(a)) / SR
    bed = music_bed((len(voice) - int(start * SR)) / SR, sample_rate=SR, rng=rng)
    level = np.sqrt(np.mean(b**2)) / np.sqrt(np.mean(bed**2)) * 10 ** (-12 / 20)
    audio = voice.copy()
    audio[int(start * SR) : int(start * SR) + len(bed)] += (bed * level).astype(np.float32)
    return frame_features(audio, sr=SR, audioset=tagger), start, start + len(b) / SR, len(audio) / SR


def test_speech_under_a_music_bed_stays_audible_to_the_recogniser(tagger: AudioSetModel, speech_clips: list[np.ndarray]) -> None:
    feats, start, speech_end, end = _speech_under_bed(tagger, speech_clips)
    music = [Event("music", start, end, 1.0, 1.0)]
    under = speech_under_music(feats, music, DetectorSettings())
    assert under and all(start <= e.start and e.end <= end for e in under)
    heard_under = sum(max(0.0, min(e.end, speech_end) - max(e.start, start)) for e in under)
    assert heard_under > 0.6 * (speech_end - start), under
    assert not [e for e in under if e.start > speech_end + 1.0]  # the music alone is no speech
    _, speech = audio_events(feats, DetectorSettings())
    spans = speech_spans(music, speech + under, duration=feats.duration)
    audible = sum(max(0.0, min(b, speech_end) - max(a, start)) for a, b in spans)
    assert audible > 0.6 * (speech_end - start), spans
    assert sum(max(0.0, min(b, end) - max(a, speech_end + 1.0)) for a, b in spans) == 0.0


def test_words_spoken_under_a_music_bed_count_as_transcribed(tagger: AudioSetModel, speech_clips: list[np.ndarray]) -> None:
    """Words the recogniser gives inside speech heard under the bed are real words (no X-duration piles up
    there); words "heard" in the music alone after the speech are not."""
    feats, start, speech_end, end = _speech_under_bed(tagger, speech_clips)
    music = [Event("music", start, end, 1.0, 1.0)]
    _, speech = audio_events(feats, DetectorSettings())
    speech = sorted(speech + speech_under_music(feats, music, DetectorSettings()), key=lambda e: e.start)
    said = [Word(t, t + 0.3, 0.9, "word") for t in np.arange(start + 0.3, speech_end - 0.5, 0.5)]
    heard = [Word(t, t + 0.3, 0.9, "word") for t in np.arange(speech_end + 1.5, end - 0.5, 0.5)]
    good = transcribed_words(said + heard, sounds=music, speech=speech, settings=DetectorSettings())
    assert good[: len(said)].mean() > 0.6, good
    assert not good[len(said) :].any(), good


def test_without_audioset_scores_no_speech_is_kept_under_music(speech_clips: list[np.ndarray], tagger: AudioSetModel) -> None:
    feats, start, _, end = _speech_under_bed(tagger, speech_clips)
    plain = frame_features(np.zeros(SR, np.float32), sr=SR)  # features computed without the tagger
    assert speech_under_music(plain, [Event("music", 0.0, 1.0, 1.0, 1.0)], DetectorSettings()) == []
    assert speech_under_music(feats, [Event("applause", start, end, 1.0, 1.0)], DetectorSettings()) == []


def test_the_analyzer_runs_the_tagger_when_the_audioset_model_is_chosen(tagger: AudioSetModel,
                                                                          speech_clips: list[np.ndarray]) -> None:  # fmt: skip
    if not AUDIOSET_MODEL.is_file():
        pytest.fail(f"{AUDIOSET_MODEL} is missing: run tools/train_detectors.py --model audioset")
    analyzer = AudioAnalyzer(sr=SR, settings=DetectorSettings(sound_model="audioset"))
    analyzer.feed(speech_clips[0])
    detections = analyzer.finish()
    assert analyzer.features is not None and analyzer.features.audioset is not None
    # the classes the detectors read, not all 521
    assert analyzer.features.audioset.shape[1] == len(analyzer.features.audioset_classes or ()) < 521
    assert set(AUDIOSET_CLASSES) <= set(analyzer.features.audioset_classes or ())
    assert detections.of_type("speech") and not {e.type for e in detections.events} & {"music", "applause", "laughter"}
    assert SoundClassifier.load(AUDIOSET_MODEL).audioset_classes == AUDIOSET_CLASSES


def test_zero_shot_thresholds_pick_the_best_segment_f1() -> None:
    """Scores 0..9 over ten segments, laughter on the last four: any threshold from 5 to 5.5 separates them exactly."""
    labels = np.zeros(10, dtype=np.int64)
    labels[6:] = CLASSES.index("laughter")
    scores = np.arange(10, dtype=np.float64)[:, None]
    assert zero_shot_thresholds([scores], [labels], ("laughter",)) == {"laughter": 5.0}


def test_a_zero_shot_kind_comes_from_its_audioset_score_and_is_saved(
    small_model: SoundClassifier, tagger: AudioSetModel, speech_clips: list[np.ndarray], tmp_path: Path
) -> None:  # fmt: skip
    """Real laughter (hedgewars-data/scratch clips through tools.sound_clips) between sentences: the fixture
    model never saw laughter, yet with laughter taken zero-shot it finds it, and not in the speech."""
    try:
        laughs = [load_clip(p, sample_rate=SR) for p in fetch_clips("laughter")[:3]]
    except ClipsUnavailable as exc:
        pytest.skip(f"real laughter clips are unavailable here: {exc}")
    gap = np.zeros(SR // 2, np.float32)
    parts, spans, t = [], [], 0.0
    for laugh, said in zip(laughs, speech_clips, strict=False):
        laugh = (laugh * 0.1 / max(1e-6, float(np.sqrt(np.mean(laugh**2))))).astype(np.float32)
        parts += [said, gap, laugh, gap]
        spans.append((t + (len(said) + len(gap)) / SR, t + (len(said) + len(gap) + len(laugh)) / SR))
        t += (len(said) + 2 * len(gap) + len(laugh)) / SR
    feats = frame_features(np.concatenate(parts), sr=SR, audioset=tagger)
    assert not [e for e in detect_sounds(feats, model=small_model) if e.type == "laughter"]
    hybrid = dataclasses.replace(small_model, zero_shot=(("laughter", -4.5),))
    found = [e for e in detect_sounds(feats, model=hybrid) if e.type == "laughter"]
    hits = sum(any(min(b, e.end) - max(a, e.start) > 0.3 * (b - a) for e in found) for a, b in spans)
    assert hits >= 2, (found, spans)
    path = tmp_path / "hybrid.npz"
    hybrid.save(path)
    assert SoundClassifier.load(path).zero_shot == (("laughter", -4.5),)


@pytest.mark.parametrize(("weight", "threshold"), [(1.0, 2.0), (8.0, 4.0)], ids=["plain-f1", "false-alarms-weighed-8"])
def test_weighing_false_alarms_raises_the_zero_shot_threshold(weight: float, threshold: float) -> None:
    """Scores 1..6, laughter at 3, 5 and 6: above 2 (the lowest such threshold), F1 6/7 with one false segment;
    above 4, 4/5 with one miss, which wins once a false segment counts eight times (6/14)."""
    labels = np.array([0, 0, 1, 0, 1, 1]) * CLASSES.index("laughter")
    scores = np.arange(1.0, 7.0)[:, None]
    assert zero_shot_thresholds([scores], [labels], ("laughter",), false_alarm_weight=weight) == {"laughter": threshold}


def test_descriptors_and_posteriors_made_a_block_at_a_time_are_the_whole_recording_s(
    tagger: AudioSetModel, speech_clips: list[np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:  # fmt: skip
    """Rows cut anywhere give the rows of the whole recording's descriptors, up to rounding, and the
    shipped model's posteriors made 37 segments at a time are those of the whole matrix."""
    import engine.detect.classifier as classifier_module
    from engine.detect.descriptors import all_descriptors
    from engine.detect.frames import silence_floor_db

    audio = np.concatenate([speech_clips[0], np.zeros(SR // 3, np.float32), speech_clips[3]])
    feats = frame_features(audio, sr=SR, audioset=tagger)
    whole = all_descriptors(feats, FEW)
    floor = silence_floor_db(feats.energy_db)
    n = len(whole)
    for rows in (slice(0, 7), slice(5, 60), slice(n - 9, n), slice(0, n), slice(n // 2, n // 2)):
        part = all_descriptors(feats, FEW, rows=rows, floor_db=floor)
        assert part.shape == whole[rows].shape
        np.testing.assert_allclose(part, whole[rows], rtol=1e-9, atol=1e-9)
    model = SoundClassifier.load(AUDIOSET_MODEL)
    expected = model.posteriors(model.descriptors(feats))
    monkeypatch.setattr(classifier_module, "POSTERIOR_ROWS", 37)
    raw, music = model.raw_posteriors(feats)
    np.testing.assert_allclose(raw, expected, rtol=1e-6, atol=1e-9)
    column = descriptor_size(0) + model.audioset_classes.index("Music")
    np.testing.assert_allclose(music, model.descriptors(feats)[:, column], rtol=1e-6, atol=1e-6)
