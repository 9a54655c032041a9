"""Speaker diarization: who speaks when, from a stream of 16 kHz samples.

1. Windows of 10 s every 5 s go through pyannote segmentation-3.0 (at most 3
   local speakers per window, overlap allowed); each window *owns* its middle 5 s
   (the first and last own to the recording's ends), so every instant is labelled once.
2. Each local speaker with enough speech of its own in a window (no other local
   speaker active) gets a CAM++ embedding of that speech (at most 2 s).
3. The embeddings are clustered (average linkage on cosine distance, cut at a
   threshold, or at a fixed number of speakers); clusters with too little speech
   join the nearest larger one.
4. Each local speaker's owned frames become turns of its cluster; a speaker's
   turns closer than 0.3 s are joined.

Audio is held one window batch at a time, so memory does not grow with the
recording's length except for one 192-d embedding per local speaker and window,
and the clustering's distances are held for at most ``config.CLUSTER_BLOCK`` of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from threadpoolctl import ThreadpoolController

from engine.errors import ParameterError
from engine.jobs import JobReport
from engine.speakers import config
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.segmentation import FRAME_STEP, RECEPTIVE_FIELD, Segmentation, frame_centres, powerset_to_speakers

#: The networks' matrix products are small: on one BLAS thread they cost far less CPU than when
#: OpenBLAS wakes and spins more threads for each (a tenth of the CPU time on a busy 2-core machine).
_BLAS: ThreadpoolController | None = None

SR = config.SAMPLE_RATE
WINDOW = int(config.WINDOW_SECONDS * SR)
STEP = int(config.STEP_SECONDS * SR)


@dataclass(frozen=True)
class SpeakerTurn:
    """``speaker`` (0-based cluster index, in order of first appearance) talks from ``start`` to ``end`` seconds."""

    start: float
    end: float
    speaker: int


@dataclass
class _Local:
    """One local speaker of one window: its embedding and the owned intervals it is active in (seconds)."""

    embedding: np.ndarray
    intervals: list[tuple[float, float]]


class _Windower:
    """Cuts a pushed stream of samples into 10 s windows every 5 s (float32, the last zero-padded)."""

    def __init__(self) -> None:
        self._buffer = np.zeros(0, dtype=np.float32)
        self._start = 0
        self._pending: tuple[int, np.ndarray] | None = None

    def push(self, block: np.ndarray) -> list[tuple[int, np.ndarray, bool]]:
        """The windows complete after ``block`` (int16, or float in [-1, 1]); none is flagged last yet."""
        samples = np.asarray(block)
        if samples.dtype == np.int16:
            samples = samples.astype(np.float32) / 32768.0
        self._buffer = np.concatenate([self._buffer, samples.astype(np.float32, copy=False).ravel()])
        out = []
        while self._buffer.size >= WINDOW:
            if self._pending is not None:
                out.append((self._pending[0], self._pending[1], False))
            self._pending = (self._start, self._buffer[:WINDOW].copy())
            self._buffer = self._buffer[STEP:]
            self._start += STEP
        return out

    def close(self) -> list[tuple[int, np.ndarray, bool]]:
        """The windows left at the end of the stream, the last one flagged."""
        pending, buffer = self._pending, self._buffer
        if pending is not None and buffer.size <= WINDOW - STEP:
            return [(pending[0], pending[1], True)]  # the last full window already reaches the end
        out = [] if pending is None else [(pending[0], pending[1], False)]
        if buffer.size:
            window = np.zeros(WINDOW, dtype=np.float32)
            window[: buffer.size] = buffer
            out.append((self._start, window, True))
        return out


def _windows(blocks: Iterable[np.ndarray]) -> Iterator[tuple[int, np.ndarray, bool]]:
    """(start sample, 10 s of float32 samples zero-padded, is last) for every window over the stream."""
    windower = _Windower()
    for block in blocks:
        yield from windower.push(block)
    yield from windower.close()


def _sample_frames(n_frames: int) -> np.ndarray:
    """For each sample of a window, the segmentation frame whose centre is nearest, shape (WINDOW,)."""
    centre = (RECEPTIVE_FIELD - 1) / 2
    return np.clip(np.round((np.arange(WINDOW) - centre) / FRAME_STEP), 0, n_frames - 1).astype(np.int64)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[first, last] index pairs of the runs of True in a 1-D bool array."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2], strict=True)]


class Diarizer:
    """The two networks and the settings; ``__call__`` diarizes one recording's sample stream."""

    def __init__(self, segmentation: Segmentation, embedding: CamPlusPlus) -> None:
        self.segmentation = segmentation
        self.embedding = embedding

    def _locals(self, start: int, window: np.ndarray, activity: np.ndarray, last: bool, first: bool) -> list[_Local]:
        n_frames = activity.shape[0]
        centres = start / SR + frame_centres(n_frames)
        margin = (config.WINDOW_SECONDS - config.STEP_SECONDS) / 2
        lo = -np.inf if first else start / SR + margin
        hi = np.inf if last else start / SR + margin + config.STEP_SECONDS
        owned = (centres >= lo) & (centres < hi)
        alone = activity.sum(axis=1) == 1
        to_frame = _sample_frames(n_frames)
        half = FRAME_STEP / SR / 2
        found = []
        for k in range(activity.shape[1]):
            active = activity[:, k] > 0
            if not (active & owned).any():
                continue
            clean = active & alone
            mask = (clean & owned)[to_frame]
            if mask.sum() < config.MIN_EMBED_SECONDS * SR:
                mask = clean[to_frame]
            if mask.sum() < config.MIN_EMBED_SECONDS * SR:
                continue
            speech = window[mask][: int(config.MAX_EMBED_SECONDS * SR)]
            intervals = [(float(centres[a] - half), float(centres[b] + half)) for a, b in _runs(active & owned)]
            found.append(_Local(self.embedding.embed(speech), intervals))
        return found

    def stream(self, *, total_seconds: float | None = None, report: JobReport | None = None) -> DiarizationStream:
        """A stream to :meth:`DiarizationStream.feed` blocks into as they are decoded, then ``finish``."""
        return DiarizationStream(self, total_seconds=total_seconds, report=report)

    def __call__(
        self,
        blocks: Iterable[np.ndarray],
        *,
        total_seconds: float | None = None,
        n_speakers: int | None = None,
        threshold: float = config.CLUSTER_THRESHOLD,
        report: JobReport | None = None,
    ) -> list[SpeakerTurn]:
        """Speaker turns of a recording given as 16 kHz mono blocks (int16 or float in [-1, 1]).

        ``total_seconds`` (the recording's length) lets progress report a total;
        ``n_speakers`` fixes the number of speakers instead of cutting at ``threshold``.
        Progress is reported in seconds of audio; cancel is checked between window batches.
        """
        check_speaker_count(n_speakers)
        stream = self.stream(total_seconds=total_seconds, report=report)
        for block in blocks:
            stream.feed(block)
        return stream.finish(n_speakers=n_speakers, threshold=threshold).turns


def check_speaker_count(n_speakers: int | None) -> None:
    """Raise ``ParameterError`` unless ``n_speakers`` is None (estimate it) or at least 1."""
    if n_speakers is not None and n_speakers < 1:
        raise ParameterError(f"n_speakers must be >= 1, got {n_speakers}")


@dataclass(frozen=True)
class Diarization:
    """A recording's speaker turns and each speaker's centroid embedding, shape (speakers, 192), unit length."""

    turns: list[SpeakerTurn]
    centroids: np.ndarray


class DiarizationStream:
    """One recording's diarization, fed block by block; audio is held one batch of windows at a time."""

    def __init__(self, diarizer: Diarizer, *, total_seconds: float | None = None, report: JobReport | None = None) -> None:
        self._diarizer = diarizer
        self._report = report or JobReport()
        self._total = float(total_seconds or 0.0)
        self._windower = _Windower()
        self._batch: list[tuple[int, np.ndarray, bool]] = []
        self._locals: list[_Local] = []
        self._ended = False

    def feed(self, block: np.ndarray) -> None:
        """Take the next 16 kHz mono samples (int16 or float in [-1, 1]); runs the networks per full batch."""
        for item in self._windower.push(block):
            self._batch.append(item)
            if len(self._batch) == config.BATCH_WINDOWS:
                self._flush()

    def end(self) -> None:
        """No more audio: run the networks on the windows still held (a short file's all). Idempotent."""
        if self._ended:
            return
        self._ended = True
        rest = self._batch + self._windower.close()
        self._batch = []
        while rest:
            self._batch, rest = rest[: config.BATCH_WINDOWS], rest[config.BATCH_WINDOWS :]
            self._flush()

    def finish(self, *, n_speakers: int | None = None, threshold: float = config.CLUSTER_THRESHOLD) -> Diarization:
        """The turns of everything fed, clustered at ``threshold`` or into ``n_speakers``."""
        check_speaker_count(n_speakers)
        self.end()
        return _turns(self._locals, n_speakers=n_speakers, threshold=threshold)

    def _flush(self) -> None:
        if not self._batch:
            return
        report, total, batch = self._report, self._total, self._batch
        report.cancel.raise_if_cancelled()
        with _blas().limit(limits=1, user_api="blas"):
            windows = np.stack([w for _, w, _ in batch])
            activity = powerset_to_speakers(self._diarizer.segmentation(windows))
            for (start, window, last), act in zip(batch, activity, strict=True):
                self._locals.extend(self._diarizer._locals(start, window, act, last, first=start == 0))
        last_start, _, is_last = batch[-1]
        done = (last_start + (WINDOW if is_last else STEP)) / SR
        report.progress(total if total and is_last else min(done, total) if total else done, total)
        self._batch = []


def _blas() -> ThreadpoolController:
    global _BLAS
    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS


def cluster(
    embeddings: np.ndarray, weights: np.ndarray, *, n_speakers: int | None, threshold: float,
    block: int = config.CLUSTER_BLOCK,
) -> np.ndarray:  # fmt: skip
    """Cluster labels (0-based, by first appearance) of (n, 192) embeddings with speech ``weights`` in seconds.

    Average linkage on cosine distance cut at ``threshold`` (or into ``n_speakers``);
    clusters under ``MIN_CLUSTER_SECONDS`` of speech then join the nearest larger cluster's centroid.
    More than ``block`` embeddings (a recording of about two hours) are clustered in two stages, so
    memory stays that of ``block`` (the linkage holds two float64 copies of the n(n-1)/2 distances):
    each run of ``block`` consecutive embeddings is cut at ``threshold``, then the centroids of those
    clusters, weighted by their speech, are clustered as above.
    """
    n = embeddings.shape[0]
    if n <= 1:
        return np.zeros(n, dtype=np.int64)
    unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-9)
    if n > block:
        return _cluster_in_blocks(unit, weights, n_speakers=n_speakers, threshold=threshold, block=block)
    labels = _cut(unit, threshold=threshold, n_speakers=n_speakers)
    sizes = {c: float(weights[labels == c].sum()) for c in np.unique(labels)}
    large = [c for c, s in sizes.items() if s >= config.MIN_CLUSTER_SECONDS]
    if large and len(large) < len(sizes) and n_speakers is None:
        centroids = np.stack([unit[labels == c].mean(axis=0) for c in large])
        for i in np.flatnonzero(~np.isin(labels, large)):
            labels[i] = large[int(np.argmax(centroids @ unit[i]))]
    return _by_first_appearance(labels)


def _cluster_in_blocks(unit: np.ndarray, weights: np.ndarray, *, n_speakers: int | None, threshold: float,
                       block: int) -> np.ndarray:  # fmt: skip
    """:func:`cluster`'s two stages for more than ``block`` unit embeddings, shape (n, 192)."""
    group = np.empty(unit.shape[0], dtype=np.int64)
    centroids: list[np.ndarray] = []
    speech: list[float] = []
    for start in range(0, unit.shape[0], block):
        part = slice(start, start + block)
        local = _cut(unit[part], threshold=threshold)
        for c in np.unique(local):
            members = np.flatnonzero(local == c) + start
            group[members] = len(centroids)
            centroids.append(unit[members].mean(axis=0))
            speech.append(float(weights[members].sum()))
    # Stages repeat while they shrink the set; embeddings that no cut joins (noise) are clustered at once
    again = block if len(centroids) < unit.shape[0] else len(centroids)
    top = cluster(np.stack(centroids), np.array(speech), n_speakers=n_speakers, threshold=threshold, block=again)
    return _by_first_appearance(top[group])


def _cut(unit: np.ndarray, *, threshold: float, n_speakers: int | None = None) -> np.ndarray:
    """fcluster labels (1-based) of (n, 192) unit embeddings: average linkage on cosine distance cut at
    ``threshold``, or into ``n_speakers``; one embedding is one cluster."""
    if unit.shape[0] < 2:
        return np.ones(unit.shape[0], dtype=np.int64)
    tree = linkage(unit, method="average", metric="cosine")
    if n_speakers is not None:
        return fcluster(tree, t=min(n_speakers, unit.shape[0]), criterion="maxclust")
    return fcluster(tree, t=threshold, criterion="distance")


def _by_first_appearance(labels: np.ndarray) -> np.ndarray:
    """``labels`` renumbered 0, 1, ... in order of first appearance, int64."""
    order = {c: k for k, c in enumerate(dict.fromkeys(labels.tolist()))}
    return np.array([order[c] for c in labels.tolist()], dtype=np.int64)


def _turns(locals_: list[_Local], *, n_speakers: int | None, threshold: float) -> Diarization:
    if not locals_:
        return Diarization([], np.zeros((0, 192), dtype=np.float32))
    embeddings = np.stack([item.embedding for item in locals_])
    weights = np.array([sum(b - a for a, b in item.intervals) for item in locals_])
    labels = cluster(embeddings, weights, n_speakers=n_speakers, threshold=threshold)
    unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-9)
    centroids = np.stack([unit[labels == k].mean(axis=0) for k in range(int(labels.max()) + 1)])
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
    raw = sorted((max(0.0, a), b, int(label)) for item, label in zip(locals_, labels, strict=True) for a, b in item.intervals)
    merged: dict[int, list[list[float]]] = {}
    for start, end, label in raw:
        spans = merged.setdefault(label, [])
        if spans and start - spans[-1][1] <= config.MERGE_GAP_SECONDS:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    turns = [SpeakerTurn(a, b, label) for label, spans in merged.items() for a, b in spans]
    return Diarization(sorted(turns, key=lambda t: (t.start, t.speaker)), centroids.astype(np.float32))
