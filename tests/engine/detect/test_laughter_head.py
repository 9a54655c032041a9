"""The laughter head: trained and applied on a small real fixture, saved with the sound classifier, its
shaping chosen in inner folds, malformed parameters refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine.detect import frame_features
from engine.detect.audioset import AudioSetModel
from engine.detect.classifier import CLASSES, SoundClassifier, descriptor_size, detect_sounds
from engine.detect.laughter import HEAD_CLASSES, LaughterHead, head_descriptors, rescaled
from engine.errors import ParameterError
from tools.sound_clips import ClipsUnavailable, fetch_clips, load_clip
from tools.train_detectors import SR, Scene, SpeechPool, fit, negative_scenes, scene, scene_data, segment_labels
from tools.train_laughter import choose_laughter_head, event_counts, fit_laughter_head, laughter_pairs, spans


@pytest.fixture(scope="module")
def laughs() -> list[np.ndarray]:
    """Four real laughs (scratch's Laugh-female, -male1, -male2, -male3), float32 at 16 kHz."""
    try:
        return [load_clip(p, sample_rate=SR) for p in fetch_clips("laughter")]
    except ClipsUnavailable as exc:
        pytest.skip(f"real laughter clips are unavailable here: {exc}")


def _scenes(laughs: list[np.ndarray], pool: SpeechPool, rng: np.random.Generator, conditions: tuple[str, ...]) -> list[Scene]:
    return [scene("laughter", c, laugh, pool, rng) for laugh in laughs for c in conditions]


@pytest.fixture(scope="module")
def small_head(laughs: list[np.ndarray], tagger: AudioSetModel, speech_clips: list[np.ndarray]) -> LaughterHead:
    """A head fitted on three laughs in pauses, under speech and alone (twice each), and on speech alone."""
    rng = np.random.default_rng(11)
    pool = SpeechPool(speech_clips[:4], rng)
    scenes = _scenes(laughs[:3], pool, rng, ("pause", "over", "alone") * 2) + negative_scenes(pool, rng, 8, variants=(0, 1))
    feats = [frame_features(s.audio, sr=SR, audioset=tagger) for s in scenes]
    pairs = laughter_pairs(feats, [segment_labels(s, int(s.duration / 0.1) + 2) for s in scenes])
    assert pairs[0][0].shape[1] == descriptor_size(len(HEAD_CLASSES))
    return fit_laughter_head(pairs, c=0.1, seed=0)


@pytest.mark.slow  # over 2 s
def test_a_head_trained_on_a_small_fixture_finds_an_unseen_laugh_and_not_speech(
    small_head: LaughterHead, laughs: list[np.ndarray], tagger: AudioSetModel, speech_clips: list[np.ndarray]
) -> None:  # fmt: skip
    rng = np.random.default_rng(5)
    pool = SpeechPool(speech_clips[4:], rng)  # other speakers' sentences, the fourth laugh
    found = 0
    for s in _scenes(laughs[3:], pool, rng, ("pause", "alone", "pause")):
        events = small_head.events(small_head.scores(frame_features(s.audio, sr=SR, audioset=tagger)))
        a, b, _ = s.events[0]
        found += any(min(e.end, b) - max(e.start, a) > 0.3 * (b - a) for e in events)
    assert found >= 2, f"the unseen laugh found in {found} of 3 mixtures"
    for s in negative_scenes(pool, rng, 3, variants=(0, 1)):
        assert not small_head.events(small_head.scores(frame_features(s.audio, sr=SR, audioset=tagger)))


def test_the_head_is_saved_with_the_sound_classifier_and_decides_laughter(
    small_head: LaughterHead, laughs: list[np.ndarray], tagger: AudioSetModel, speech_clips: list[np.ndarray], tmp_path: Path
) -> None:  # fmt: skip
    rng = np.random.default_rng(2)
    pool = SpeechPool(speech_clips[:2], rng)
    x, y = scene_data(negative_scenes(pool, rng, 3, variants=(0,)), ("Speech", "Silence"))
    base = fit(x, y, seed=0, hidden=4, max_rows=2000, audioset_classes=("Speech", "Silence"))
    shaped = dataclasses.replace(small_head, threshold=0.7, median_seconds=0.5, min_seconds=0.3, gap_seconds=1.0)
    model = dataclasses.replace(base, laughter_head=shaped)
    path = tmp_path / "sounds.npz"
    model.save(path)
    loaded = SoundClassifier.load(path)
    assert loaded.laughter_head is not None and loaded.laughter_head.classes == HEAD_CLASSES
    assert (loaded.laughter_head.threshold, loaded.laughter_head.median_seconds, loaded.laughter_head.min_seconds,
            loaded.laughter_head.gap_seconds) == (0.7, 0.5, 0.3, 1.0)  # fmt: skip
    np.testing.assert_allclose(loaded.laughter_head.coef, small_head.coef)
    feats = frame_features(scene("laughter", "alone", laughs[0], pool, rng).audio, sr=SR, audioset=tagger)
    laughter = [(e.start, e.end) for e in detect_sounds(feats, model=loaded) if e.type == "laughter"]
    assert laughter == [(e.start, e.end) for e in shaped.events(shaped.scores(feats))]
    assert laughter, "the head's events are the model's laughter"
    assert SoundClassifier.load(path).classes == CLASSES


def test_a_model_without_a_head_loads_without_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, descriptor_size()))
    y = np.repeat([0, 1], 100)
    x[y == 1] += 2.0
    path = tmp_path / "plain.npz"
    fit(x, y, seed=0, hidden=4, max_rows=400).save(path)
    assert SoundClassifier.load(path).laughter_head is None


@pytest.mark.parametrize(
    ("change", "message"),
    [({"laughter_coef": np.zeros(3)}, r"laughter head parameters do not fit"),
     ({"laughter_numbers": np.array([0.0, 1.5, 0.9, 0.6, 0.5, 0.0])}, r"a threshold in \(0, 1\)")],
    ids=["wrong-size", "threshold-out-of-range"],
)  # fmt: skip
def test_malformed_head_parameters_are_refused(change: dict[str, np.ndarray], message: str) -> None:
    size = descriptor_size(len(HEAD_CLASSES))
    head = LaughterHead(np.zeros(size), np.ones(size), np.zeros(size), 0.0)
    arrays = {**head.arrays(), **change}
    with pytest.raises(ParameterError, match=message):
        LaughterHead.from_arrays(arrays)


def test_events_are_matched_with_a_one_second_collar() -> None:
    truth = [(1.0, 3.0), (10.0, 11.0), (20.0, 30.0)]
    found = [(1.8, 3.9), (12.5, 13.0), (20.5, 26.0), (40.0, 41.0)]
    # the first within 1 s at both ends; the second starts 2.5 s late; the third ends within half its length
    assert event_counts(truth, found) == (2, 3, 4)
    assert spans(np.array([0, 1, 1, 0, 1], dtype=bool)) == [(0.1, 0.30000000000000004), (0.4, 0.5)]


def test_rescaling_puts_the_threshold_at_one_half_and_keeps_the_order() -> None:
    p = np.array([0.1, 0.6, 0.7, 0.95])
    q = rescaled(p, 0.7)
    assert q[2] == pytest.approx(0.5) and np.all(np.diff(q) > 0)


def test_inner_folds_choose_a_threshold_that_keeps_speech_free_of_laughter() -> None:
    """Laughter segments score high on two columns; half the scenes are speech alone with one loud distractor
    column. The chosen head finds the held laughter and nothing in held speech."""
    rng = np.random.default_rng(3)
    pairs, packages = [], []
    for i in range(36):
        y = np.zeros(80, dtype=bool)
        x = rng.standard_normal((80, 6))
        if i % 2:
            y[20:50] = True
            x[y, :2] += 2.5
        pairs.append((x, y))
        packages.append(f"pkg{i % 6}" if i % 2 else "")
    head, info = choose_laughter_head(packages, pairs, seed=0)
    assert set(info) >= {"C", "threshold", "median_seconds", "min_seconds", "gap_seconds"}
    held_x = rng.standard_normal((80, 6))
    held_x[30:60, :2] += 2.5
    p = head.probabilities(held_x)
    assert p[35:55].mean() > 0.8 and p[:20].mean() < 0.3


def test_head_descriptors_need_audioset_scores(speech_clips: list[np.ndarray]) -> None:
    with pytest.raises(ParameterError, match=r"these features carry no AudioSet scores"):
        head_descriptors(frame_features(speech_clips[0][: SR // 2], sr=SR))


def test_the_zero_shot_candidate_reads_the_largest_laughter_logit_and_is_saved(tmp_path: Path) -> None:
    size = descriptor_size(len(HEAD_CLASSES))
    head = LaughterHead(np.zeros(size), np.ones(size), np.zeros(size), 5.0, threshold=0.2, zero_shot=True)
    x = np.zeros((3, size))
    first = descriptor_size()  # the logits of HEAD_CLASSES follow the frame descriptors; the laughter kinds lead
    x[:, first : first + 6] = [[-9.0, -7.0, -8, -8, -8, -8], [-3.0, -8, -8, -8, -8, -8], [-8, -8, -8, -8, -8, 1.0]]
    x[:, first + 6] = 9.0  # Speech: ignored by the zero-shot score
    np.testing.assert_allclose(head.probabilities(x), 1 / (1 + np.exp(-np.array([-2.0, 2.0, 6.0]))))
    loaded = LaughterHead.from_arrays(head.arrays())
    assert loaded is not None and loaded.zero_shot and loaded.threshold == 0.2
    np.testing.assert_allclose(loaded.probabilities(x), head.probabilities(x))


def test_inner_folds_keep_the_zero_shot_score_when_no_head_beats_it() -> None:
    """Only the largest laughter logit tells laughter (one kind at a time, at random): no linear head can match it."""
    rng = np.random.default_rng(8)
    size = descriptor_size(len(HEAD_CLASSES))
    first = descriptor_size()
    pairs, packages = [], []
    for i in range(30):
        y = np.zeros(60, dtype=bool)
        x = rng.standard_normal((60, size))
        x[:, first : first + 6] = -8.0 + 0.3 * rng.standard_normal((60, 6))
        if i % 2:
            y[15:45] = True
            x[np.flatnonzero(y), first + rng.integers(0, 6, 30)] = 2.0
        pairs.append((x, y))
        packages.append(f"pkg{i % 6}" if i % 2 else "")
    head, info = choose_laughter_head(packages, pairs, seed=0)
    assert head.zero_shot and info["C"] == "zero-shot", info
