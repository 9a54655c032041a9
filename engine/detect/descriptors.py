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
from engine.detect.frames import silence_floor_db, window_stats_at
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


def segment_descriptors(features: FrameFeatures, *, out: np.ndarray | None = None) -> np.ndarray:
    """Descriptors of every 0.1 s segment, float64 shape ``(n_segments, n_dims)``, written into ``out``
    (that shape) when given.

    Segment ``s`` is centred on frame ``s * step`` (``step`` = frames per segment). Each column is
    computed on its own: an hour holds one frame-long array at a time, not all of them.
    """
    fs = features.frame_seconds
    step = max(1, round(SEGMENT_SECONDS / fs))
    n = features.n_frames
    centres = np.arange(0, n, step)
    out = np.empty((len(centres), descriptor_size())) if out is None else out
    if n == 0:
        return out
    energy = features.energy_db.astype(np.float64)
    floor = silence_floor_db(energy)
    col = 0

    def put(values: np.ndarray) -> None:
        nonlocal col
        out[:, col] = values
        col += 1

    for seconds in CONTEXT_SECONDS:
        width = max(1, round(seconds / fs))
        for name in FEATURE_NAMES:
            x = getattr(features, name).astype(np.float64)
            if name in ("energy_db", "vowel_db"):
                x = np.clip(x - floor, 0.0, 80.0)
            mean, std = window_stats_at(x, width, centres)
            put(mean)
            put(std)
        put(window_stats_at((energy - floor > 12.0).astype(np.float64), width, centres)[0])
        n_ceps = features.cepstrum.shape[1]
        for c in range(n_ceps):  # the means of c1..c8, then their deviations
            ceps = features.cepstrum[:, c].astype(np.float64)
            mean = scipy.ndimage.uniform_filter1d(ceps, size=width, mode="nearest")[centres]
            square = scipy.ndimage.uniform_filter1d(ceps * ceps, size=width, mode="nearest")[centres]
            out[:, col + c] = mean
            out[:, col + n_ceps + c] = np.sqrt(np.maximum(square - mean * mean, 0.0))
        col += 2 * n_ceps
    return out


def all_descriptors(features: FrameFeatures, audioset_classes: tuple[str, ...] = (), *,
                    dtype: type = np.float64) -> np.ndarray:  # fmt: skip
    """:func:`segment_descriptors` then, with ``audioset_classes``, :func:`audioset_descriptors` of them, in one
    array of shape ``(n_segments, descriptor_size(len(audioset_classes)))`` filled in place: computed in float64,
    held as ``dtype`` (float32 halves three hours' 110 MB)."""
    n_segments = _n_segments(features)
    base = descriptor_size()
    out: np.ndarray = np.empty((n_segments, descriptor_size(len(audioset_classes))), dtype=dtype)
    segment_descriptors(features, out=out[:, :base])
    if audioset_classes:
        audioset_descriptors(features, audioset_classes, out=out[:, base:])
    return out


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
    out = np.empty((len(t), len(names)))
    for k, c in enumerate(audioset_columns(names)):
        out[:, k] = np.interp(t, centres, logits[:, c].astype(np.float64))
    return out


def audioset_descriptors(features: FrameFeatures, names: tuple[str, ...], *, out: np.ndarray | None = None) -> np.ndarray:
    """Per 0.1 s segment and AudioSet class: the interpolated logit and its mean over the long context window,
    float64 shape ``(n_segments, 2 * len(names))``, written into ``out`` (that shape, any float dtype) when given.
    One class at a time: no float64 matrix of every class is held beside ``out``."""
    k = len(names)
    out = np.empty((_n_segments(features), 2 * k)) if out is None else out
    width = max(1, round(CONTEXT_SECONDS[-1] / SEGMENT_SECONDS))
    for j, name in enumerate(names):
        x = audioset_logits_per_segment(features, (name,))[:, 0]
        out[:, j] = x
        if len(x):
            out[:, k + j] = scipy.ndimage.uniform_filter1d(x, size=width, mode="nearest")
    return out


def _n_segments(features: FrameFeatures) -> int:
    """Segments of ``SEGMENT_SECONDS`` in ``features`` (the last may be short)."""
    return len(range(0, features.n_frames, max(1, round(SEGMENT_SECONDS / features.frame_seconds))))
