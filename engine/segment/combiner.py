"""A learned boundary decision over candidate positions: the HMM's posterior with cues that travel.

The HMM's Viterbi path under-segments new channels. The combiner reads, at every candidate
position (word 0, every sentence start and every word after a pause), a short vector of
cues that carry across channels and turns it into a story-start probability with a logistic
regression; boundaries are then placed greedily on the most probable candidates, at least
``min_words`` apart, and blocks of short segments are collapsed into one (as on the Viterbi
path). The weights and every decoding setting are fitted on held-out decodes of training days
by :mod:`engine.research.segment.combiner_fit`; this module only applies them.

Cues, one row per candidate (:data:`CUE_NAMES`):

* ``posterior``: the HMM's start posterior summed over ±5 words, clipped to [0, 1];
* ``posterior_logit``: its log-odds (clipped to ±10), so both a linear and a saturating reading exist;
* ``viterbi_near``: 1 if the Viterbi path starts a story within ±5 words;
* ``log_pause``: ``log(1 + pause)`` of the pause (or untranscribed time) before the word, seconds;
* ``gap_rule``: 1 if the pause is longer than the caption-gap threshold ``gap_seconds``;
* ``sentence_start``: 1 if the source's punctuation opens a sentence at the word;
* ``cohesion_near``, ``cohesion_far``: 1 - cosine of the content-word counts of the
  ``COHESION_NEAR_WORDS`` / ``COHESION_FAR_WORDS`` words on either side (TextTiling's gap score);
* ``log_spot_seconds``: ``log(1 + s)`` of the time from the previous long pause to the next one,
  seconds: commercial spots are 15-60 s runs between long pauses;
* speaker cues (optional, :data:`SPEAKER_CUES`): ``speaker_change``, 1 if a speaker turn starts
  within ±``SPEAKER_CHANGE_WORDS`` words of the candidate; ``log_turn_words`` and
  ``log_previous_turn_words``, ``log(1 + words)`` of the turn that starts there and of the one
  before it (0 with no turn start near). Only a combiner fitted with them reads them; a
  recording without speaker turns is decoded by the combiner fitted without them (a 0 there
  would read as "the same speaker goes on", which is not what "unknown" means).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from engine.errors import ParameterError
from engine.segment import config
from engine.segment.boundaries import collapse_blocks, run_time_pauses, windowed
from engine.segment.segmentation import Segmentation

CUE_NAMES = ("posterior", "posterior_logit", "viterbi_near", "log_pause", "gap_rule", "sentence_start",
             "cohesion_near", "cohesion_far", "log_spot_seconds")
SPEAKER_CUE = "speaker_change"
SPEAKER_CUES = (SPEAKER_CUE, "log_turn_words", "log_previous_turn_words")
#: Every cue :func:`boundary_cues` computes, in its column order; a combiner reads a subset by name.
ALL_CUE_NAMES = (*CUE_NAMES, *SPEAKER_CUES)
#: The shipped cues with the speaker change alone, and with the turn lengths too.
SPEAKER_CUE_NAMES = (*CUE_NAMES, SPEAKER_CUE)
TURN_CUE_NAMES = ALL_CUE_NAMES
SPEAKER_CHANGE_WORDS = config.COMBINER_SPEAKER_CHANGE_WORDS
COHESION_NEAR_WORDS = config.COMBINER_COHESION_NEAR_WORDS
COHESION_FAR_WORDS = config.COMBINER_COHESION_FAR_WORDS
CANDIDATE_PAUSE_SECONDS = config.COMBINER_CANDIDATE_PAUSE_SECONDS
COHESION_SHORT_WORD = config.COMBINER_COHESION_SHORT_WORD


@dataclass(frozen=True)
class BoundaryCues:
    """Candidate positions of one word sequence and their cues.

    Attributes
    ----------
    positions : int64 array, shape (k,)
        Candidate word indices, sorted, first entry 0.
    values : float64 array, shape (k, len(ALL_CUE_NAMES))
        One row of cues per candidate, columns in :data:`ALL_CUE_NAMES` order.
    """

    positions: np.ndarray
    values: np.ndarray


def candidate_positions(pause: np.ndarray, sentence_starts: np.ndarray | None = None) -> np.ndarray:
    """Word 0, every sentence start and every word after a pause > CANDIDATE_PAUSE_SECONDS, int64 (k,)."""
    n = pause.shape[0]
    mask = np.asarray(pause, dtype=np.float64) > CANDIDATE_PAUSE_SECONDS
    if sentence_starts is not None and len(sentence_starts):
        ss = np.asarray(sentence_starts, dtype=np.int64)
        mask[ss[(ss >= 0) & (ss < n)]] = True
    if n:
        mask[0] = True
    return np.flatnonzero(mask).astype(np.int64)


def cohesion_gap(words: list[str], positions: np.ndarray, *, width: int) -> np.ndarray:
    """1 - cosine of the content-word counts of ``width`` words before and from each position, float64 (k,).

    A position with no content word on one side scores 1 (nothing in common).
    """
    content = [w if len(w) > COHESION_SHORT_WORD else "" for w in words]
    out = np.ones(len(positions))
    for k, p in enumerate(np.asarray(positions).tolist()):
        left = Counter(w for w in content[max(p - width, 0):p] if w)
        right = Counter(w for w in content[p:p + width] if w)
        if not left or not right:
            continue
        dot = sum(c * right[w] for w, c in left.items() if w in right)
        norm = np.sqrt(sum(c * c for c in left.values()) * sum(c * c for c in right.values()))
        out[k] = 1.0 - dot / norm
    return out


def spot_seconds(pause: np.ndarray, starts: np.ndarray | None, ends: np.ndarray | None, *,
                 gap_seconds: float) -> np.ndarray:
    """Seconds from the last pause > ``gap_seconds`` at or before each word to the next one after it, (n,).

    Without word times every value is 0.
    """
    n = pause.shape[0]
    if starts is None or ends is None or n == 0:
        return np.zeros(n)
    t0, t1 = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    breaks = np.flatnonzero(pause > gap_seconds)
    breaks = np.union1d(breaks, [0]).astype(np.int64)
    run = np.searchsorted(breaks, np.arange(n), side="right") - 1  # the run each word belongs to
    run_end = np.append(breaks[1:], n) - 1  # last word of each run
    return np.maximum(t1[run_end[run]] - t0[breaks[run]], 0.0)


def speaker_turn_cues(positions: np.ndarray, speaker_changes: np.ndarray | None, *, n_words: int,
                      reach: int = SPEAKER_CHANGE_WORDS) -> np.ndarray:
    """The :data:`SPEAKER_CUES` of every position, float64 (k, 3).

    Columns: ``speaker_change``, 1 if a turn starts within ±``reach`` words; ``log(1 + words)`` of the turn
    starting at the turn start nearest the position (within ±``reach`` words; ties go to the
    earlier) and of the turn before it (from word 0 for the first). 0 where no turn starts near.
    """
    pos = np.asarray(positions, dtype=np.int64)
    out = np.zeros((pos.shape[0], len(SPEAKER_CUES)))
    if speaker_changes is None or n_words == 0 or pos.size == 0:
        return out
    turns = np.unique(np.asarray(speaker_changes, dtype=np.int64))
    turns = turns[(turns >= 0) & (turns < n_words)]
    if turns.size == 0:
        return out
    right = np.clip(np.searchsorted(turns, pos), 0, turns.size - 1)
    left = np.clip(right - 1, 0, turns.size - 1)
    nearest = np.where(np.abs(turns[left] - pos) <= np.abs(turns[right] - pos), left, right)
    near = np.abs(turns[nearest] - pos) <= reach
    following = np.append(turns[1:], n_words)[nearest] - turns[nearest]
    previous = turns[nearest] - np.concatenate([[0], turns[:-1]])[nearest]
    out[:, 0] = near
    out[:, 1] = np.where(near, np.log1p(following), 0.0)
    out[:, 2] = np.where(near, np.log1p(previous), 0.0)
    return out


def boundary_cues(*, posterior: np.ndarray, viterbi_starts: np.ndarray, pause: np.ndarray, words: list[str],
                  sentence_starts: np.ndarray | None, starts: np.ndarray | None, ends: np.ndarray | None,
                  gap_seconds: float, speaker_changes: np.ndarray | None = None) -> BoundaryCues:
    """The cues of every candidate position of one word sequence (see the module docstring).

    Parameters
    ----------
    posterior : float array, shape (n,)
        P(word t starts a story | all words) from forward-backward.
    viterbi_starts : int array, shape (m,)
        Story starts on the Viterbi path.
    pause : float array, shape (n,)
        Pause or untranscribed time before each word, seconds.
    words : list of str, length n
    sentence_starts : int array, optional
        Words that open a sentence (from punctuation); None or empty when the source has none.
    starts, ends : float arrays, shape (n,), optional
        Word times in seconds.
    gap_seconds : float
        The caption-gap rule's threshold, seconds.
    speaker_changes : int array, optional
        Words at which a new speaker starts; None when the recording has no speaker turns.
    """
    p = np.asarray(posterior, dtype=np.float64)
    gap = np.asarray(pause, dtype=np.float64)
    n = p.shape[0]
    if p.ndim != 1 or gap.shape != p.shape or len(words) != n:
        raise ParameterError(f"posterior, pause and words must have one length, got {p.shape}, {gap.shape}, "
                             f"{len(words)}")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(gap))):
        raise ParameterError("posterior and pause must be finite")
    pos = candidate_positions(gap, sentence_starts)
    w = np.clip(windowed(p)[pos], 0.0, 1.0)
    logit = np.clip(np.log(np.maximum(w, 1e-12)) - np.log(np.maximum(1.0 - w, 1e-12)), -10.0, 10.0)
    vit = np.zeros(n)
    near = np.asarray(viterbi_starts, dtype=np.int64)
    vit[near[(near >= 0) & (near < n)]] = 1.0
    vit_near = windowed(vit)[pos] > 0
    sent = np.zeros(n, dtype=bool)
    if sentence_starts is not None and len(sentence_starts):
        sent[np.asarray(sentence_starts, dtype=np.int64)] = True
    spot = spot_seconds(gap, starts, ends, gap_seconds=gap_seconds)
    values = np.column_stack([
        w, logit, vit_near.astype(np.float64), np.log1p(gap[pos]), (gap[pos] > gap_seconds).astype(np.float64),
        sent[pos].astype(np.float64), cohesion_gap(words, pos, width=COHESION_NEAR_WORDS),
        cohesion_gap(words, pos, width=COHESION_FAR_WORDS), np.log1p(spot[pos]),
        speaker_turn_cues(pos, speaker_changes, n_words=n),
    ])
    return BoundaryCues(positions=pos, values=values)


@dataclass(frozen=True)
class BoundaryCombiner:
    """Logistic weights over the cues and the decoding settings (all chosen on training days).

    Attributes
    ----------
    weights : tuple of float, length len(CUE_NAMES) + 1
        Intercept first, then one weight per standardised cue.
    mean, scale : tuple of float, length len(CUE_NAMES)
        Standardisation of each cue (training mean and standard deviation).
    threshold : float
        Smallest story-start probability that places a boundary, in [0, 1].
    min_words : int
        Fewest words between two chosen boundaries (and the story floor).
    block_seconds : float
        Runs of two or more segments shorter than this (seconds) become one block (0: off).
    gap_seconds : float
        The caption-gap threshold the ``gap_rule`` and ``log_spot_seconds`` cues use, seconds.
    """

    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float = 0.5
    min_words: int = config.MIN_STORY_WORDS
    block_seconds: float = 0.0
    gap_seconds: float = 3.0
    cue_names: tuple[str, ...] = field(default=CUE_NAMES)

    def __post_init__(self) -> None:
        k = len(self.cue_names)
        if len(self.weights) != k + 1 or len(self.mean) != k or len(self.scale) != k:
            raise ParameterError(f"combiner needs {k + 1} weights and {k} means and scales, got "
                                 f"{len(self.weights)}, {len(self.mean)}, {len(self.scale)}")
        numbers = (*self.weights, *self.mean, *self.scale, self.threshold, self.block_seconds, self.gap_seconds)
        if not all(np.isfinite(numbers)) or min(self.scale) <= 0 or not 0 <= self.threshold <= 1:
            raise ParameterError(f"combiner settings out of range: threshold {self.threshold}, "
                                 f"scales {self.scale}")
        if self.min_words < 0 or self.block_seconds < 0 or self.gap_seconds < 0:
            raise ParameterError(f"combiner needs non-negative lengths, got min_words {self.min_words}, "
                                 f"block_seconds {self.block_seconds}, gap_seconds {self.gap_seconds}")
        names, extra = tuple(self.cue_names[:len(CUE_NAMES)]), tuple(self.cue_names[len(CUE_NAMES):])
        if names != CUE_NAMES or extra != tuple(c for c in SPEAKER_CUES if c in extra):
            raise ParameterError(f"combiner was fitted on cues {self.cue_names}, this version computes "
                                 f"{CUE_NAMES} and optionally, in this order, {SPEAKER_CUES}")

    @property
    def uses_speakers(self) -> bool:
        """Whether the combiner reads the ``speaker_change`` cue (so wants speaker turns)."""
        return any(name in SPEAKER_CUES for name in self.cue_names)

    def columns(self, values: np.ndarray) -> np.ndarray:
        """The combiner's own cues from rows of every cue (k, len(ALL_CUE_NAMES)) or of its own (k, len(cue_names))."""
        v = np.asarray(values, dtype=np.float64)
        if v.ndim == 2 and v.shape[1] == len(self.cue_names):
            return v
        if v.ndim == 2 and v.shape[1] == len(ALL_CUE_NAMES):
            return v[:, [ALL_CUE_NAMES.index(name) for name in self.cue_names]]
        raise ParameterError(f"cues must have {len(self.cue_names)} or {len(ALL_CUE_NAMES)} columns, got {v.shape}")

    def as_dict(self) -> dict:
        out = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}

    @classmethod
    def from_dict(cls, values: dict) -> BoundaryCombiner:
        """The combiner saved by :meth:`as_dict` (a malformed one raises ParameterError)."""
        try:
            return cls(weights=tuple(float(x) for x in values["weights"]),
                       mean=tuple(float(x) for x in values["mean"]), scale=tuple(float(x) for x in values["scale"]),
                       threshold=float(values["threshold"]), min_words=int(values["min_words"]),
                       block_seconds=float(values["block_seconds"]), gap_seconds=float(values["gap_seconds"]),
                       cue_names=tuple(str(x) for x in values.get("cue_names", CUE_NAMES)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ParameterError(f"not a boundary combiner: {values!r}") from exc

    def probability(self, cues: np.ndarray) -> np.ndarray:
        """Story-start probability of every candidate, float64 (k,), from cues (k, f) (see :meth:`columns`)."""
        return start_probability(self.columns(cues), np.asarray(self.weights), np.asarray(self.mean), np.asarray(self.scale))

    def story_starts(self, cues: BoundaryCues, *, n_words: int, starts: np.ndarray | None = None,
                     ends: np.ndarray | None = None) -> np.ndarray:
        """Story starts, int64 (k,), first entry 0: greedy on the probabilities, then blocks."""
        prob = self.probability(cues.values)
        return decode_candidates(cues.positions, prob, n_words=n_words, threshold=self.threshold,
                                 min_words=self.min_words, block_seconds=self.block_seconds,
                                 starts=starts, ends=ends)


def start_probability(cues: np.ndarray, weights: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Logistic probability of rows of ``cues`` (k, f) with ``weights`` (f + 1,), intercept first, float64 (k,)."""
    z = (np.asarray(cues, dtype=np.float64) - mean) / scale
    score = weights[0] + z @ weights[1:]
    return 1.0 / (1.0 + np.exp(-np.clip(score, -50.0, 50.0)))


def decode_candidates(positions: np.ndarray, probability: np.ndarray, *, n_words: int, threshold: float,
                      min_words: int, block_seconds: float = 0.0, starts: np.ndarray | None = None,
                      ends: np.ndarray | None = None) -> np.ndarray:
    """Greedy boundaries: most probable candidates first, each at least ``min_words`` from the others.

    Parameters
    ----------
    positions : int array, shape (k,)
        Candidate word indices.
    probability : float array, shape (k,)
        Story-start probability of each candidate.

    Returns
    -------
    ndarray of int64, shape (m,)
        Sorted starts, first entry 0; no story (the last included) shorter than ``min_words``,
        and, with word times and ``block_seconds`` > 0, runs of short segments collapsed.
    """
    pos = np.asarray(positions, dtype=np.int64)
    prob = np.asarray(probability, dtype=np.float64)
    order = np.argsort(-prob, kind="stable")
    order = order[prob[order] >= threshold]
    blocked = np.zeros(max(n_words, 1), dtype=bool)
    reach = max(min_words, 1)
    blocked[:reach] = True
    blocked[max(n_words - min_words + 1, 1):] = True
    chosen = [0]
    for i in order.tolist():
        p = int(pos[i])
        if p <= 0 or p >= n_words or blocked[p]:
            continue
        chosen.append(p)
        blocked[max(p - reach + 1, 0): p + reach] = True
    found = np.asarray(sorted(chosen), dtype=np.int64)
    if block_seconds > 0 and starts is not None and ends is not None:
        found = collapse_blocks(found, starts=starts, ends=ends, max_seconds=block_seconds)
    return found


def apply_model_combiner(seg: Segmentation, combiner: dict, *, words: list[str], starts: np.ndarray | None,
                         ends: np.ndarray | None, sentence_starts: np.ndarray | None = None,
                         x_duration: np.ndarray | None = None,
                         transcribed: np.ndarray | None = None,
                         speaker_changes: np.ndarray | None = None) -> Segmentation:
    """``seg`` with its story starts placed by a model's saved combiner instead of the Viterbi path.

    The pause before each word is the detectors' ``x_duration`` when given, else the gap
    between word times; words not ``transcribed`` are no candidates and add no pause. Needs
    ``seg.boundary_posterior``; without it (decoding only) ``seg`` is returned unchanged.
    ``speaker_changes`` (word indices where a speaker turn starts) feed the speaker cues of a
    combiner fitted with them; the shipped models carry none (docs/segmentation.md says why).
    """
    posterior = seg.boundary_posterior
    n = posterior.shape[0]
    if n == 0 or not np.all(np.isfinite(posterior)):
        return seg
    pause = run_time_pauses(n, starts=starts, ends=ends, x_duration=x_duration, transcribed=transcribed)
    rule = BoundaryCombiner.from_dict(combiner)
    cues = boundary_cues(posterior=posterior, viterbi_starts=seg.story_starts, pause=pause, words=words,
                         sentence_starts=sentence_starts, starts=starts, ends=ends, gap_seconds=rule.gap_seconds,
                         speaker_changes=speaker_changes)
    if transcribed is not None:  # no story starts at a word heard in music or noise
        heard = np.asarray(transcribed, dtype=bool)[cues.positions] | (cues.positions == 0)
        cues = BoundaryCues(positions=cues.positions[heard], values=cues.values[heard])
    found = rule.story_starts(cues, n_words=n, starts=starts, ends=ends)
    confidence = np.clip(windowed(posterior)[found], 0.0, 1.0)
    confidence[found == 0] = 1.0
    return replace(seg, story_starts=found, confidence=confidence)

