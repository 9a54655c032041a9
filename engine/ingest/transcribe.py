"""One recording through decode and recognition: the work a worker process does."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from engine import config
from engine.asr.base import Transcriber, Word
from engine.audio.decode import AudioInfo, iter_pcm_blocks
from engine.detect.analyzer import analyze as run_detectors
from engine.detect.analyzer import audio_events, feature_extractor
from engine.detect.events import Event
from engine.detect.features import FeatureExtractor, FrameFeatures
from engine.detect.sensitivities import DetectorSettings
from engine.ingest.analyze import Analysis, analyze_transcript
from engine.ingest.language import hear_language
from engine.ingest.speech_gate import gate_blocks, speech_spans
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
    language: float = 0.0

    @property
    def total(self) -> float:
        return self.decode + self.transcribe + self.detect + self.analyze + self.store + self.language


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
    #: the language identified and transcribed in (ISO 639-1), and a note on it for the user.
    language: str = ""
    language_note: str = ""


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
        extractor: FeatureExtractor | None = None,
    ) -> None:
        self._blocks = blocks
        self._sr = sr
        self._total = total_seconds
        self._on_progress = on_progress
        self._cancel = cancel
        self.samples = 0
        self.decode_seconds = 0.0
        self.detect_seconds = 0.0
        self._extractor = extractor

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
    """Recognise ``info.path`` and, if ``analyze``, find its hot spots, stories and entities.

    With ``analyze``, a first pass decodes the file and runs the detectors; the second
    feeds the recogniser only what they call speech (the rest silenced, see
    :mod:`engine.ingest.speech_gate`), so music, applause and laughter never become words.
    The detections of the first pass are the ones stored: analysis runs once.
    ``on_progress(seconds_done, seconds_total)`` is called after each block (the first pass
    counts for ``config.DETECT_PASS_SHARE`` of the file).
    Raises AudioError for undecodable audio and Cancelled when ``cancel`` is set.
    """
    report = on_progress or (lambda done, total: None)
    cancel = cancel or CancelToken()
    times = StageTimes()
    settings = detector_settings or DetectorSettings()
    blocks: Iterator[np.ndarray] = iter_pcm_blocks(info.path, sr=sr)
    detected = None
    spans = None
    if analyze:
        detected = detect_pass(info, sr=sr, settings=settings, cancel=cancel, on_progress=report, times=times)
        spans = speech_spans(*detected[1], duration=detected[0].duration)
        blocks = gate_blocks(blocks, spans, sr=sr)
    t_language = time.perf_counter()
    heard = hear_language(info, transcriber, spans=spans, sr=sr)  # LanguageMismatch: nothing recognised
    times.language = time.perf_counter() - t_language
    share = config.DETECT_PASS_SHARE if analyze else 0.0
    timed = _TimedBlocks(
        blocks,
        sr=sr,
        total_seconds=info.duration,
        on_progress=lambda done, total: report(total * share + done * (1 - share), total),
        cancel=cancel,
    )
    t0 = time.perf_counter()
    utterances = list(transcriber.transcribe(timed, sr=sr))
    times.decode += timed.decode_seconds
    times.transcribe = time.perf_counter() - t0 - timed.decode_seconds
    words = [w for utt in utterances for w in utt]
    analysis = Analysis()
    if detected is not None:
        features, found = detected
        t1 = time.perf_counter()
        detections = run_detectors(features, words, settings=settings, found=found)
        times.detect += time.perf_counter() - t1
        t2 = time.perf_counter()
        analysis = analyze_transcript(words, detections, engine=transcriber.engine, language=heard.language)
        times.analyze = time.perf_counter() - t2
    return Transcript(
        words=words,
        segments=segment_bounds(utterances),
        audio_seconds=timed.samples / sr,
        times=times,
        analysis=analysis,
        language=heard.language,
        language_note=heard.note,
    )


def detect_pass(
    info: AudioInfo, *, sr: int, settings: DetectorSettings, cancel: CancelToken,
    on_progress: Callable[[float, float], None], times: StageTimes,
) -> tuple[FrameFeatures, tuple[list[Event], list[Event]]]:  # fmt: skip
    """Decode the file once for the detectors: its frame features and (sound events, speech events).

    Adds the seconds spent to ``times.decode`` and ``times.detect``.
    """
    extractor = feature_extractor(sr=sr, settings=settings)
    timed = _TimedBlocks(
        iter_pcm_blocks(info.path, sr=sr),
        sr=sr,
        total_seconds=info.duration,
        on_progress=lambda done, total: on_progress(done * config.DETECT_PASS_SHARE, total),
        cancel=cancel,
        extractor=extractor,
    )
    for _block in timed:
        pass
    t0 = time.perf_counter()
    features = extractor.finish()
    found = audio_events(features, settings)
    times.decode += timed.decode_seconds
    times.detect += timed.detect_seconds + time.perf_counter() - t0
    return features, found
