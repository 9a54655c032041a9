"""One recording through decode and recognition: the work a worker process does."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine import config
from engine.asr.base import Transcriber, Word
from engine.audio.decode import AudioInfo, iter_pcm_blocks
from engine.detect.analyzer import AudioAnalyzer
from engine.detect.analyzer import analyze as run_detectors
from engine.detect.events import Event
from engine.detect.sensitivities import DetectorSettings
from engine.ingest.analyze import Analysis, analyze_transcript
from engine.jobs import CancelToken
from engine.search.segments import segment_bounds


@dataclass
class StageTimes:
    """Seconds of wall time spent in each stage of one file's ingest."""

    decode: float = 0.0
    transcribe: float = 0.0
    detect: float = 0.0
    analyze: float = 0.0
    store: float = 0.0

    @property
    def total(self) -> float:
        return self.decode + self.transcribe + self.detect + self.analyze + self.store


@dataclass
class Transcript:
    """What recognition produced for one file."""

    words: list[Word]
    #: (first word index, last word index inclusive) per search segment.
    segments: list[tuple[int, int]]
    #: seconds of audio actually decoded.
    audio_seconds: float
    times: StageTimes = field(default_factory=StageTimes)
    analysis: Analysis = field(default_factory=Analysis)


class _TimedBlocks:
    """Wraps the decoder's block iterator to time it, count samples, report and cancel."""

    def __init__(
        self,
        blocks: Iterator[np.ndarray],
        *,
        sr: int,
        total_seconds: float,
        on_progress: Callable[[float, float], None],
        cancel: CancelToken,
        analyzer: AudioAnalyzer | None = None,
    ) -> None:
        self._blocks = blocks
        self._sr = sr
        self._total = total_seconds
        self._on_progress = on_progress
        self._cancel = cancel
        self.samples = 0
        self.decode_seconds = 0.0
        self.detect_seconds = 0.0
        self._analyzer = analyzer

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
            if self._analyzer is not None:
                self._analyzer.feed(block)
                self.detect_seconds += time.perf_counter() - t1
            self.samples += block.size
            self._on_progress(self.samples / self._sr, max(self._total, self.samples / self._sr))
            yield block


def transcribe_file(
    info: AudioInfo,
    transcriber: Transcriber,
    *,
    on_progress: Callable[[float, float], None] | None = None,
    cancel: CancelToken | None = None,
    sr: int = config.TARGET_SAMPLE_RATE,
    analyze: bool = True,
    detector_settings: DetectorSettings | None = None,
) -> Transcript:
    """Decode ``info.path`` in blocks, recognise it and, if ``analyze``, run the
    audio detectors beside recognition, then segment and tag the transcript.

    ``on_progress(seconds_done, seconds_total)`` is called after each block.
    Raises AudioError for undecodable audio and Cancelled when ``cancel`` is set.
    """
    analyzer = AudioAnalyzer(sr=sr, settings=detector_settings) if analyze else None
    timed = _TimedBlocks(
        iter_pcm_blocks(info.path, sr=sr),
        sr=sr,
        total_seconds=info.duration,
        on_progress=on_progress or (lambda done, total: None),
        cancel=cancel or CancelToken(),
        analyzer=analyzer,
    )
    t0 = time.perf_counter()
    utterances = list(transcriber.transcribe(timed, sr=sr))
    elapsed = time.perf_counter() - t0
    words = [w for utt in utterances for w in utt]
    times = StageTimes(decode=timed.decode_seconds, transcribe=elapsed - timed.decode_seconds - timed.detect_seconds)
    analysis = Analysis()
    if analyzer is not None:
        t1 = time.perf_counter()
        detections = analyzer.finish(words)
        if transcriber.engine in config.ENGINES_THAT_INVENT_WORDS and analyzer.features is not None:
            utterances = [kept for utt in utterances if (kept := words_outside_sounds(utt, detections.events))]
            if sum(map(len, utterances)) < len(words):
                words = [w for utt in utterances for w in utt]
                detections = run_detectors(analyzer.features, words, settings=analyzer.settings)
        times.detect = timed.detect_seconds + time.perf_counter() - t1
        t2 = time.perf_counter()
        analysis = analyze_transcript(words, detections, engine=transcriber.engine)
        times.analyze = time.perf_counter() - t2
    return Transcript(
        words=words,
        segments=segment_bounds(utterances),
        audio_seconds=timed.samples / sr,
        times=times,
        analysis=analysis,
    )


def words_outside_sounds(words: Sequence[Word], events: Sequence[Event]) -> list[Word]:
    """``words`` without those whose middle lies inside a detected music, applause, laughter or
    noise event: text a recogniser invented from sound that is not speech."""
    sounds = sorted((e.start, e.end) for e in events if e.type in config.NON_SPEECH_EVENT_TYPES)
    if not sounds:
        return list(words)
    starts = np.array([a for a, _ in sounds])
    ends = np.maximum.accumulate(np.array([b for _, b in sounds]))
    mids = np.array([(w.start + w.end) / 2 for w in words])
    k = np.searchsorted(starts, mids, side="right") - 1
    inside = (k >= 0) & (mids < ends[np.maximum(k, 0)])
    return [w for w, bad in zip(words, inside, strict=True) if not bad]
