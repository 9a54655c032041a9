"""The detectors' pass over a recording: decoded blocks -> feature extractor -> events -> detections.

Ingest and the importer share it. Ingest decodes each file once and hands the same blocks to the
recogniser and, through :class:`FeedingBlocks`, to the feature extractor; the importer, whose words
come from a caption file, only needs the extractor (:func:`recording_detections`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from engine import config
from engine.asr.base import Word
from engine.audio.decode import iter_pcm_blocks
from engine.detect.analyzer import analyze, feature_extractor
from engine.detect.events import Detections
from engine.detect.features import FeatureExtractor
from engine.detect.sensitivities import DetectorSettings
from engine.jobs import CancelToken
from engine.storage.store import EventRow


class BlockListener(Protocol):
    """Anything else that hears every decoded block as it passes (the speaker diarizer)."""

    def feed(self, block: np.ndarray) -> None: ...


class FeedingBlocks:
    """Wraps a decoder's block iterator: feeds each block to ``extractor`` and ``listener`` (if any),
    counts samples, times decoding, extraction and the listener (seconds; the listener's thread CPU
    too), reports progress and checks ``cancel`` before each block.

    ``on_progress(seconds_done, seconds_total)`` is called after each block, or, with
    ``progress_on_pull=False``, when the consumer says how far it has got (:meth:`heard`: a
    recogniser that takes a chunk of blocks before decoding it would otherwise be shown a chunk
    ahead of itself). Raises Cancelled when ``cancel`` is set.
    """

    def __init__(
        self,
        blocks: Iterator[np.ndarray],
        *,
        sr: int,
        total_seconds: float,
        on_progress: Callable[[float, float], None],
        cancel: CancelToken,
        extractor: FeatureExtractor | None = None,
        listener: BlockListener | None = None,
        progress_on_pull: bool = True,
    ) -> None:
        self._blocks = blocks
        self._progress_on_pull = progress_on_pull
        self._heard = 0.0
        self._sr = sr
        self._total = total_seconds
        self._on_progress = on_progress
        self._cancel = cancel
        self.samples = 0
        self.decode_seconds = 0.0
        self.detect_seconds = 0.0
        self._extractor = extractor
        self._listener = listener
        self.listener_seconds = 0.0
        self.listener_cpu_seconds = 0.0

    def __iter__(self) -> Iterator[np.ndarray]:
        while True:
            self._cancel.raise_if_cancelled()
            t0 = time.perf_counter()
            try:
                block = next(self._blocks)
            except StopIteration:
                self.decode_seconds += time.perf_counter() - t0
                return
            t1 = time.perf_counter()
            self.decode_seconds += t1 - t0
            if self._extractor is not None:
                self._extractor.feed(block)
                self.detect_seconds += time.perf_counter() - t1
            if self._listener is not None:
                t2, c2 = time.perf_counter(), time.thread_time()
                self._listener.feed(block)
                self.listener_seconds += time.perf_counter() - t2
                self.listener_cpu_seconds += time.thread_time() - c2
            self.samples += block.size
            if self._progress_on_pull:
                self._on_progress(self.samples / self._sr, max(self._total, self.samples / self._sr))
            yield block

    def heard(self, seconds: float) -> None:
        """The consumer has recognised the stream up to ``seconds``: report it (never past the
        blocks handed out, never backwards)."""
        pulled = self.samples / self._sr
        seconds = min(seconds, pulled)
        if seconds > self._heard:
            self._heard = seconds
            self._on_progress(seconds, max(self._total, pulled))


def recording_detections(
    path: str | Path,
    words: Sequence[Word],
    *,
    total_seconds: float,
    settings: DetectorSettings | None = None,
    sr: int = config.TARGET_SAMPLE_RATE,
    on_progress: Callable[[float, float], None] | None = None,
    cancel: CancelToken | None = None,
) -> Detections:
    """Decode ``path`` once through the feature extractor and run every detector, with ``words``
    (times in seconds from the start of the recording) for the X-duration and the transcribed flags.

    ``total_seconds``: the recording's probed duration, for progress. Returns the same
    :class:`Detections` ingest stores for the recording and those words. Raises AudioError for
    undecodable audio and Cancelled when ``cancel`` is set.
    """
    settings = settings or DetectorSettings()
    extractor = feature_extractor(sr=sr, settings=settings)
    blocks = FeedingBlocks(iter_pcm_blocks(str(path), sr=sr), sr=sr, total_seconds=total_seconds,
                           on_progress=on_progress or (lambda done, total: None), cancel=cancel or CancelToken(),
                           extractor=extractor)  # fmt: skip
    for _ in blocks:
        pass
    return analyze(extractor.finish(), words, settings=settings)


def detection_rows(detections: Detections, n_words: int) -> tuple[list[EventRow], list[float], list[bool] | None]:
    """What the index stores of ``detections`` for a transcript of ``n_words`` words: the events, the
    X-duration per word (seconds, shape (n_words,)) and the transcribed flags (None when the detections
    hold none for those words)."""
    events = [EventRow(e.type, e.start, e.end, e.score, e.value) for e in detections.events]
    x_duration = [float(x) for x in detections.x_duration]
    transcribed = [bool(x) for x in detections.transcribed] if len(detections.transcribed) == n_words else None
    return events, x_duration, transcribed
