"""Fit the laughter head (:mod:`engine.detect.laughter`) and choose its numbers in inner leave-packages-out folds.

The head is trained on the same mixtures as the sound classifier (``tools/train_detectors.py``:
laughter in pauses, under speech at -6 to -15 dB, alone; speech, telephone speech, beeps, hiss,
music and applause as the rest). Its L2 penalty, decision threshold, median window, shortest
event and longest bridged gap are chosen together by :func:`choose_laughter_head`: the sound
packages are dealt into groups, each group in turn is scored by a head fitted on the others'
scenes free of its packages, and the candidate with the best mean of event F1 (1 s collar) and
segment F1 (0.1 s) over every judged scene wins; speech-only scenes are judged too, so false
alarms cost. The zero-shot laughter score (no fit, its threshold and shaping chosen on the same
scenes) is one more candidate: where the head cannot beat it in the inner folds, it is shipped.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import numpy as np
import scipy.ndimage

from engine.detect.classifier import CLASSES, SEGMENT_SECONDS, descriptor_size
from engine.detect.features import FrameFeatures
from engine.detect.laughter import HEAD_CLASSES, LaughterHead, head_descriptors, rescaled

#: Candidate inverse L2 penalties (scikit-learn's ``C``) of the logistic head.
HEAD_CS = (0.01, 0.1, 1.0)
#: Candidate thresholds (probability), median windows, shortest events and bridged gaps (seconds).
HEAD_THRESHOLDS = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
#: The zero-shot candidate's bias: its thresholds above then sit at laughter logits -7.2 to -2.1.
ZERO_SHOT_BIAS = 5.0
HEAD_MEDIANS = (0.5, 0.9, 1.5)
HEAD_MIN_SECONDS = (0.3, 0.6, 1.0)
HEAD_GAPS = (0.5, 1.0)
#: Rows of the rest per laughter row in a fit: the rest is far more common on air.
REST_WEIGHT = 4
LAUGHTER = CLASSES.index("laughter")

Pair = tuple[np.ndarray, np.ndarray]


def laughter_pairs(features: Sequence[FrameFeatures], labels: Sequence[np.ndarray]) -> list[Pair]:
    """Head descriptors ``(n_segments, n_dims)`` and laughter truth ``(n_segments,)`` bool of each scene."""
    out = []
    for f, y in zip(features, labels, strict=True):
        x = head_descriptors(f, HEAD_CLASSES)
        out.append((x, np.asarray(y[: len(x)]) == LAUGHTER))
    return out


def fit_laughter_head(pairs: Sequence[Pair], *, c: float = 0.1, seed: int = 0, max_rows: int = 40000) -> LaughterHead:
    """A logistic head fitted on ``pairs`` (laughter rows and ``REST_WEIGHT`` times as many other rows), default shaping."""
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate([p[0] for p in pairs])
    y = np.concatenate([p[1] for p in pairs])
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    if not len(pos) or not len(neg):
        raise ValueError("the laughter head needs segments with and without laughter")
    n_pos = min(len(pos), max_rows // (1 + REST_WEIGHT))
    rows = np.concatenate([rng.choice(pos, n_pos, replace=False),
                           rng.choice(neg, min(len(neg), n_pos * REST_WEIGHT), replace=False)])  # fmt: skip
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    net = LogisticRegression(C=c, max_iter=500)
    net.fit((x[rows] - mean) / scale, y[rows])
    return LaughterHead(mean, scale, net.coef_[0].astype(np.float64), float(net.intercept_[0]))


def spans(mask: np.ndarray) -> list[tuple[float, float]]:
    """(start, end) seconds of the runs of True in a per-segment mask."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return [
        (a * SEGMENT_SECONDS, b * SEGMENT_SECONDS)
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True)
    ]


def event_counts(
    truth: Sequence[tuple[float, float]], found: Sequence[tuple[float, float]], *, collar: float = 1.0
) -> tuple[int, int, int]:
    """(hits, truth events, found events): a hit pairs onsets within ``collar`` s and offsets within
    ``collar`` s or half the true event, each event used once (sed_eval's event-based rule)."""
    used: set[int] = set()
    hits = 0
    for a, b in truth:
        for j, (c, d) in enumerate(found):
            if j not in used and abs(c - a) <= collar and abs(d - b) <= max(collar, 0.5 * (b - a)):
                used.add(j)
                hits += 1
                break
    return hits, len(truth), len(found)


def _f1(hits: int, n_true: int, n_found: int) -> float:
    return 2 * hits / max(1, n_true + n_found)


def shaping_scores(probs: Sequence[np.ndarray], truths: Sequence[np.ndarray]) -> dict[tuple[float, float, float, float], float]:
    """Mean of event F1 and segment F1 over the scenes, for every (threshold, median, shortest, gap) candidate,
    from unsmoothed probabilities per scene ``(n_segments,)`` and truth masks."""
    true_events = [spans(t) for t in truths]
    out = {}
    for median in HEAD_MEDIANS:
        width = max(1, round(median / SEGMENT_SECONDS)) | 1
        smooth = [scipy.ndimage.median_filter(p, size=width, mode="nearest") if len(p) else p for p in probs]
        for threshold, shortest, gap in itertools.product(HEAD_THRESHOLDS, HEAD_MIN_SECONDS, HEAD_GAPS):
            head = LaughterHead(np.zeros(1), np.ones(1), np.zeros(1), 0.0, threshold, median, shortest, gap)
            ev, seg = np.zeros(3), np.zeros(3)
            for s, t, te in zip(smooth, truths, true_events, strict=True):
                if not len(s) or s.max() < threshold:  # nothing found: only misses to count
                    ev[1] += len(te)
                    seg[1] += t.sum()
                    continue
                found = head.events(rescaled(s, threshold))
                ev += event_counts(te, [(e.start, e.end) for e in found])
                mask = np.zeros(len(t), dtype=bool)
                for e in found:
                    mask[round(e.start / SEGMENT_SECONDS) : round(e.end / SEGMENT_SECONDS)] = True
                seg += (np.sum(mask & t), t.sum(), mask.sum())
            out[(threshold, median, shortest, gap)] = 0.5 * (_f1(*ev.astype(int)) + _f1(*seg.astype(int)))
    return out


def choose_laughter_head(packages: Sequence[str], pairs: Sequence[Pair], *, speech_packages: Sequence[str] | None = None,
                         seed: int = 0, n_inner: int = 3) -> tuple[LaughterHead, dict[str, object]]:  # fmt: skip
    """The head fitted on every pair, with ``C`` and its shaping chosen in inner leave-packages-out folds; or, when
    it scores better there, the zero-shot score (YAMNet's largest laughter logit) with its own shaping.

    ``packages`` names each scene's sound package ("" for a scene of speech, beeps or hiss only);
    ``speech_packages`` each scene's speech package, kept out of a fold's training with its group.
    """
    speech_packages = speech_packages or [""] * len(pairs)
    sound_packages = sorted({p for p in packages if p})
    groups = [set(sound_packages[i::n_inner]) for i in range(n_inner)]
    home = [next((g for g, grp in enumerate(groups) if p in grp), 0) if p else i % n_inner for i, p in enumerate(packages)]
    best: tuple[float, float | None, tuple[float, float, float, float]] = (-1.0, HEAD_CS[0], (0.5, 0.9, 0.6, 0.5))
    table: dict[str, float] = {}
    size = pairs[0][0].shape[1]
    zero_shot = LaughterHead(np.zeros(size), np.ones(size), np.zeros(size), ZERO_SHOT_BIAS, zero_shot=True)
    readable = size == descriptor_size(len(HEAD_CLASSES))  # descriptors that hold the laughter logits
    for c in (*HEAD_CS, None) if readable else HEAD_CS:  # None: the zero-shot score, no fit
        probs, truths = [], []
        if c is None:
            probs = [zero_shot.probabilities(x) for x, _ in pairs]
            truths = [y for _, y in pairs]
        for g, group in enumerate(groups if c is not None else []):
            train = [d for d, h, p, sp in zip(pairs, home, packages, speech_packages, strict=True)
                     if h != g and not group & {p, sp}]  # fmt: skip
            judged = [d for d, h in zip(pairs, home, strict=True) if h == g]
            if not judged or not any(y.any() for _, y in train):
                continue
            head = fit_laughter_head(train, c=c, seed=seed)
            probs += [head.probabilities(x) for x, _ in judged]
            truths += [y for _, y in judged]
        for shape, score in shaping_scores(probs, truths).items():
            table[f"C={c} threshold={shape[0]} median={shape[1]} min={shape[2]} gap={shape[3]}"] = round(score, 4)
            if score > best[0]:
                best = (score, c, shape)
    score, c, (threshold, median, shortest, gap) = best
    head = fit_laughter_head(pairs, c=c, seed=seed) if c is not None else zero_shot
    chosen = dataclasses.replace(head, threshold=threshold, median_seconds=median, min_seconds=shortest, gap_seconds=gap)
    info: dict[str, object] = {"C": c if c is not None else "zero-shot", "threshold": threshold, "median_seconds": median,
                               "min_seconds": shortest, "gap_seconds": gap, "inner_score": round(float(score), 4)}  # fmt: skip
    return chosen, info
