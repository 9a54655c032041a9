"""Fitting the boundary combiner (:mod:`engine.segment.combiner`) on held-out decodes of training days.

Protocol, given training days each decoded by an HMM trained *without* it (inner
leave-one-day-out decodes):

1. for every training day in turn, the logistic weights are fitted on the other training
   days' candidates and the day's candidates are scored with them, so every probability
   used to choose a setting is itself held out;
2. the decoding settings (threshold, minimum story length, block length) are chosen on those
   held-out probabilities by :func:`setting_cost`: with peers, the mean over days of the largest
   ratio of our C_seg, Pk or WindowDiff to a peer's (below 1: beats every peer on every measure);
3. the weights are refitted on all training days' candidates and shipped with the settings.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.research.segment.gap_rule import fit_gap_threshold
from engine.segment import config
from engine.segment.combiner import (
    ALL_CUE_NAMES,
    CUE_NAMES,
    BoundaryCombiner,
    BoundaryCues,
    boundary_cues,
    decode_candidates,
    start_probability,
)
from engine.segment.rules import gap_rule_starts, pauses
from engine.segment.text import Transcript

#: Decoding settings searched by :func:`fit_combiner` (every combination).
GRID_THRESHOLD = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8)
GRID_MIN_WORDS = (30, 60, 100, 150)
GRID_BLOCK_SECONDS = (0.0, 30.0, 60.0)
#: L2 penalty on the standardised weights (the intercept is free).
L2_PENALTY = 1.0
#: A true story start within this many words of a candidate makes the nearest candidate a positive.
LABEL_TOLERANCE_WORDS = 3


@dataclass(frozen=True)
class DecodedDay:
    """One transcript with its true story starts, decoded by an HMM trained without it.

    Attributes
    ----------
    transcript : Transcript
    viterbi : int64 array (m,)
        Viterbi story starts.
    posterior : float64 array (n,)
        Start posterior of every word.
    """

    transcript: Transcript
    viterbi: np.ndarray
    posterior: np.ndarray

    def cues(self, gap_seconds: float) -> BoundaryCues:
        t = self.transcript
        return boundary_cues(posterior=self.posterior, viterbi_starts=self.viterbi, pause=pauses(t),
                             words=t.words, sentence_starts=t.sentence_starts, starts=t.starts, ends=t.ends,
                             gap_seconds=gap_seconds, speaker_changes=t.speaker_changes)


def candidate_labels(positions: np.ndarray, true_starts: np.ndarray,
                     tolerance: int = LABEL_TOLERANCE_WORDS) -> np.ndarray:
    """1.0 for the candidate nearest each true start (within ``tolerance`` words), else 0.0, shape (k,)."""
    pos = np.asarray(positions, dtype=np.int64)
    y = np.zeros(pos.shape[0])
    if pos.size == 0:
        return y
    for s in np.asarray(true_starts, dtype=np.int64).tolist():
        j = int(np.argmin(np.abs(pos - s)))
        if abs(int(pos[j]) - s) <= tolerance:
            y[j] = 1.0
    return y


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = L2_PENALTY,
                 iterations: int = 50) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """L2-penalised logistic regression by Newton's method on standardised columns.

    Parameters
    ----------
    x : float array, shape (k, f)
    y : float array, shape (k,), values 0 or 1

    Returns
    -------
    weights (f + 1,), intercept first; mean (f,); scale (f,) of the standardisation.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],) or x.shape[0] == 0:
        raise ParameterError(f"logistic fit needs x (k, f) and y (k,), got {x.shape} and {y.shape}")
    if not 0 < y.sum() < y.size:
        raise ParameterError(f"logistic fit needs both classes, got {int(y.sum())} positives of {y.size}")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    design = np.column_stack([np.ones(x.shape[0]), (x - mean) / scale])
    w = np.zeros(design.shape[1])
    w[0] = np.log(y.mean() / (1 - y.mean()))
    ridge = np.full(design.shape[1], l2)
    ridge[0] = 0.0

    def loss(v: np.ndarray) -> float:
        score = design @ v
        return float(np.sum(np.logaddexp(0.0, score) - y * score) + 0.5 * np.sum(ridge * v * v))

    current = loss(w)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ w, -50, 50)))
        grad = design.T @ (p - y) + ridge * w
        hess = (design * (p * (1 - p))[:, None]).T @ design + np.diag(ridge) + 1e-9 * np.eye(w.size)
        step = np.linalg.solve(hess, grad)
        size = 1.0
        while loss(w - size * step) > current and size > 1e-6:  # damped: a full Newton step can overshoot
            size *= 0.5
        w = w - size * step
        previous, current = current, loss(w)
        if previous - current < 1e-10 * max(abs(previous), 1.0):
            break
    return w, mean, scale


def _columns(cue_names: Sequence[str]) -> list[int]:
    return [ALL_CUE_NAMES.index(name) for name in cue_names]


def _stack(days: Sequence[tuple[BoundaryCues, Transcript]],
           cue_names: Sequence[str] = CUE_NAMES) -> tuple[np.ndarray, np.ndarray]:
    x = np.concatenate([c.values[:, _columns(cue_names)] for c, _ in days])
    y = np.concatenate([candidate_labels(c.positions, t.story_starts) for c, t in days])
    return x, y


def _measures(found: np.ndarray, transcript: Transcript) -> np.ndarray:
    s = score_documents([transcript.story_starts], [found], [len(transcript)])
    return np.array([s.tdt_cost, s.pk, s.windowdiff])


def setting_cost(measures: Sequence[np.ndarray], peers: Sequence[np.ndarray] | None) -> float:
    """Mean over days of the largest ratio ours / peer over C_seg, Pk, WindowDiff (without peers: their sum).

    ``measures``: per day our (3,) scores; ``peers``: per day the peers' (m, 3) scores.
    """
    total = 0.0
    for k, own in enumerate(measures):
        if peers is None:
            total += float(np.sum(own))
        else:
            total += float(np.max(own[None, :] / np.maximum(np.asarray(peers[k]), 1e-9)))
    return total / len(measures)


def held_out_probabilities(cues: Sequence[BoundaryCues], transcripts: Sequence[Transcript], *,
                           l2: float = L2_PENALTY, cue_names: Sequence[str] = CUE_NAMES) -> list[np.ndarray]:
    """For each day, its candidates' probabilities under weights fitted on the other days only."""
    out = []
    for i in range(len(cues)):
        others = [(c, t) for j, (c, t) in enumerate(zip(cues, transcripts, strict=True)) if j != i]
        w, mean, scale = fit_logistic(*_stack(others, cue_names), l2=l2)
        out.append(start_probability(cues[i].values[:, _columns(cue_names)], w, mean, scale))
    return out


def fit_combiner(decoded: Sequence[DecodedDay], *, gap_seconds: float,
                 peers: Sequence[np.ndarray] | None = None, l2: float = L2_PENALTY,
                 cue_names: Sequence[str] = CUE_NAMES) -> BoundaryCombiner:
    """The combiner chosen on held-out decodes of training days (protocol in the module docstring).

    Parameters
    ----------
    decoded : sequence of DecodedDay, at least 2
        Training days, each decoded by an HMM trained without it.
    gap_seconds : float
        The caption-gap threshold fitted on the same training days, seconds.
    peers : sequence of float arrays (m, 3), optional
        Per day, C_seg, Pk and WindowDiff of the systems to beat on it.
    cue_names : sequence of str
        :data:`CUE_NAMES`, or :data:`SPEAKER_CUE_NAMES` or :data:`TURN_CUE_NAMES` to read the days' speaker
        changes too (``Transcript.speaker_changes``).
    """
    if len(decoded) < 2:
        raise ParameterError(f"fitting the combiner needs at least 2 decoded days, got {len(decoded)}")
    if peers is not None and len(peers) != len(decoded):
        raise ParameterError(f"peers has {len(peers)} entries for {len(decoded)} decoded days")
    cues = [d.cues(gap_seconds) for d in decoded]
    transcripts = [d.transcript for d in decoded]
    probs = held_out_probabilities(cues, transcripts, l2=l2, cue_names=cue_names)
    best, best_cost = (0.5, config.MIN_STORY_WORDS, 0.0), np.inf
    for threshold, min_words, block in itertools.product(GRID_THRESHOLD, GRID_MIN_WORDS, GRID_BLOCK_SECONDS):
        measures = [_measures(decode_candidates(c.positions, p, n_words=len(t), threshold=threshold,
                                                min_words=min_words, block_seconds=block, starts=t.starts,
                                                ends=t.ends), t)
                    for c, p, t in zip(cues, probs, transcripts, strict=True)]
        cost = setting_cost(measures, peers)
        if cost < best_cost - 1e-12:
            best, best_cost = (threshold, min_words, block), cost
    w, mean, scale = fit_logistic(*_stack(list(zip(cues, transcripts, strict=True)), cue_names), l2=l2)
    return BoundaryCombiner(weights=tuple(w.tolist()), mean=tuple(mean.tolist()), scale=tuple(scale.tolist()),
                            threshold=best[0], min_words=int(best[1]), block_seconds=best[2],
                            gap_seconds=float(gap_seconds), cue_names=tuple(cue_names))


def oracle_sweep(combiner: BoundaryCombiner, day: DecodedDay, peers: np.ndarray,
                 thresholds: Sequence[float] = tuple(np.round(np.arange(0.02, 1.0, 0.02), 2))) -> dict:
    """Best C_seg any decoding setting reaches on ``day`` with Pk and WindowDiff at or below every peer's.

    Reads the truth of ``day``, so it is a ceiling of the combiner's cues and weights, not a
    system: every threshold in ``thresholds``, minimum story length and block length of the
    grids is tried with the combiner's weights. ``peers`` is (m, 3): C_seg, Pk, WindowDiff of
    the systems to beat on the day (the first row is the one whose C_seg is compared). Returns
    the best setting and its measures, ``reachable`` False when no setting keeps Pk and
    WindowDiff at or below every peer's, and ``beats_first_peer`` when its C_seg is also lower
    than the first peer's.
    """
    t = day.transcript
    bar = np.asarray(peers, dtype=np.float64).reshape(-1, 3)
    cues = day.cues(combiner.gap_seconds)
    prob = combiner.probability(cues.values)
    best: dict = {"reachable": False, "beats_first_peer": False}
    for threshold, min_words, block in itertools.product(thresholds, GRID_MIN_WORDS, GRID_BLOCK_SECONDS):
        found = decode_candidates(cues.positions, prob, n_words=len(t), threshold=float(threshold),
                                  min_words=min_words, block_seconds=block, starts=t.starts, ends=t.ends)
        m = _measures(found, t)
        if m[1] <= bar[:, 1].min() and m[2] <= bar[:, 2].min() and (not best["reachable"] or m[0] < best["c_seg"]):
            best = {"reachable": True, "threshold": float(threshold), "min_words": int(min_words),
                    "block_seconds": float(block), "c_seg": float(m[0]), "pk": float(m[1]),
                    "windowdiff": float(m[2]), "beats_first_peer": bool(m[0] < bar[0, 0])}
    return best


def gap_rule_and_no_boundary(train: Sequence[Transcript], day: Transcript) -> np.ndarray:
    """C_seg, Pk, WindowDiff on ``day`` of the gap rule (T fitted on ``train``) and of no boundary, shape (2, 3)."""
    found = (gap_rule_starts(day, threshold=fit_gap_threshold(train)), np.zeros(1, dtype=np.int64))
    return np.stack([_measures(f, day) for f in found])


def fit_shipped_combiner(decoded: Sequence[DecodedDay], cue_names: Sequence[str] = CUE_NAMES) -> BoundaryCombiner:
    """The combiner for a shipped model: every day decoded by a model trained on the other days.

    The gap rule's T is fitted on all the days; on each day the peers to beat are the gap
    rule fitted on the other days and no boundary.
    """
    days = [d.transcript for d in decoded]
    peers = [gap_rule_and_no_boundary([t for t in days if t is not day], day) for day in days]
    return fit_combiner(decoded, gap_seconds=fit_gap_threshold(days), peers=peers, cue_names=cue_names)
