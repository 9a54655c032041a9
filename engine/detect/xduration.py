"""X-duration (Greiff et al., story segmentation, section 3.2): for every recognised word,
how much sound just before it produced no usable word.

The gap before word ``i`` runs from the end of the last good word before it (recognised
with at least ``min_confidence``, not an unknown-word token such as ``[unk]``, lying mostly
inside detected speech and not inside a detected non-speech sound: recognisers confidently
"hear" words in music, applause and noise) to the start of word ``i``. Its X-duration
is the time inside that gap that is not silence (music, noise, applause, unrecognised
speech ...). Words inside continuous speech get about 0; the first word of a story after
a jingle gets about the jingle's length.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from engine.detect import config
from engine.detect.events import Event
from engine.detect.frames import as_frames, positive
from engine.detect.kernels import _x_duration_kernel
from engine.errors import ParameterError


def good_words(
    confidences: np.ndarray,
    texts: Sequence[str],
    *,
    min_confidence: float = config.DEFAULT_MIN_WORD_CONFIDENCE,
    unknown: Iterable[str] = config.UNKNOWN_WORDS,
) -> np.ndarray:
    """Bool per word: recognised confidently and not an unknown-word token."""
    conf = as_frames("confidences", confidences)
    if len(texts) != conf.shape[0]:
        raise ParameterError(f"got {conf.shape[0]} confidences but {len(texts)} word texts")
    if not 0.0 <= min_confidence <= 1.0:
        raise ParameterError(f"min_confidence must lie in [0, 1], got {min_confidence}")
    unknown = {u.lower() for u in unknown}
    known = np.array([t.strip().lower() not in unknown and bool(t.strip()) for t in texts], dtype=bool)
    return known & (conf >= min_confidence)


def inside_sounds(
    word_starts: np.ndarray, word_ends: np.ndarray, sounds: Sequence[Event], *, fraction: float = 0.5
) -> np.ndarray:
    """Bool per word: more than ``fraction`` of it (or its midpoint, for zero-length words) lies in ``sounds``."""
    starts = as_frames("word_starts", word_starts)
    ends = np.maximum(as_frames("word_ends", word_ends), starts)
    if starts.shape != ends.shape:
        raise ParameterError(f"got {starts.shape[0]} word starts but {ends.shape[0]} ends")
    covered = np.zeros(starts.shape[0])
    mids = (starts + ends) / 2
    for e in sounds:
        covered += np.clip(np.minimum(ends, e.end) - np.maximum(starts, e.start), 0.0, None)
        covered += ((ends == starts) & (mids >= e.start) & (mids < e.end)).astype(np.float64)
    length = ends - starts
    return np.where(length > 0, covered > fraction * length, covered > 0)


def x_duration(
    *,
    word_starts: np.ndarray,
    word_ends: np.ndarray,
    good: np.ndarray,
    active: np.ndarray,
    frame_seconds: float,
) -> np.ndarray:
    """Untranscribed sound before each word, seconds, shape (n_words,).

    Parameters
    ----------
    word_starts, word_ends : float arrays, shape (n_words,)
        Word times in seconds, in recognition order (starts non-decreasing).
    good : bool array, shape (n_words,)
        Which words count as transcribed (see :func:`good_words`).
    active : bool array, shape (n_frames,)
        Frames that are not silence; frame t stands for the ``frame_seconds`` around ``t * frame_seconds``.
    frame_seconds : frame hop in seconds.
    """
    starts = as_frames("word_starts", word_starts)
    ends = as_frames("word_ends", word_ends)
    ok = as_frames("good", good, dtype=np.uint8)
    act = as_frames("active", active, dtype=np.uint8)
    fs = positive("frame_seconds", frame_seconds)
    if not (starts.shape == ends.shape == ok.shape):
        raise ParameterError(f"word_starts, word_ends and good must have one entry per word, got "
                             f"{starts.shape[0]}, {ends.shape[0]} and {ok.shape[0]}")  # fmt: skip
    if (ends < starts).any():
        i = int(np.flatnonzero(ends < starts)[0])
        raise ParameterError(f"word {i} ends before it starts ({ends[i]} s < {starts[i]} s)")
    if (np.diff(starts) < 0).any():
        i = int(np.flatnonzero(np.diff(starts) < 0)[0]) + 1
        raise ParameterError(f"words must be in time order: word {i} starts at {starts[i]} s, before word {i - 1}")
    if starts.size == 0:
        return np.zeros(0)
    cumsum = np.concatenate([[0], np.cumsum(act, dtype=np.int64)]).astype(np.float64)
    start_frames = np.round(starts / fs).astype(np.int64)
    end_frames = np.round(ends / fs).astype(np.int64)
    return _x_duration_kernel(start_frames, end_frames, ok, cumsum, 0) * fs
