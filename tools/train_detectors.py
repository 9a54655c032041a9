"""Train the learned music/applause/laughter detector on mixtures of real clips, and build test mixtures.

Scenes are mixed as a broadcast has them: a sound in a pause between two stretches of speech
(at the speech level, -6 to +3 dB), a sound over speech (-6 to -15 dB below it), music beds
under speech (-10 to -18 dB), each sound alone, and negatives (speech alone, telephone-band
speech, 1 kHz and other beeps). Speech stretches are real recorded speech from the corpus
(:mod:`tools.detector_corpus`). The network is scikit-learn's ``MLPClassifier`` (tanh, one
hidden layer), exported to :class:`engine.detect.classifier.SoundClassifier` (numpy only).

Run: ``.venv/bin/python -m tools.train_detectors`` (writes ``models/detectors/sounds.npz``).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.signal

from engine.detect.classifier import CLASSES, DEFAULT_MODEL, SEGMENT_SECONDS, SoundClassifier, segment_descriptors
from engine.detect.features import frame_features
from tools.detector_corpus import CorpusClip, default_cache, load_corpus_clip, read_manifest
from tools.synth import noise_burst

SR = 16000
SPEECH_DBFS = -22.0
#: Scenes built per clip of each class (the rare classes are re-mixed more often).
VARIANTS = {"music": 1, "applause": 10, "laughter": 3, "other": 1}
SCENE_KINDS = ("pause", "over", "alone")
#: Rows of ``other`` per row of each sound class in training: speech and everyday sounds are far
#: more common than music, applause or laughter, and a false alarm costs a listener more than a miss.
OTHER_WEIGHT = 8
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
    """A mixed recording with its ground truth: ``events`` are ``(start, end, kind)`` in seconds."""

    audio: np.ndarray
    events: list[tuple[float, float, str]] = field(default_factory=list)
    package: str = ""
    condition: str = ""
    speech_package: str = ""

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
    return Scene(_recorded(audio, rng), events, package, condition)


def _recorded(audio: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The mixture at a random overall gain (-10 to +8 dB) over a random noise floor (none, or -90 to -50 dBFS)."""
    audio = audio * np.float32(10 ** (rng.uniform(-10.0, 8.0) / 20))
    if rng.random() > 0.15:  # some recordings have digital silence between items
        audio = audio + np.float32(10 ** (rng.uniform(-90.0, -50.0) / 20)) * rng.standard_normal(len(audio)).astype(np.float32)
    return np.clip(audio, -1, 1).astype(np.float32)


def negative_scenes(speech: SpeechPool, rng: np.random.Generator, n: int,
                    variants: Sequence[int] = (0, 1, 2, 3, 4)) -> list[Scene]:  # fmt: skip
    """Scenes with nothing but ``other``, cycling over ``variants``: 0 speech alone, 1 telephone-band speech,
    2 speech with beeps, 3 steady hiss alone, 4 speech over hiss."""
    out = []
    sos = scipy.signal.butter(4, (300, 3400), btype="bandpass", fs=SR, output="sos")
    for i in range(n):
        s = speech.take(rng.uniform(6.0, 12.0)).copy()
        variant = variants[i % len(variants)]
        if variant == 1:
            s = _at_level(scipy.signal.sosfilt(sos, s).astype(np.float32), SPEECH_DBFS)
        elif variant == 2:
            for _ in range(int(rng.integers(2, 6))):
                freq = 1000.0 if rng.random() < 0.5 else rng.uniform(400, 3000)
                length = int(rng.uniform(0.15, 1.0) * SR)
                at = int(rng.integers(0, max(1, len(s) - length)))
                t = np.arange(length) / SR
                s[at : at + length] += 0.1 * np.sin(2 * np.pi * freq * t).astype(np.float32)
        elif variant in (3, 4):
            level = np.float32(10 ** ((SPEECH_DBFS + rng.uniform(-20, 3)) / 20))
            hiss = noise_burst(len(s) / SR, sample_rate=SR, rng=rng) * level
            s = hiss if variant == 3 else s + hiss[: len(s)] * np.float32(0.3)
        if rng.random() < 0.5:  # padded with silence, as a clip on its own is
            pad = np.zeros(int(rng.uniform(0.2, 1.0) * SR), dtype=np.float32)
            s = np.concatenate([pad, s, pad])
        out.append(Scene(_recorded(s, rng), [], "", "negative"))
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
                 conditions: Sequence[str] = SCENE_KINDS, variants: dict[str, int] | None = None,
                 negatives: int = 150) -> list[Scene]:  # fmt: skip
    """Mixtures of each sound clip under each condition, plus negative scenes, with ground truth.

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
    for clip in clips:
        sound = load_corpus_clip(clip, cache, sample_rate=SR)
        for _ in range(variants.get(clip.kind, 1)):
            for condition in conditions:
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


def scene_descriptors(scenes: Sequence[Scene]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Descriptors (n, n_dims) and class labels (n,) of the segments of each scene."""
    out = []
    for s in scenes:
        x = segment_descriptors(frame_features(s.audio, sr=SR))
        out.append((x, segment_labels(s, len(x))))
    return out


def scene_data(scenes: Sequence[Scene]) -> tuple[np.ndarray, np.ndarray]:
    """Descriptors (n, n_dims) and class labels (n,) of every segment of every scene."""
    pairs = scene_descriptors(scenes)
    return np.concatenate([x for x, _ in pairs]), np.concatenate([y for _, y in pairs])


def fit(x: np.ndarray, y: np.ndarray, *, seed: int = 0, hidden: int = 24, max_rows: int = 24000) -> SoundClassifier:
    """Fit the network on balanced rows (each class resampled to the same count) and export it."""
    from sklearn.neural_network import MLPClassifier

    rng = np.random.default_rng(seed)
    present = np.unique(y)
    per_class = max(1, min(max_rows // (len(present) + OTHER_WEIGHT - 1), int(np.bincount(y).max())))
    rows = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class * (OTHER_WEIGHT if c == 0 else 1), replace=True)
                           for c in present])  # fmt: skip
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    net = MLPClassifier(hidden_layer_sizes=(hidden,), activation="tanh", alpha=1e-3, max_iter=300, random_state=seed,
                        early_stopping=True, n_iter_no_change=15)  # fmt: skip
    net.fit((x[rows] - mean) / scale, y[rows])
    w2 = np.zeros((hidden, len(CLASSES)))
    b2 = np.full(len(CLASSES), -30.0)  # classes absent from training are never chosen
    coef, intercept = net.coefs_[1], net.intercepts_[1]
    if len(present) == 2:  # scikit-learn keeps one logistic output for two classes
        coef, intercept = np.concatenate([-coef / 2, coef / 2], axis=1), np.array([-intercept[0] / 2, intercept[0] / 2])
    for j, c in enumerate(net.classes_):
        w2[:, c], b2[c] = coef[:, j], intercept[j]
    return SoundClassifier(mean, scale, net.coefs_[0], net.intercepts_[0], w2, b2)


def train(clips: Sequence[CorpusClip], *, cache: Path, seed: int = 0, exclude: set[str] = frozenset()) -> SoundClassifier:  # type: ignore[assignment]
    """Train on every clip whose package is not in ``exclude``."""
    use = [c for c in clips if c.package not in exclude]
    sounds = [c for c in use if c.kind in ("music", "applause", "laughter", "other")]
    speech = [c for c in use if c.kind == "speech"]
    x, y = scene_data(build_scenes(sounds, load_speech(speech, cache), cache=cache, seed=seed))
    return fit(x, y, seed=seed)


def main() -> int:
    clips = read_manifest()
    model = train(clips, cache=default_cache())
    packages = sorted({c.package for c in clips})
    model.save(DEFAULT_MODEL, info={"packages": packages, "clips": len(clips)})
    print(f"wrote {DEFAULT_MODEL} from {len(clips)} clips of {len(packages)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
