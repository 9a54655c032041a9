"""Story boundaries from the HMM's posterior, the pauses and the block structure of a broadcast.

The Viterbi path places a boundary wherever the penalised model prefers one, and its
penalty has a cliff. :class:`BoundaryRule` instead reads the forward-backward posterior
and adds the cues that carry across channels:

* evidence at word ``t`` is the start posterior summed over ``±CONFIDENCE_HALF_WINDOW``
  words, plus ``pause_weight`` when the pause (or untranscribed stretch) before ``t``
  is longer than ``pause_seconds``; peaks above ``threshold`` become boundaries,
  strongest first, no two closer than ``min_words``;
* a *block* (two or more segments in a row, each shorter than ``block_seconds``: a
  commercial break's spots, a run of jingles) is one segment: the boundaries inside it
  go and its two edges stay, as NewsScape's truth marks a commercial block;
* every story keeps at least ``min_words`` words (the weaker boundary of a short story goes).

Every number of the rule is chosen on training days only by
:func:`engine.research.segment.boundary_fit.fit_boundary_rule`,
from decodes by models that did not see the day they decode.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from engine.errors import ParameterError
from engine.segment import config
from engine.segment.rules import enforce_min_length, pauses
from engine.segment.segmentation import Segmentation
from engine.segment.text import Transcript


@dataclass(frozen=True)
class BoundaryRule:
    """How posterior, pauses and blocks turn into story starts (all chosen on training days).

    Attributes
    ----------
    threshold : float
        Smallest evidence (windowed posterior, a probability, plus the pause bonus) that makes a boundary.
    pause_seconds : float
        A pause longer than this (seconds) adds ``pause_weight`` to the evidence of the next word.
    pause_weight : float
        Evidence a long pause adds (0 switches pauses off).
    block_seconds : float
        Two or more segments in a row, each shorter than this (seconds), form one block whose
        inner boundaries go (0 switches blocks off; needs word times).
    min_words : int
        Shortest story kept, in words.
    """

    threshold: float = 0.5
    pause_seconds: float = 3.0
    pause_weight: float = 0.0
    block_seconds: float = 0.0
    min_words: int = config.MIN_STORY_WORDS

    def __post_init__(self) -> None:
        numbers = (self.threshold, self.pause_seconds, self.pause_weight, self.block_seconds)
        if not all(np.isfinite(numbers)) or min(numbers) < 0 or self.min_words < 0:
            raise ParameterError(f"boundary rule needs non-negative finite settings, got {self}")

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> BoundaryRule:
        """The rule saved by :meth:`as_dict` (unknown keys are an error)."""
        try:
            settings = {k: float(v) for k, v in values.items() if k != "min_words"}
            return cls(**settings, min_words=int(values.get("min_words", config.MIN_STORY_WORDS)))  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"not a boundary rule: {values!r}") from exc

    def story_starts(self, posterior: np.ndarray, *, pause: np.ndarray,
                     starts: np.ndarray | None = None, ends: np.ndarray | None = None) -> np.ndarray:
        """Story starts, int64 (k,), first entry 0.

        Parameters
        ----------
        posterior : float array, shape (n,)
            P(word t starts a story | all words), from forward-backward.
        pause : float array, shape (n,)
            Pause or untranscribed time before each word, seconds (0 for word 0).
        starts, ends : float arrays, shape (n,), optional
            Word times in seconds; without them there are no blocks.
        """
        p = np.asarray(posterior, dtype=np.float64)
        gap = np.asarray(pause, dtype=np.float64)
        if p.ndim != 1 or gap.shape != p.shape or not np.all(np.isfinite(p)) or not np.all(np.isfinite(gap)):
            raise ParameterError(f"posterior and pause must be finite arrays of one shape, got {p.shape}, {gap.shape}")
        n = p.shape[0]
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        bonus = self.pause_weight * (gap > self.pause_seconds)
        found = evidence_peaks(p, bonus, threshold=self.threshold, min_words=self.min_words)
        if self.block_seconds > 0 and starts is not None and ends is not None:
            found = collapse_blocks(found, starts=starts, ends=ends, max_seconds=self.block_seconds)
        strength = windowed(p)[found] + bonus[found]
        return enforce_min_length(found, n, min_words=self.min_words, strength=strength)

    def on_transcript(self, posterior: np.ndarray, transcript: Transcript) -> np.ndarray:
        """:meth:`story_starts` with the transcript's own pauses and word times."""
        return self.story_starts(posterior, pause=pauses(transcript), starts=transcript.starts, ends=transcript.ends)


def run_time_pauses(n: int, *, starts: np.ndarray | None, ends: np.ndarray | None,
                    x_duration: np.ndarray | None = None, transcribed: np.ndarray | None = None) -> np.ndarray:
    """Pause before each of ``n`` words in seconds, shape (n,), as ingest sees it.

    The detectors' ``x_duration`` when given (NaN read as 0), else the gap between word times,
    else 0; a word not ``transcribed`` gets 0 (no story starts at a word heard in music or noise).
    """
    if x_duration is not None:
        pause = np.nan_to_num(np.asarray(x_duration, dtype=np.float64), nan=0.0)
    elif starts is not None and ends is not None:
        pause = np.zeros(n)
        pause[1:] = np.maximum(np.asarray(starts, dtype=np.float64)[1:] - np.asarray(ends, dtype=np.float64)[:-1], 0)
    else:
        pause = np.zeros(n)
    if transcribed is not None:
        pause = np.where(np.asarray(transcribed, dtype=bool), pause, 0.0)
    return pause


def apply_model_rule(seg: Segmentation, rule: dict, *, starts: np.ndarray | None, ends: np.ndarray | None,
                     x_duration: np.ndarray | None = None, transcribed: np.ndarray | None = None) -> Segmentation:
    """``seg`` with its story starts placed by a model's saved boundary rule instead of the Viterbi path.

    The pause before each word is the detectors' ``x_duration`` when given, else the gap
    between word times; words not ``transcribed`` get no pause bonus (no story starts at one).
    Needs ``seg.boundary_posterior``; without it (decoding only) ``seg`` is returned unchanged.
    """
    posterior = seg.boundary_posterior
    n = posterior.shape[0]
    if n == 0 or not np.all(np.isfinite(posterior)):
        return seg
    pause = run_time_pauses(n, starts=starts, ends=ends, x_duration=x_duration, transcribed=transcribed)
    found = BoundaryRule.from_dict(rule).story_starts(posterior, pause=pause, starts=starts, ends=ends)
    confidence = np.clip(windowed(posterior)[found], 0.0, 1.0)
    confidence[found == 0] = 1.0
    return replace(seg, story_starts=found, confidence=confidence)


def blocks_collapsed(seg: Segmentation, *, block_seconds: float, starts: np.ndarray | None,
                     ends: np.ndarray | None) -> Segmentation:
    """``seg`` with the boundaries inside every block of short segments removed (see :func:`collapse_blocks`).

    ``block_seconds`` 0, or no word times, leaves ``seg`` unchanged; kept starts keep their confidence.
    """
    if block_seconds <= 0 or starts is None or ends is None or seg.story_starts.size < 2:
        return seg
    kept = collapse_blocks(seg.story_starts, starts=starts, ends=ends, max_seconds=block_seconds)
    keep = np.isin(seg.story_starts, kept)
    return replace(seg, story_starts=seg.story_starts[keep], confidence=seg.confidence[keep])


def windowed(p: np.ndarray, half_window: int = config.CONFIDENCE_HALF_WINDOW) -> np.ndarray:
    """Sum of ``p`` over ``±half_window`` words around each word, shape (n,)."""
    n = p.shape[0]
    csum = np.concatenate([[0.0], np.cumsum(p)])
    idx = np.arange(n)
    return csum[np.minimum(idx + half_window + 1, n)] - csum[np.maximum(idx - half_window, 0)]


def evidence_peaks(posterior: np.ndarray, bonus: np.ndarray, *, threshold: float, min_words: int,
                   half_window: int = config.CONFIDENCE_HALF_WINDOW) -> np.ndarray:
    """Words whose evidence (windowed posterior + bonus) peaks above ``threshold``, ``min_words`` apart.

    Parameters
    ----------
    posterior, bonus : float arrays, shape (n,)
        Start posterior of each word, and extra evidence at each word (a long pause before it).

    Returns
    -------
    ndarray of int64, shape (k,)
        Sorted starts, first entry 0. Within each window the boundary goes on the word of
        highest ``posterior + bonus``; stronger peaks are placed first.
    """
    n = posterior.shape[0]
    point = posterior + bonus
    mass = windowed(posterior, half_window) + bonus
    order = np.argsort(-mass, kind="stable")
    order = order[mass[order] >= threshold]
    blocked = np.zeros(n, dtype=bool)
    blocked[: max(min_words, 1)] = True
    blocked[max(n - min_words + 1, 1):] = True  # nor a last story under min_words
    chosen = [0]
    for i in order.tolist():
        lo, hi = max(i - half_window, 0), min(i + half_window + 1, n)
        peak = lo + int(np.argmax(point[lo:hi]))
        if blocked[peak]:
            continue
        chosen.append(peak)
        blocked[max(peak - min_words + 1, 0): peak + min_words] = True
    return np.asarray(sorted(chosen), dtype=np.int64)


def collapse_blocks(story_starts: np.ndarray, *, starts: np.ndarray, ends: np.ndarray, max_seconds: float,
                    min_run: int = 2) -> np.ndarray:
    """Boundaries inside a block of short segments removed; the block's two edges kept.

    Parameters
    ----------
    story_starts : int array, shape (k,)
        Sorted starts, first entry 0.
    starts, ends : float arrays, shape (n,)
        Word times in seconds.
    max_seconds : float
        A segment shorter than this (first word's start to last word's end) is short.
    min_run : int
        Fewest short segments in a row that make a block.

    Returns
    -------
    ndarray of int64, shape (k',)
        The kept starts (a subset of the input).
    """
    s = np.asarray(story_starts, dtype=np.int64)
    if s.size < 2:
        return s.copy()
    t0, t1 = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    edges = np.append(s, t0.shape[0])
    duration = t1[edges[1:] - 1] - t0[edges[:-1]]
    short = duration < max_seconds
    keep = np.ones(s.size, dtype=bool)
    i = 0
    while i < s.size:
        j = i
        while short[i] and j + 1 < s.size and short[j + 1]:
            j += 1
        if short[i] and j - i + 1 >= min_run:
            keep[i + 1: j + 1] = False  # the block's first start and the start after it stay
        i = j + 1
    return s[keep]
