"""The detectors' pass over a recording: decoded blocks -> feature extractor -> events -> detections.

Ingest and the importer share it. Ingest decodes each file once and hands the same blocks to the
recogniser and, through :class:`FeedingBlocks`, to the feature extractor; the importer, whose words
come from a caption file, only needs the extractor (:func:`recording_detections`).
"""

from __future__ import annotations

import contextlib
import queue
import threading
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

    def end(self) -> None:
        """The stream has ended: do the work held back for more blocks (beside the recogniser)."""


class FeedingBlocks:
    """Wraps a decoder's block iterator: feeds each block to ``extractor`` and ``listener`` (if any),
    counts samples, times decoding, extraction and the listener (seconds; the listener's thread CPU
    too), reports progress and checks ``cancel`` before each block.

    With ``beside=True`` the extractor and the listener hear the blocks on a thread of their own
    (:class:`_SideFeeder`) while the consumer works on them: a recogniser that decodes a chunk
    for many seconds after taking its blocks leaves a core to them. The stream's end does not wait
    for them (the recogniser still has its last chunk to decode): call :meth:`finish_beside` before
    reading the extractor or the listener. ``overlapped_seconds`` is then the part of their work
    the consumer did not wait for. Either way they hear every block, in order.

    ``on_progress(seconds_done, seconds_total)`` is called after each block, or, with
    ``progress_on_pull=False``, when the consumer says how far it has got (:meth:`heard`: a
    recogniser that takes a chunk of blocks before decoding it would otherwise be shown a chunk
    ahead of itself). Raises Cancelled when ``cancel`` is set, and what the extractor or the
    listener raised.
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
        beside: bool = False,
    ) -> None:
        self._blocks = blocks
        self._sr = sr
        self._total = total_seconds
        self._on_progress = on_progress
        self._cancel = cancel
        self._progress_on_pull = progress_on_pull
        self._beside = beside
        self._heard = 0.0
        self.samples = 0
        self.decode_seconds = 0.0
        self.detect_seconds = 0.0
        self._extractor = extractor
        self._listener = listener
        self.listener_seconds = 0.0
        self.listener_cpu_seconds = 0.0
        #: With ``beside``: seconds the consumer's thread waited for the side thread, and seconds of
        #: the side thread's work it did not wait for.
        self.waited_seconds = 0.0
        self.overlapped_seconds = 0.0
        self._side: _SideFeeder | None = None

    def __iter__(self) -> Iterator[np.ndarray]:
        hearers = self._extractor is not None or self._listener is not None
        side = _SideFeeder(self, max_seconds=config.SIDE_QUEUE_SECONDS) if self._beside and hearers else None
        self._side = side
        finished = False
        try:
            while True:
                self._cancel.raise_if_cancelled()
                t0 = time.perf_counter()
                try:
                    block = next(self._blocks)
                except StopIteration:
                    self.decode_seconds += time.perf_counter() - t0
                    break
                self.decode_seconds += time.perf_counter() - t0
                if side is not None:
                    side.put(block)
                else:
                    self._hear(block)
                self.samples += block.size
                if self._progress_on_pull:
                    self._on_progress(self.samples / self._sr, max(self._total, self.samples / self._sr))
                yield block
            finished = True
        finally:
            if side is not None:
                if finished:
                    side.end()  # the side thread hears the rest while the recogniser decodes its last chunk
                else:
                    side.close(raise_error=False)

    def finish_beside(self) -> None:
        """Wait until the side thread has heard every block (nothing to do without one); raise what
        it raised."""
        side, self._side = self._side, None
        if side is None:
            return
        try:
            side.close(raise_error=True)
        finally:
            self.waited_seconds = side.waited
            self.overlapped_seconds = max(0.0, self.detect_seconds + self.listener_seconds - side.waited)

    def _hear(self, block: np.ndarray) -> None:
        """Hand ``block`` to the extractor and the listener, timing each."""
        t1 = time.perf_counter()
        if self._extractor is not None:
            self._extractor.feed(block)
            self.detect_seconds += time.perf_counter() - t1
        if self._listener is not None:
            t2, c2 = time.perf_counter(), time.thread_time()
            self._listener.feed(block)
            self.listener_seconds += time.perf_counter() - t2
            self.listener_cpu_seconds += time.thread_time() - c2

    def _end_hearing(self) -> None:
        """The stream has ended: the listener does what it held back for more blocks."""
        if self._listener is not None:
            t2, c2 = time.perf_counter(), time.thread_time()
            self._listener.end()
            self.listener_seconds += time.perf_counter() - t2
            self.listener_cpu_seconds += time.thread_time() - c2

    def heard(self, seconds: float) -> None:
        """The consumer has recognised the stream up to ``seconds``: report it (never past the
        blocks handed out, never backwards)."""
        pulled = self.samples / self._sr
        seconds = min(seconds, pulled)
        if seconds > self._heard:
            self._heard = seconds
            self._on_progress(seconds, max(self._total, pulled))


class _SideFeeder:
    """A thread that runs ``FeedingBlocks._hear`` on each block put, in order, holding at most
    ``max_seconds`` of audio queued (the consumer waits beyond that). ``waited``: seconds the
    putting thread spent waiting (a full queue, the end). An error on the thread is raised on the
    next :meth:`put` or at :meth:`close`."""

    def __init__(self, feeding: FeedingBlocks, *, max_seconds: float) -> None:
        self._feeding = feeding
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=max(1, int(max_seconds / config.BLOCK_SECONDS)))
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._ended = False
        self.waited = 0.0
        self._thread = threading.Thread(target=self._run, name="earshot-detectors", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            block = self._queue.get()
            if self._stop.is_set():
                return
            if block is None:
                if self._error is None:
                    try:
                        self._feeding._end_hearing()
                    except BaseException as exc:  # handed to the consumer's thread
                        self._error = exc
                return
            if self._error is None:
                try:
                    self._feeding._hear(block)
                except BaseException as exc:  # handed to the consumer's thread
                    self._error = exc

    def put(self, block: np.ndarray) -> None:
        if self._error is not None:
            raise self._error
        t0 = time.perf_counter()
        self._queue.put(block)
        self.waited += time.perf_counter() - t0

    def end(self) -> None:
        """No more blocks: the thread hears those queued, then stops."""
        if not self._ended:
            self._ended = True
            t0 = time.perf_counter()
            self._queue.put(None)
            self.waited += time.perf_counter() - t0

    def close(self, *, raise_error: bool) -> None:
        """Wait for the queued blocks (all heard when the stream ended, dropped when it was
        abandoned), stop the thread, and with ``raise_error`` raise what it raised."""
        if not raise_error:
            self._stop.set()
            with contextlib.suppress(queue.Empty):  # the thread takes no more: make room for the end mark
                while True:
                    self._queue.get_nowait()
            self._ended = False
        t0 = time.perf_counter()
        if not self._ended:
            self._ended = True
            self._queue.put(None)
        self._thread.join()
        self.waited += time.perf_counter() - t0
        if raise_error and self._error is not None:
            raise self._error


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
