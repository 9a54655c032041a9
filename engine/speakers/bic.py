"""The classic model-free baseline: MFCC, BIC speaker-change detection, BIC agglomerative clustering.

As in Chen & Gopalakrishnan (1998) and the LIUM broadcast-news system: each
speech region is cut where the Bayesian information criterion prefers two
full-covariance Gaussians over one for the 13 MFCCs on either side of a
candidate point (3 s windows, 0.3 s hop, segments of at least 1 s); then the two
clusters whose merge costs least in BIC are merged while that cost is negative.
The speech regions are given (the bench passes the same ones to every method).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from scipy.fft import dct

from engine.errors import ParameterError
from engine.speakers import config, features
from engine.speakers.diarize import SpeakerTurn

FRAME_SECONDS = features.FRAME_SHIFT / features.SAMPLE_RATE


def mfcc(samples: np.ndarray) -> np.ndarray:
    """13 MFCCs (DCT-II of the 80 log mel energies) every 10 ms, shape (frames, 13), float64."""
    return dct(features.fbank(samples).astype(np.float64), type=2, norm="ortho", axis=1)[:, : config.BIC_N_MFCC]


class _Stats:
    """Sufficient statistics of a set of frames: count, sum and sum of outer products."""

    def __init__(self, x: np.ndarray) -> None:
        self.n = x.shape[0]
        self.s = x.sum(axis=0)
        self.ss = x.T @ x

    def merged(self, other: _Stats) -> _Stats:
        out = _Stats.__new__(_Stats)
        out.n, out.s, out.ss = self.n + other.n, self.s + other.s, self.ss + other.ss
        return out

    def logdet(self) -> float:
        mean = self.s / self.n
        cov = self.ss / self.n - np.outer(mean, mean) + 1e-6 * np.eye(mean.size)
        return float(np.linalg.slogdet(cov)[1])


def delta_bic(a: _Stats, b: _Stats, *, penalty: float = config.BIC_LAMBDA) -> float:
    """BIC gain of two Gaussians over one for frames ``a`` and ``b`` (positive: different speakers)."""
    both = a.merged(b)
    d = a.s.size
    complexity = 0.5 * (d + d * (d + 1) / 2) * np.log(both.n)
    return 0.5 * (both.n * both.logdet() - a.n * a.logdet() - b.n * b.logdet()) - penalty * complexity


def _changes(x: np.ndarray) -> list[int]:
    """Frame indices of speaker changes inside one speech region's MFCCs (frames, 13)."""
    window = int(config.BIC_WINDOW_SECONDS / FRAME_SECONDS)
    step = int(config.BIC_STEP_SECONDS / FRAME_SECONDS)
    shortest = int(config.BIC_MIN_SEGMENT_SECONDS / FRAME_SECONDS)
    cuts: list[int] = []
    last = 0
    for t in range(shortest, x.shape[0] - shortest + 1, step):
        if t - last < shortest:
            continue
        left, right = x[max(last, t - window) : t], x[t : t + window]
        if len(right) < shortest:
            break
        if delta_bic(_Stats(left), _Stats(right)) > 0:
            cuts.append(t)
            last = t
    return cuts


def diarize_bic(
    samples: np.ndarray, speech: Sequence[tuple[float, float]], *, cluster_penalty: float = config.BIC_CLUSTER_LAMBDA
) -> list[SpeakerTurn]:
    """Speaker turns of mono 16 kHz ``samples`` (float) within the given speech regions (seconds)."""
    if samples.ndim != 1:
        raise ParameterError(f"diarize_bic needs mono samples, got shape {samples.shape}")
    segments: list[tuple[float, float, np.ndarray]] = []
    for start, end in speech:
        region = samples[int(start * features.SAMPLE_RATE) : int(end * features.SAMPLE_RATE)]
        x = mfcc(region)
        if x.shape[0] < 2 * config.BIC_N_MFCC:
            continue
        edges = [0, *_changes(x), x.shape[0]]
        for a, b in itertools.pairwise(edges):
            segments.append((start + a * FRAME_SECONDS, min(end, start + b * FRAME_SECONDS), x[a:b]))
    if not segments:
        return []
    clusters = [_Stats(x) for _, _, x in segments]
    members = [[k] for k in range(len(segments))]
    while len(clusters) > 1:
        best, pair = np.inf, (0, 0)
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                cost = delta_bic(clusters[i], clusters[j], penalty=cluster_penalty)
                if cost < best:
                    best, pair = cost, (i, j)
        if best >= 0:
            break
        i, j = pair
        clusters[i] = clusters[i].merged(clusters[j])
        members[i] += members.pop(j)
        clusters.pop(j)
    label = {k: c for c, group in enumerate(members) for k in group}
    order = {c: n for n, c in enumerate(dict.fromkeys(label[k] for k in range(len(segments))))}
    return [SpeakerTurn(a, b, order[label[k]]) for k, (a, b, _) in enumerate(segments)]
