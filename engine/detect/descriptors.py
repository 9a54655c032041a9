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
from engine.detect.audioset import class_columns, patch_centres
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


def segment_descriptors(features: FrameFeatures, *, out: np.ndarray | None = None, rows: slice | None = None,
                        floor_db: float | None = None) -> np.ndarray:  # fmt: skip
    """Descriptors of every 0.1 s segment (or of the segments ``rows``), float64 shape ``(n_rows, n_dims)``, written
    into ``out`` (that shape) when given. ``floor_db``: the recording's :func:`silence_floor_db` when known.

    Segment ``s`` is centred on frame ``s * step`` (``step`` = frames per segment). Each column is computed on its
    own, and only over the frames the rows' windows reach: an hour holds one frame-long array at a time, not all
    of them, and a block of rows holds only its own stretch.
    """
    fs = features.frame_seconds
    step = max(1, round(SEGMENT_SECONDS / fs))
    n = features.n_frames
    r0, r1 = row_range(features, rows)
    out = np.empty((r1 - r0, descriptor_size())) if out is None else out
    if n == 0 or r1 == r0:
        return out
    floor = silence_floor_db(features.energy_db) if floor_db is None else floor_db
    # every window of the rows lies within [f0, f1): the numbers of the whole recording's, up to rounding
    reach = max(max(1, round(seconds / fs)) for seconds in CONTEXT_SECONDS)
    f0, f1 = max(0, r0 * step - reach), min(n, (r1 - 1) * step + reach + 1)
    centres = np.arange(r0 * step, r1 * step, step) - f0
    energy = features.energy_db[f0:f1].astype(np.float64)
    col = 0

    def put(values: np.ndarray) -> None:
        nonlocal col
        out[:, col] = values
        col += 1

    for seconds in CONTEXT_SECONDS:
        width = max(1, round(seconds / fs))
        for name in FEATURE_NAMES:
            x = getattr(features, name)[f0:f1].astype(np.float64)
            if name in ("energy_db", "vowel_db"):
                x = np.clip(x - floor, 0.0, 80.0)
            mean, std = window_stats_at(x, width, centres)
            put(mean)
            put(std)
        put(window_stats_at((energy - floor > 12.0).astype(np.float64), width, centres)[0])
        n_ceps = features.cepstrum.shape[1]
        for c in range(n_ceps):  # the means of c1..c8, then their deviations
            ceps = features.cepstrum[f0:f1, c].astype(np.float64)
            mean = scipy.ndimage.uniform_filter1d(ceps, size=width, mode="nearest")[centres]
            square = scipy.ndimage.uniform_filter1d(ceps * ceps, size=width, mode="nearest")[centres]
            out[:, col + c] = mean
            out[:, col + n_ceps + c] = np.sqrt(np.maximum(square - mean * mean, 0.0))
        col += 2 * n_ceps
    return out


def all_descriptors(features: FrameFeatures, audioset_classes: tuple[str, ...] = (), *, dtype: type = np.float64,
                    rows: slice | None = None, floor_db: float | None = None) -> np.ndarray:  # fmt: skip
    """:func:`segment_descriptors` then, with ``audioset_classes``, :func:`audioset_descriptors` of them, in one
    array of shape ``(n_rows, descriptor_size(len(audioset_classes)))`` filled in place: computed in float64,
    held as ``dtype`` (float32 halves three hours' 110 MB). ``rows``: the segments wanted (default all);
    ``floor_db`` as :func:`segment_descriptors`."""
    r0, r1 = row_range(features, rows)
    base = descriptor_size()
    out: np.ndarray = np.empty((r1 - r0, descriptor_size(len(audioset_classes))), dtype=dtype)
    segment_descriptors(features, out=out[:, :base], rows=slice(r0, r1), floor_db=floor_db)
    if audioset_classes:
        audioset_descriptors(features, audioset_classes, out=out[:, base:], rows=slice(r0, r1))
    return out


def descriptor_rows(n_segments: int, rows_at_once: int) -> list[slice]:
    """``n_segments`` cut into consecutive blocks of at most ``rows_at_once`` rows."""
    return [slice(at, min(n_segments, at + rows_at_once)) for at in range(0, n_segments, max(1, rows_at_once))]


def descriptor_size(n_audioset: int = 0) -> int:
    """Descriptors per segment: per context window, mean and std of each feature and cepstral coefficient, plus sounding
    share; then two per AudioSet class read (``n_audioset``)."""
    return len(CONTEXT_SECONDS) * (2 * len(FEATURE_NAMES) + 1 + 2 * config.N_CEPSTRA) + 2 * n_audioset


def audioset_columns(names: tuple[str, ...], kept: tuple[str, ...] | None = None) -> list[int]:
    """Columns of AudioSet class ``names`` in the tagger's 521 logits, or among the classes ``kept`` when the
    features keep only those (``FrameFeatures.audioset_classes``)."""
    columns = class_columns(audioset_files().class_names, names)  # the names verified once per process
    if kept is None:
        return columns
    dropped = [n for n in names if n not in kept]
    if dropped:
        raise ParameterError(f"these features keep the scores of {len(kept)} AudioSet classes, not of "
                             f"{', '.join(map(repr, dropped))}")  # fmt: skip
    return [kept.index(n) for n in names]


def audioset_logits_per_segment(features: FrameFeatures, names: tuple[str, ...], *, rows: slice | None = None
                                ) -> np.ndarray:
    """Logits of AudioSet classes ``names`` at each 0.1 s segment's centre (or the segments ``rows``), float64 shape
    ``(n_rows, len(names))``, linearly interpolated between patch centres (held constant beyond the first and last)."""
    if features.audioset is None:
        raise ParameterError("these features carry no AudioSet scores: compute them with "
                             "FeatureExtractor(audioset=AudioSetModel.shipped())")  # fmt: skip
    step = max(1, round(SEGMENT_SECONDS / features.frame_seconds))
    r0, r1 = row_range(features, rows)
    t = np.arange(r0 * step, r1 * step, step) * features.frame_seconds
    logits = features.audioset
    if not len(logits):
        return np.full((len(t), len(names)), NO_PATCH_LOGIT)
    centres = patch_centres(len(logits))
    out = np.empty((len(t), len(names)))
    for k, c in enumerate(audioset_columns(names, features.audioset_classes)):
        out[:, k] = np.interp(t, centres, logits[:, c].astype(np.float64))
    return out


def audioset_descriptors(features: FrameFeatures, names: tuple[str, ...], *, out: np.ndarray | None = None,
                         rows: slice | None = None) -> np.ndarray:  # fmt: skip
    """Per 0.1 s segment (or the segments ``rows``) and AudioSet class: the interpolated logit and its mean over the
    long context window, float64 shape ``(n_rows, 2 * len(names))``, written into ``out`` (that shape, any float
    dtype) when given. One class at a time: no float64 matrix of every class is held beside ``out``."""
    k = len(names)
    count = segment_count(features)
    r0, r1 = row_range(features, rows)
    out = np.empty((r1 - r0, 2 * k)) if out is None else out
    width = max(1, round(CONTEXT_SECONDS[-1] / SEGMENT_SECONDS))
    a0, a1 = max(0, r0 - width), min(count, r1 + width)  # the rows' context windows lie within [a0, a1)
    for j, name in enumerate(names):
        x = audioset_logits_per_segment(features, (name,), rows=slice(a0, a1))[:, 0]
        out[:, j] = x[r0 - a0 : r1 - a0]
        if len(x):
            out[:, k + j] = scipy.ndimage.uniform_filter1d(x, size=width, mode="nearest")[r0 - a0 : r1 - a0]
    return out


def row_range(features: FrameFeatures, rows: slice | None) -> tuple[int, int]:
    """First and past-the-last segment of ``rows`` (default all) within ``features``' segments, first <= last."""
    r0, r1, _ = (rows or slice(None)).indices(segment_count(features))
    return r0, max(r0, r1)


def segment_count(features: FrameFeatures) -> int:
    """Segments of ``SEGMENT_SECONDS`` in ``features`` (the last may be short)."""
    return len(range(0, features.n_frames, max(1, round(SEGMENT_SECONDS / features.frame_seconds))))
