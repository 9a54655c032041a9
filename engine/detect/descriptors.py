"""What the sound classifiers read: descriptors of every 0.1 s segment of a recording.

The frame features (:mod:`engine.detect.features`) summarised every ``SEGMENT_SECONDS`` by the mean and
standard deviation of each scalar feature and cepstral coefficient over a short and a long centred window
(:func:`segment_descriptors`), and the AudioSet logits interpolated to each segment's centre
(:func:`audioset_descriptors`). Both the network (:mod:`engine.detect.classifier`) and the laughter head
(:mod:`engine.detect.laughter`) read them, so they live below both.
"""

from __future__ import annotations

import numpy as np
import scipy.ndimage

from engine.detect import config
from engine.detect.audioset import patch_centres
from engine.detect.features import FEATURE_NAMES, FrameFeatures
from engine.detect.frames import moving_mean, silence_floor_db
from engine.errors import ParameterError
from models.audioset import audioset_files

SEGMENT_SECONDS = 0.1
CONTEXT_SECONDS = (0.3, 1.2)
#: AudioSet classes whose largest logit is a kind's zero-shot score (:func:`zero_shot_scores`).
ZERO_SHOT_CLASSES = {
    "music": ("Music",),
    "applause": ("Applause", "Clapping", "Cheering"),
    "laughter": ("Laughter", "Baby laughter", "Giggle", "Snicker", "Belly laugh", "Chuckle, chortle"),
}
#: Logit given to every class of a recording with no AudioSet patch (no audio at all).
NO_PATCH_LOGIT = -20.0


def segment_descriptors(features: FrameFeatures) -> np.ndarray:
    """Descriptors of every 0.1 s segment, float64 shape ``(n_segments, n_dims)``.

    Segment ``s`` is centred on frame ``s * step`` (``step`` = frames per segment).
    """
    fs = features.frame_seconds
    step = max(1, round(SEGMENT_SECONDS / fs))
    n = features.n_frames
    if n == 0:
        return np.zeros((0, descriptor_size()))
    centres = np.arange(0, n, step)
    energy = features.energy_db.astype(np.float64)
    floor = silence_floor_db(energy)
    columns: list[np.ndarray] = []
    for seconds in CONTEXT_SECONDS:
        width = max(1, round(seconds / fs))
        for name in FEATURE_NAMES:
            x = getattr(features, name).astype(np.float64)
            if name in ("energy_db", "vowel_db"):
                x = np.clip(x - floor, 0.0, 80.0)
            mean = moving_mean(x, width=width)
            var = np.maximum(moving_mean(x * x, width=width) - mean * mean, 0.0)
            columns += [mean[centres], np.sqrt(var)[centres]]
        sounding = (energy - floor > 12.0).astype(np.float64)
        columns.append(moving_mean(sounding, width=width)[centres])
        ceps = features.cepstrum.astype(np.float64)
        mean = scipy.ndimage.uniform_filter1d(ceps, size=width, axis=0, mode="nearest")
        var = np.maximum(scipy.ndimage.uniform_filter1d(ceps * ceps, size=width, axis=0, mode="nearest") - mean * mean, 0.0)
        columns += [*mean[centres].T, *np.sqrt(var)[centres].T]
    return np.stack(columns, axis=1)


def descriptor_size(n_audioset: int = 0) -> int:
    """Descriptors per segment: per context window, mean and std of each feature and cepstral coefficient, plus sounding
    share; then two per AudioSet class read (``n_audioset``)."""
    return len(CONTEXT_SECONDS) * (2 * len(FEATURE_NAMES) + 1 + 2 * config.N_CEPSTRA) + 2 * n_audioset


def audioset_columns(names: tuple[str, ...]) -> list[int]:
    """Output columns of AudioSet class ``names`` in the tagger's 521 logits."""
    order = audioset_files().class_names  # verified once per process
    missing = [n for n in names if n not in order]
    if missing:
        raise ParameterError(f"not AudioSet class names: {', '.join(map(repr, missing))}")
    return [order.index(n) for n in names]


def audioset_logits_per_segment(features: FrameFeatures, names: tuple[str, ...]) -> np.ndarray:
    """Logits of AudioSet classes ``names`` at each 0.1 s segment's centre, float64 shape ``(n_segments, len(names))``,
    linearly interpolated between patch centres (held constant beyond the first and last)."""
    if features.audioset is None:
        raise ParameterError("these features carry no AudioSet scores: compute them with "
                             "FeatureExtractor(audioset=AudioSetModel.shipped())")  # fmt: skip
    step = max(1, round(SEGMENT_SECONDS / features.frame_seconds))
    t = np.arange(0, features.n_frames, step) * features.frame_seconds
    logits = features.audioset
    if not len(logits):
        return np.full((len(t), len(names)), NO_PATCH_LOGIT)
    centres = patch_centres(len(logits))
    return np.stack([np.interp(t, centres, logits[:, c].astype(np.float64)) for c in audioset_columns(names)], axis=1)


def audioset_descriptors(features: FrameFeatures, names: tuple[str, ...]) -> np.ndarray:
    """Per 0.1 s segment and AudioSet class: the interpolated logit and its mean over the long context window,
    float64 shape ``(n_segments, 2 * len(names))``."""
    x = audioset_logits_per_segment(features, names)
    if not len(x):
        return np.zeros((0, 2 * len(names)))
    width = max(1, round(CONTEXT_SECONDS[-1] / SEGMENT_SECONDS))
    return np.concatenate([x, scipy.ndimage.uniform_filter1d(x, size=width, axis=0, mode="nearest")], axis=1)
