"""Train the learned music/applause/laughter detector on mixtures of real clips, and build test mixtures.

Scenes are mixed as a broadcast has them: a sound in a pause between two stretches of speech
(at the speech level, -6 to +3 dB), a sound over speech (-6 to -15 dB below it), music beds
under speech (-10 to -18 dB), each sound alone, and negatives (speech alone, telephone-band
speech, steady hiss) and beeps (1 kHz and other tones, DTMF, buzzers) as their own ``tone``
class. Speech stretches are real recorded speech from the corpus
(:mod:`tools.detector_corpus`). The network is scikit-learn's ``MLPClassifier`` (tanh, one
hidden layer), exported to :class:`engine.detect.classifier.SoundClassifier` (numpy only).

Run: ``.venv/bin/python -m tools.train_detectors`` (writes ``models/detectors/sounds.npz``).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.ndimage
import scipy.signal

# Run as a script (python tools/NAME.py) as well as a module: the repository goes on the path first.
if str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.detect.audioset import AudioSetModel
from engine.detect.classifier import (
    AUDIOSET_CLASSES,
    AUDIOSET_MODEL,
    CLASSES,
    DEFAULT_MODEL,
    MEDIAN_SECONDS,
    SEGMENT_SECONDS,
    SoundClassifier,
    all_descriptors,
    descriptor_size,
    zero_shot_scores,
)
from engine.detect.features import FrameFeatures, frame_features
from engine.detect.music_beds import MUSIC_SOURCES, MusicShape, music_events, music_score
from tools.detector_corpus import JUDGING_SPEECH, CorpusClip, default_cache, load_corpus_clip, read_manifest
from tools.synth import noise_burst
from tools.train_laughter import choose_laughter_head, event_counts, laughter_pairs

SR = 16000
SPEECH_DBFS = -22.0
#: Scenes built per clip of each class (the rare classes are re-mixed more often).
VARIANTS = {"music": 1, "applause": 10, "laughter": 3, "other": 1}
SCENE_KINDS = ("pause", "over", "alone")
#: Rows of ``other`` per row of each sound class in training: speech and everyday sounds are far
#: more common than music, applause or laughter, and a false alarm costs a listener more than a miss.
OTHER_WEIGHT = 8
#: Real speech kept for judging only, never trained on (LibriVox, card names, commands).
HELD_OUT_SPEECH = "pocketsphinx-testdata"
#: Kinds the AudioSet model takes from their zero-shot AudioSet score instead of the network (chosen on the
#: leave-one-package-out bench, where the network with AudioSet scores, and the laughter head of
#: ``tools/train_laughter.py``, found laughter less well than the score alone).
ZERO_SHOT_KINDS = ("laughter",)
#: Candidate logit thresholds of a zero-shot score; :func:`zero_shot_thresholds` picks one per kind.
ZERO_SHOT_THRESHOLDS = np.arange(-10.0, 6.01, 0.5)
#: Candidate L2 penalties of the network; :func:`choose_alpha` picks one by inner leave-packages-out.
ALPHAS = (0.1, 1.0, 10.0)
#: Synthetic speech beside the recorded speech (Debian espeak-ng-data, GPL-3+): the voices
#: our test broadcasts use, so that their speech is never a sound.
ESPEAK_VOICES = ("en-us", "en-gb", "en+f2", "en+m3", "en-gb-scotland", "en+f4")
ESPEAK_TEXTS = (
    "The council met on Tuesday evening to discuss the new bus routes through the northern suburbs.",
    "Officials said the harvest was the best in a decade, and prices at the market fell by a third.",
    "Two climbers were rescued from the mountain after a storm trapped them for three nights.",
    "The museum will open a new wing next year with paintings lent by collectors from abroad.",
    "Police asked drivers to avoid the motorway while engineers repaired the damaged bridge.",
    "Scientists measured the temperature of the lake every hour for six months.",
)
ESPEAK_SOURCE = "espeak-ng"


@dataclass
class Scene:
    """A mixed recording with its ground truth: ``events`` are ``(start, end, kind)`` in seconds; ``below_db``: how far
    the sound was mixed below the speech (dB; ``over`` scenes only)."""

    audio: np.ndarray
    events: list[tuple[float, float, str]] = field(default_factory=list)
    package: str = ""
    condition: str = ""
    speech_package: str = ""
    below_db: float | None = None

    @property
    def duration(self) -> float:
        return len(self.audio) / SR


def _rms_db(x: np.ndarray) -> float:
    frame = min(SR // 50, len(x))
    n = max(1, len(x) // max(frame, 1))
    rms = np.sqrt(np.mean(x[: n * frame].reshape(n, -1) ** 2, axis=1) + 1e-12)
    loud = rms[rms >= np.percentile(rms, 50)]  # level of the sounding half
    return float(20 * np.log10(np.sqrt(np.mean(loud**2)) + 1e-12))


def _at_level(x: np.ndarray, dbfs: float) -> np.ndarray:
    return (x * 10 ** ((dbfs - _rms_db(x)) / 20)).astype(np.float32)


class SpeechPool:
    """Endless real speech: corpus speech clips in a shuffled cycle with short pauses."""

    def __init__(self, clips: Sequence[np.ndarray], rng: np.random.Generator) -> None:
        if not clips:
            raise ValueError("no speech clips to mix with")
        self._clips = [_at_level(c, SPEECH_DBFS) for c in clips]
        self._rng = rng

    def take(self, seconds: float) -> np.ndarray:
        parts, total = [], 0
        while total < seconds * SR:
            clip = self._clips[int(self._rng.integers(len(self._clips)))]
            gap = np.zeros(int(self._rng.uniform(0.1, 0.35) * SR), dtype=np.float32)
            parts += [clip, gap]
            total += len(clip) + len(gap)
        return np.concatenate(parts)[: int(seconds * SR)]


def _excerpt(x: np.ndarray, seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * SR)
    if len(x) <= n:
        return x
    start = int(rng.integers(0, len(x) - n))
    return x[start : start + n]


def scene(kind: str, condition: str, sound: np.ndarray, speech: SpeechPool, rng: np.random.Generator,
          package: str = "") -> Scene:  # fmt: skip
    """One mixture of ``sound`` (class ``kind``) under ``condition`` ("pause", "over" or "alone")."""
    sound = _excerpt(sound, 12.0 if kind == "music" else 8.0, rng)
    label = kind if kind != "other" else None
    below = None
    if condition == "pause":
        a, b = speech.take(rng.uniform(2.0, 4.0)), speech.take(rng.uniform(2.0, 4.0))
        gap = np.zeros(int(rng.uniform(0.2, 0.5) * SR), dtype=np.float32)
        loud = _at_level(sound, SPEECH_DBFS + rng.uniform(-6.0, 3.0))
        audio = np.concatenate([a, gap, loud, gap, b])
        t0 = (len(a) + len(gap)) / SR
    elif condition == "over":
        lead = rng.uniform(1.5, 3.0)
        bed = speech.take(lead + len(sound) / SR + rng.uniform(1.5, 3.0))
        below = rng.uniform(10.0, 18.0) if kind == "music" else rng.uniform(6.0, 15.0)
        audio = bed.copy()
        i = int(lead * SR)
        audio[i : i + len(sound)] += _at_level(sound, SPEECH_DBFS - below)
        t0 = lead
    else:
        pad = np.zeros(int(0.5 * SR), dtype=np.float32)
        audio = np.concatenate([pad, _at_level(sound, SPEECH_DBFS + rng.uniform(-8.0, 3.0)), pad])
        t0 = 0.5
    events = [(round(t0, 3), round(t0 + len(sound) / SR, 3), label)] if label else []
    return Scene(_recorded(audio, rng), events, package, condition, below_db=below)


def _recorded(audio: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The mixture at a random overall gain (-10 to +8 dB) over a random noise floor (none, or -90 to -50 dBFS)."""
    audio = audio * np.float32(10 ** (rng.uniform(-10.0, 8.0) / 20))
    if rng.random() > 0.15:  # some recordings have digital silence between items
        audio = audio + np.float32(10 ** (rng.uniform(-90.0, -50.0) / 20)) * rng.standard_normal(len(audio)).astype(np.float32)
    return np.clip(audio, -1, 1).astype(np.float32)


def negative_scenes(speech: SpeechPool, rng: np.random.Generator, n: int,
                    variants: Sequence[int] = (0, 1, 2, 3, 4)) -> list[Scene]:  # fmt: skip
    """Scenes with no music, applause or laughter, cycling over ``variants``: 0 speech alone, 1 telephone-band
    speech, 2 speech with beeps (each labelled ``tone``), 3 steady hiss alone, 4 speech over hiss."""
    out = []
    sos = scipy.signal.butter(4, (300, 3400), btype="bandpass", fs=SR, output="sos")
    for i in range(n):
        s = speech.take(rng.uniform(6.0, 12.0)).copy()
        variant = variants[i % len(variants)]
        events: list[tuple[float, float, str]] = []
        if variant == 1:
            s = _at_level(scipy.signal.sosfilt(sos, s).astype(np.float32), SPEECH_DBFS)
        elif variant == 2:
            for _ in range(int(rng.integers(2, 6))):
                freq = 1000.0 if rng.random() < 0.5 else rng.uniform(400, 3000)
                length = int(rng.uniform(0.15, 1.0) * SR)
                at = int(rng.integers(0, max(1, len(s) - length)))
                t = np.arange(length) / SR
                s[at : at + length] += 0.1 * np.sin(2 * np.pi * freq * t).astype(np.float32)
                events.append((at / SR, (at + length) / SR, "tone"))
        elif variant in (3, 4):
            level = np.float32(10 ** ((SPEECH_DBFS + rng.uniform(-20, 3)) / 20))
            hiss = noise_burst(len(s) / SR, sample_rate=SR, rng=rng) * level
            s = hiss if variant == 3 else s + hiss[: len(s)] * np.float32(0.3)
        if rng.random() < 0.5:  # padded with silence, as a clip on its own is
            pad = np.zeros(int(rng.uniform(0.2, 1.0) * SR), dtype=np.float32)
            s = np.concatenate([pad, s, pad])
            events = [(a + len(pad) / SR, b + len(pad) / SR, k) for a, b, k in events]
        out.append(Scene(_recorded(s, rng), sorted(events), "", "negative"))
    return out


def beep(rng: np.random.Generator) -> np.ndarray:
    """One synthetic beep, 0.08-1.5 s: a sine (300-3500 Hz, half of them 1 kHz), a DTMF pair or a buzzer (odd harmonics)."""
    n = int(rng.uniform(0.08, 1.5) * SR)
    t = np.arange(n) / SR
    shape = rng.integers(3)
    f0 = 1000.0 if rng.random() < 0.5 else rng.uniform(300.0, 3500.0)
    if shape == 0:
        x = np.sin(2 * np.pi * f0 * t)
    elif shape == 1:
        x = np.sin(2 * np.pi * rng.choice([697, 770, 852, 941]) * t) + np.sin(2 * np.pi * rng.choice([1209, 1336, 1477]) * t)
    else:
        f0 = rng.uniform(300.0, 1200.0)
        x = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in (1, 3, 5, 7) if f0 * k < 0.45 * SR)
    ramp = np.minimum(1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / (0.005 * SR))  # 5 ms edges
    return (x * ramp).astype(np.float32)


def tone_scenes(speech: SpeechPool, rng: np.random.Generator, n: int) -> list[Scene]:
    """Beeps (one to five, in silence) between two stretches of speech or alone; each beep labelled ``tone``."""
    out = []
    for i in range(n):
        level = SPEECH_DBFS + rng.uniform(-10.0, 8.0)
        parts: list[np.ndarray] = [speech.take(rng.uniform(1.5, 3.0)) if i % 2 == 0 else np.zeros(SR // 2, np.float32)]
        events = []
        t = len(parts[0]) / SR
        for _ in range(int(rng.integers(1, 6))):
            gap = np.zeros(int(rng.uniform(0.1, 0.8) * SR), dtype=np.float32)
            b = _at_level(beep(rng), level)
            t += len(gap) / SR
            events.append((round(t, 3), round(t + len(b) / SR, 3), "tone"))
            parts += [gap, b]
            t += len(b) / SR
        parts += [np.zeros(int(rng.uniform(0.1, 0.8) * SR), np.float32)]
        parts += [speech.take(rng.uniform(1.5, 3.0))] if i % 2 == 0 else []
        out.append(Scene(_recorded(np.concatenate(parts), rng), events, "", "tone"))
    return out


def espeak_speech(speed_range: tuple[int, int] = (100, 260), seed: int = 0) -> list[np.ndarray]:
    """Sentences spoken by several espeak-ng voices at random rates (words per minute); [] without espeak-ng."""
    from tools.tts import SpeechSynthesisError, speak

    rng = np.random.default_rng(seed)
    out = []
    try:
        for voice in ESPEAK_VOICES:
            for text in ESPEAK_TEXTS:
                out.append(speak(text, voice, int(rng.integers(*speed_range)), sample_rate=SR).audio)
    except SpeechSynthesisError:
        return []
    return out


def load_speech(speech_clips: Iterable[CorpusClip], cache: Path, *, espeak: bool = True) -> dict[str, list[np.ndarray]]:
    """Speech audio by source package: the corpus clips, plus espeak-ng sentences when asked."""
    by_package: dict[str, list[np.ndarray]] = {}
    for c in speech_clips:
        by_package.setdefault(c.package, []).append(load_corpus_clip(c, cache, sample_rate=SR))
    synthetic = espeak_speech() if espeak else []
    if synthetic:
        by_package[ESPEAK_SOURCE] = synthetic
    return by_package


def build_scenes(clips: Iterable[CorpusClip], speech: dict[str, list[np.ndarray]], *, cache: Path, seed: int,
                 conditions: Sequence[str] | dict[str, Sequence[str]] = SCENE_KINDS, variants: dict[str, int] | None = None,
                 negatives: int = 150, tones: int = 40) -> list[Scene]:  # fmt: skip
    """Mixtures of each sound clip under each condition, plus negative and beep scenes, with ground truth.

    ``conditions`` lists the conditions for every clip, or per class (a class not named gets all three).
    Each scene takes its speech from one package only (the packages in turn), so that a
    scene can be left out with every package it holds.
    """
    rng = np.random.default_rng(seed)
    variants = variants or VARIANTS
    pools = [(name, SpeechPool(audio, rng)) for name, audio in sorted(speech.items())]
    if not pools:
        raise ValueError("no speech clips to mix with")
    turn = itertools.count()

    def next_pool() -> tuple[str, SpeechPool]:
        return pools[next(turn) % len(pools)]

    scenes = []
    for _ in range(negatives):
        name, pool = next_pool()
        for s in negative_scenes(pool, rng, 1, variants=(int(rng.integers(5)),)):
            s.speech_package = name
            scenes.append(s)
    for _ in range(tones):
        name, pool = next_pool()
        for s in tone_scenes(pool, rng, 1):
            s.speech_package = name
            scenes.append(s)
    for clip in clips:
        sound = load_corpus_clip(clip, cache, sample_rate=SR)
        for _ in range(variants.get(clip.kind, 1)):
            for condition in conditions.get(clip.kind, SCENE_KINDS) if isinstance(conditions, dict) else conditions:
                name, pool = next_pool()
                s = scene(clip.kind, condition, sound, pool, rng, clip.package)
                s.speech_package = name
                scenes.append(s)
    return scenes


def segment_labels(scene: Scene, n_segments: int) -> np.ndarray:
    """Class index per 0.1 s segment (index into :data:`CLASSES`), shape (n_segments,)."""
    t = np.arange(n_segments) * SEGMENT_SECONDS
    y = np.zeros(n_segments, dtype=np.int64)
    for start, end, kind in scene.events:
        y[(t >= start) & (t < end)] = CLASSES.index(kind)
    return y


def scene_features(scenes: Sequence[Scene], *, audioset: bool = False) -> list[FrameFeatures]:
    """Frame features of each scene, with the AudioSet tagger's logits when ``audioset``."""
    model = AudioSetModel.shipped() if audioset else None
    return [frame_features(s.audio, sr=SR, audioset=model) for s in scenes]


def describe(scenes: Sequence[Scene], features: Sequence[FrameFeatures],
             audioset_classes: tuple[str, ...] = ()) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """Descriptors (n, n_dims) and class labels (n,) of the segments of each scene, from its ``features``;
    with ``audioset_classes``, the AudioSet descriptors of those classes follow the frame descriptors."""
    out = []
    for s, f in zip(scenes, features, strict=True):
        x = all_descriptors(f, audioset_classes)
        out.append((x, segment_labels(s, len(x))))
    return out


def scene_descriptors(scenes: Sequence[Scene], audioset_classes: tuple[str, ...] = ()) -> list[tuple[np.ndarray, np.ndarray]]:
    """Descriptors (n, n_dims) and class labels (n,) of the segments of each scene."""
    return describe(scenes, scene_features(scenes, audioset=bool(audioset_classes)), audioset_classes)


def scene_data(scenes: Sequence[Scene], audioset_classes: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Descriptors (n, n_dims) and class labels (n,) of every segment of every scene."""
    pairs = scene_descriptors(scenes, audioset_classes)
    return np.concatenate([x for x, _ in pairs]), np.concatenate([y for _, y in pairs])


def fit(x: np.ndarray, y: np.ndarray, *, seed: int = 0, hidden: int = 16, max_rows: int = 32000,
        alpha: float = 1.0, audioset_classes: tuple[str, ...] = ()) -> SoundClassifier:  # fmt: skip
    """Fit the network (L2 penalty ``alpha``) on balanced rows (each class resampled to the same count) and export it;
    ``audioset_classes`` names the AudioSet classes whose descriptors end each row of ``x``."""
    from sklearn.neural_network import MLPClassifier

    rng = np.random.default_rng(seed)
    present = np.unique(y)
    per_class = max(1, min(max_rows // (len(present) + OTHER_WEIGHT - 1), int(np.bincount(y).max())))
    rows = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class * (OTHER_WEIGHT if c == 0 else 1), replace=True)
                           for c in present])  # fmt: skip
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    net = MLPClassifier(hidden_layer_sizes=(hidden,), activation="tanh", alpha=alpha, max_iter=300, random_state=seed,
                        early_stopping=True, n_iter_no_change=15)  # fmt: skip
    net.fit((x[rows] - mean) / scale, y[rows])
    w2 = np.zeros((hidden, len(CLASSES)))
    b2 = np.full(len(CLASSES), -30.0)  # classes absent from training are never chosen
    coef, intercept = net.coefs_[1], net.intercepts_[1]
    if len(present) == 2:  # scikit-learn keeps one logistic output for two classes
        coef, intercept = np.concatenate([-coef / 2, coef / 2], axis=1), np.array([-intercept[0] / 2, intercept[0] / 2])
    for j, c in enumerate(net.classes_):
        w2[:, c], b2[c] = coef[:, j], intercept[j]
    return SoundClassifier(mean, scale, net.coefs_[0], net.intercepts_[0], w2, b2, CLASSES, tuple(audioset_classes))


def macro_f1(model: SoundClassifier, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> float:
    """Mean over the classes present of the per-segment F1 of the smoothed posteriors' arg max."""
    width = max(1, round(MEDIAN_SECONDS / SEGMENT_SECONDS)) | 1
    guess = np.concatenate([scipy.ndimage.median_filter(model.posteriors(x), size=(width, 1), mode="nearest").argmax(axis=1)
                            for x, _ in pairs])  # fmt: skip
    truth = np.concatenate([y for _, y in pairs])
    scores = []
    for c in np.unique(truth):
        tp = np.sum((guess == c) & (truth == c))
        scores.append(2 * tp / max(1, np.sum(guess == c) + np.sum(truth == c)))
    return float(np.mean(scores))


def choose_alpha(scenes: Sequence[Scene], described: Sequence[tuple[np.ndarray, np.ndarray]], *, seed: int = 0,
                 n_inner: int = 3, audioset_classes: tuple[str, ...] = ()) -> tuple[float, dict[str, float]]:  # fmt: skip
    """The L2 penalty in :data:`ALPHAS` with the best inner leave-packages-out macro F1, and every candidate's score.

    The sound packages of ``scenes`` are dealt into ``n_inner`` groups, and the scenes of no
    package (speech alone, beeps) in turn with them; each group in turn is judged on its
    scenes by a network fitted on the other groups' scenes free of its packages, so that
    false alarms on speech count as well as misses. Only the scenes given take part, so a
    caller that has left a package out keeps it out here too.
    """
    packages = sorted({s.package for s in scenes if s.package})
    groups = [set(packages[i::n_inner]) for i in range(n_inner)]
    home = [next((g for g, grp in enumerate(groups) if s.package in grp), 0) if s.package else i % n_inner
            for i, s in enumerate(scenes)]  # fmt: skip
    totals = {}
    for alpha in ALPHAS:
        results = []
        for g, group in enumerate(groups):
            train_rows = [d for s, d, h in zip(scenes, described, home, strict=True)
                          if h != g and not group & {s.package, s.speech_package}]  # fmt: skip
            judged = [d for d, h in zip(described, home, strict=True) if h == g]
            if not train_rows or not judged:
                continue
            model = fit(np.concatenate([x for x, _ in train_rows]), np.concatenate([y for _, y in train_rows]),
                        seed=seed, alpha=alpha, audioset_classes=audioset_classes)  # fmt: skip
            results.append(macro_f1(model, judged))
        totals[str(alpha)] = float(np.mean(results)) if results else 0.0
    best = max(ALPHAS, key=lambda a: totals[str(a)])
    return best, totals


def zero_shot_thresholds(scores: Sequence[np.ndarray], labels: Sequence[np.ndarray], kinds: tuple[str, ...], *,
                         false_alarm_weight: float = 1.0) -> dict[str, float]:  # fmt: skip
    """Per kind, the threshold in :data:`ZERO_SHOT_THRESHOLDS` with the best segment F1 of ``score > threshold``
    over the scenes given: ``scores`` per scene of shape (n_segments, len(kinds)), ``labels`` (n_segments,).
    With ``false_alarm_weight`` w, each falsely flagged segment counts w times: ``2 TP / (2 TP + w FP + FN)``."""
    x, y = np.concatenate(scores), np.concatenate(labels)
    out = {}
    for k, kind in enumerate(kinds):
        truth = y == CLASSES.index(kind)
        f1 = []
        for t in ZERO_SHOT_THRESHOLDS:
            flagged = x[:, k] > t
            tp = np.sum(flagged & truth)
            f1.append(2 * tp / max(1.0, 2 * tp + false_alarm_weight * np.sum(flagged & ~truth) + np.sum(~flagged & truth)))
        out[kind] = float(ZERO_SHOT_THRESHOLDS[int(np.argmax(f1))])
    return out


#: Candidate music shapes (:class:`MusicShape`): score source, median filter (s), longest gap bridged (s) and
#: hysteresis hold fraction; :func:`choose_music_shape` picks one. The first is the shaping of the other kinds.
MUSIC_MEDIANS = (0.9, 2.9)
MUSIC_GAPS = (0.5, 2.0, 4.0)
MUSIC_LOW_FRACTIONS = (0.6, 0.3)


def music_shape_candidates(zero_shot_threshold: float) -> list[MusicShape]:
    """Every shape of :data:`MUSIC_SOURCES` x :data:`MUSIC_MEDIANS` x :data:`MUSIC_GAPS` x :data:`MUSIC_LOW_FRACTIONS`."""
    grid = itertools.product(MUSIC_SOURCES, MUSIC_MEDIANS, MUSIC_GAPS, MUSIC_LOW_FRACTIONS)
    return [MusicShape(source, median, gap, low, zero_shot_threshold) for source, median, gap, low in grid]


def shape_name(shape: MusicShape) -> str:
    """A candidate's name in the chosen-parameters record, e.g. ``"mean median 2.9 gap 2.0 low 0.3"``."""
    return f"{shape.source} median {shape.median_seconds} gap {shape.max_gap_seconds} low {shape.low_fraction}"


def shape_f1(shape: MusicShape, network: Sequence[np.ndarray], zero_shot: Sequence[np.ndarray],
             references: Sequence[list[tuple[float, float]]]) -> tuple[float, float]:  # fmt: skip
    """Music event F1 (1 s collar) and segment F1 (0.1 s) of ``shape`` over scenes: per scene the raw network
    posterior and "Music" logit (each shape ``(n_segments,)``) and the reference music events (seconds)."""
    hits = false = missed = 0
    seg_tp = seg_guess = seg_true = 0
    for p, z, ref in zip(network, zero_shot, references, strict=True):
        score = music_score(p, z, shape, segment_seconds=SEGMENT_SECONDS)
        found = [(e.start, e.end) for e in music_events(score, shape, segment_seconds=SEGMENT_SECONDS)]
        h, n_true, n_found = event_counts(ref, found)
        hits, false, missed = hits + h, false + n_found - h, missed + n_true - h
        t = (np.arange(len(p)) + 0.5) * SEGMENT_SECONDS
        guess = np.zeros(len(p), bool)
        truth = np.zeros(len(p), bool)
        for a, b in found:
            guess |= (t >= a) & (t < b)
        for a, b in ref:
            truth |= (t >= a) & (t < b)
        seg_tp += int(np.sum(guess & truth))
        seg_guess += int(guess.sum())
        seg_true += int(truth.sum())
    return 2 * hits / max(1, 2 * hits + false + missed), 2 * seg_tp / max(1, seg_guess + seg_true)


def choose_music_shape(scenes: Sequence[Scene], described: Sequence[tuple[np.ndarray, np.ndarray]],
                       *, zero_shot_threshold: float, alpha: float, seed: int = 0, n_inner: int = 3,
                       audioset_classes: tuple[str, ...] = AUDIOSET_CLASSES
                       ) -> tuple[MusicShape, dict[str, list[float]]]:  # fmt: skip
    """The music shape with the best inner leave-packages-out event F1 + segment F1, and every candidate's pair.

    Folds as :func:`choose_alpha` (sound packages dealt into ``n_inner`` groups, each judged by a
    network with L2 penalty ``alpha`` fitted on the other groups' scenes free of its packages), so
    every scene's music posterior comes from a network that never heard its package.
    ``zero_shot_threshold`` is the "Music" logit threshold of the zero-shot and mean sources, chosen on
    the same scenes (:func:`zero_shot_thresholds`).
    """
    if "Music" not in audioset_classes:
        raise ValueError("choosing a music shape needs a model that reads AudioSet's 'Music' score")
    packages = sorted({s.package for s in scenes if s.package})
    groups = [set(packages[i::n_inner]) for i in range(n_inner)]
    home = [next((g for g, grp in enumerate(groups) if s.package in grp), 0) if s.package else i % n_inner
            for i, s in enumerate(scenes)]  # fmt: skip
    column = descriptor_size(0) + audioset_classes.index("Music")
    network: list[np.ndarray] = [np.zeros(0)] * len(scenes)
    for g, group in enumerate(groups):
        rows = [d for s, d, h in zip(scenes, described, home, strict=True)
                if h != g and not group & {s.package, s.speech_package}]  # fmt: skip
        judged = [i for i, h in enumerate(home) if h == g]
        if not rows or not judged:
            continue
        model = fit(np.concatenate([x for x, _ in rows]), np.concatenate([y for _, y in rows]), seed=seed, alpha=alpha,
                    audioset_classes=audioset_classes)  # fmt: skip
        for i in judged:
            network[i] = model.posteriors(described[i][0])[:, CLASSES.index("music")]
    keep = [i for i in range(len(scenes)) if len(network[i]) or not len(described[i][0])]
    zero_shot = [described[i][0][:, column] for i in keep]
    references = [[(a, b) for a, b, k in scenes[i].events if k == "music"] for i in keep]
    candidates = music_shape_candidates(zero_shot_threshold)
    scores = {shape_name(sh): list(shape_f1(sh, [network[i] for i in keep], zero_shot, references)) for sh in candidates}
    return max(candidates, key=lambda sh: sum(scores[shape_name(sh)])), scores


def train(clips: Sequence[CorpusClip], *, cache: Path, seed: int = 0, audioset_classes: tuple[str, ...] = (),
          laughter_head: bool = False) -> tuple[SoundClassifier, dict[str, object]]:  # fmt: skip
    """Train on every clip but the held-out test speech, the L2 penalty chosen by :func:`choose_alpha`;
    the model and how it was chosen. With ``audioset_classes``, the model reads those AudioSet scores too and
    takes laughter from the zero-shot score, or with ``laughter_head`` from a laughter head chosen in inner folds."""
    clips = [c for c in clips if c.package not in JUDGING_SPEECH]
    sounds = [c for c in clips if c.kind in ("music", "applause", "laughter", "other")]
    speech = [c for c in clips if c.kind == "speech"]
    scenes = build_scenes(sounds, load_speech(speech, cache), cache=cache, seed=seed)
    features = scene_features(scenes, audioset=bool(audioset_classes))
    described = describe(scenes, features, audioset_classes)
    alpha, scores = choose_alpha(scenes, described, seed=seed, audioset_classes=audioset_classes)
    x, y = np.concatenate([x for x, _ in described]), np.concatenate([y for _, y in described])
    model = fit(x, y, seed=seed, alpha=alpha, audioset_classes=audioset_classes)
    chosen: dict[str, object] = {"alpha": alpha, "inner_macro_f1": scores}
    if audioset_classes:
        thresholds = zero_shot_thresholds([zero_shot_scores(f, ZERO_SHOT_KINDS) for f in features], [y for _, y in described],
                                          ZERO_SHOT_KINDS, false_alarm_weight=OTHER_WEIGHT)  # fmt: skip
        model = dataclasses.replace(model, zero_shot=tuple(thresholds.items()))
        chosen["zero_shot_thresholds"] = thresholds
        music = zero_shot_thresholds([zero_shot_scores(f, ("music",)) for f in features], [y for _, y in described],
                                     ("music",))["music"]  # fmt: skip
        shape, shape_scores = choose_music_shape(scenes, described, zero_shot_threshold=music, alpha=alpha, seed=seed,
                                                 audioset_classes=audioset_classes)  # fmt: skip
        model = dataclasses.replace(model, music_shape=shape)
        chosen["music_shape"] = {"chosen": dataclasses.asdict(shape), "inner_f1": shape_scores}
        if laughter_head:  # laughter from its own head (engine.detect.laughter), chosen in inner folds
            head, chosen["laughter_head"] = choose_laughter_head(
                [s.package for s in scenes], laughter_pairs(features, [y for _, y in described]),
                speech_packages=[s.speech_package for s in scenes], seed=seed)  # fmt: skip
            model = dataclasses.replace(model, laughter_head=head)
    return model, chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("frame", "audioset", "both"), default="both",
                        help="which shipped model to retrain: frame features only (sounds.npz), "
                             "with AudioSet scores (sounds_audioset.npz), or both")  # fmt: skip
    parser.add_argument("--laughter-head", action="store_true",
                        help="take the AudioSet model's laughter from a laughter head chosen in inner folds "
                             "(tools/train_laughter.py) instead of the zero-shot score")  # fmt: skip
    args = parser.parse_args(argv)
    clips = read_manifest()
    packages = sorted({c.package for c in clips} - set(JUDGING_SPEECH))
    chosen_models = {"frame": [(DEFAULT_MODEL, ())], "audioset": [(AUDIOSET_MODEL, AUDIOSET_CLASSES)]}
    for path, names in chosen_models.get(args.model, chosen_models["frame"] + chosen_models["audioset"]):
        model, chosen = train(clips, cache=default_cache(), audioset_classes=names, laughter_head=args.laughter_head)
        model.save(path, info={"packages": packages, "clips": len(clips), **chosen})
        print(f"{path.name}: L2 penalty {chosen['alpha']} (inner macro F1 {chosen['inner_macro_f1']}); "
              f"zero-shot thresholds {chosen.get('zero_shot_thresholds', {})}; laughter head {chosen.get('laughter_head', {})}")
        print(f"wrote {path} from {len(clips)} clips of {len(packages)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
