"""Laughter head: a logistic model on AudioSet scores of laughter and of what it is confused with, plus frame cues.

YAMNet's own laughter scores (:data:`engine.detect.descriptors.ZERO_SHOT_CLASSES`) find laughter in
a pause but hardly under speech, where the ``Speech`` logit takes over and the laughter logits
fall. The head reads, per 0.1 s segment, the logits (at the segment and over the long window) of
the laughter kinds *and* of their rivals (:data:`HEAD_CLASSES`: speech of several kinds, shouts,
screams, crying, breath, coughs, singing, crowds) beside the frame descriptors of
:func:`engine.detect.descriptors.segment_descriptors` (voicing, syllable-rate energy swings,
spectral envelope), so that "laughter under speech" is learned from mixtures rather than
hoped for. Its probability is median filtered over ``median_seconds`` and becomes events where it
passes ``threshold`` (hysteresis, gaps up to ``gap_seconds`` bridged, runs under ``min_seconds``
dropped). Every one of those numbers is chosen by ``tools/train_laughter.py`` in inner
leave-packages-out folds and saved with the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.ndimage

from engine.detect.descriptors import (
    SEGMENT_SECONDS,
    ZERO_SHOT_CLASSES,
    all_descriptors,
    descriptor_size,
)
from engine.detect.events import Event
from engine.detect.features import FrameFeatures
from engine.detect.sounds import score_to_events
from engine.errors import ParameterError

#: AudioSet classes the head reads: the laughter kinds, then what laughter is taken for (named before any result was seen).
HEAD_CLASSES = (
    "Laughter", "Baby laughter", "Giggle", "Snicker", "Belly laugh", "Chuckle, chortle",
    "Speech", "Conversation", "Narration, monologue", "Babbling", "Hubbub, speech noise, speech babble",
    "Shout", "Yell", "Screaming", "Crying, sobbing", "Breathing", "Gasp", "Cough", "Singing", "Music",
    "Applause", "Cheering", "Crowd", "Animal",
)  # fmt: skip
#: Keys of a head's arrays in a model file (all prefixed, so they sit beside the sound classifier's).
PREFIX = "laughter_"


def head_descriptors(features: FrameFeatures, classes: tuple[str, ...] = HEAD_CLASSES) -> np.ndarray:
    """What the head reads per 0.1 s segment: frame descriptors then AudioSet descriptors of ``classes``,
    float64 shape ``(n_segments, n_dims)``."""
    return all_descriptors(features, classes)


@dataclass(frozen=True)
class LaughterHead:
    """Standardise, one logistic output, then smoothing and event shaping.

    ``mean``, ``scale``, ``coef``: shape ``(n_dims,)``; ``intercept``: the bias; ``threshold``: the
    probability (0-1) where an event starts; ``median_seconds``: smoothing window; ``min_seconds``
    and ``gap_seconds``: shortest event kept and longest gap bridged, in seconds. ``zero_shot``: the
    head ignores ``coef`` and reads YAMNet's largest laughter logit plus ``intercept`` (the zero-shot
    score, one candidate the inner folds may choose).
    """

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float = 0.5
    median_seconds: float = 0.9
    min_seconds: float = 0.6
    gap_seconds: float = 0.5
    classes: tuple[str, ...] = HEAD_CLASSES
    zero_shot: bool = False

    def probabilities(self, descriptors: np.ndarray) -> np.ndarray:
        """Laughter probability per segment, shape ``(n_segments,)``, of descriptors ``(n_segments, n_dims)``."""
        x = np.asarray(descriptors, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.coef.shape[0]:
            raise ParameterError(f"laughter head descriptors must have shape (n, {self.coef.shape[0]}), got {x.shape}")
        if self.zero_shot:
            kinds = [descriptor_size() + i for i, c in enumerate(self.classes) if c in ZERO_SHOT_CLASSES["laughter"]]
            z = x[:, kinds].max(axis=1) + self.intercept if kinds else np.full(len(x), -40.0)
        else:
            z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))

    def scores(self, features: FrameFeatures) -> np.ndarray:
        """Median-filtered probability per 0.1 s segment, rescaled so that ``threshold`` maps to 0.5; shape ``(n_segments,)``."""
        p = self.probabilities(head_descriptors(features, self.classes))
        if not len(p):
            return p
        width = max(1, round(self.median_seconds / SEGMENT_SECONDS)) | 1
        p = scipy.ndimage.median_filter(p, size=width, mode="nearest")
        return rescaled(p, self.threshold)

    def events(self, scores: np.ndarray, *, sensitivity: float = 0.5) -> list[Event]:
        """Laughter events of :meth:`scores` (per 0.1 s segment); an event starts where a score reaches ``1 - sensitivity``."""
        return score_to_events("laughter", scores, scores, frame_seconds=SEGMENT_SECONDS, sensitivity=sensitivity,
                               min_seconds=self.min_seconds, max_gap_seconds=self.gap_seconds)  # fmt: skip

    def arrays(self) -> dict[str, np.ndarray]:
        """The head as named arrays, for a model file."""
        shape = np.array([self.intercept, self.threshold, self.median_seconds, self.min_seconds, self.gap_seconds,
                          float(self.zero_shot)])  # fmt: skip
        return {f"{PREFIX}mean": self.mean, f"{PREFIX}scale": self.scale, f"{PREFIX}coef": self.coef,
                f"{PREFIX}numbers": shape, f"{PREFIX}classes": np.array(self.classes, dtype=str)}  # fmt: skip

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Any]) -> LaughterHead | None:
        """The head stored by :meth:`arrays` in ``arrays`` (a mapping such as an open ``.npz``), or None if absent."""
        if f"{PREFIX}coef" not in arrays:
            return None
        get = arrays.__getitem__
        intercept, threshold, median, shortest, gap, zero_shot = (float(v) for v in get(f"{PREFIX}numbers"))
        head = cls(get(f"{PREFIX}mean"), get(f"{PREFIX}scale"), get(f"{PREFIX}coef"), intercept, threshold, median,
                   shortest, gap, tuple(str(c) for c in get(f"{PREFIX}classes")), bool(zero_shot))  # fmt: skip
        size = descriptor_size(len(head.classes))
        if head.coef.shape != (size,) or head.mean.shape != (size,) or not 0.0 < threshold < 1.0:
            raise ParameterError(f"laughter head parameters do not fit {size} descriptors and a threshold in (0, 1)")
        return head


def rescaled(p: np.ndarray, threshold: float) -> np.ndarray:
    """Probabilities ``p`` moved on the logit scale so that ``threshold`` becomes 0.5 (order kept)."""
    eps = 1e-9
    q = np.clip(p, eps, 1 - eps)
    t = min(max(threshold, eps), 1 - eps)
    z = np.log(q / (1 - q)) - np.log(t / (1 - t))
    return 1.0 / (1.0 + np.exp(-z))
