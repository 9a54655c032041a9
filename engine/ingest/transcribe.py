"""One recording through decode and recognition: the work a worker process does."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from engine import config
from engine.asr.base import Transcriber, Word
from engine.audio.decode import AudioInfo, iter_pcm_blocks
from engine.detect.analyzer import analyze as run_detectors
from engine.detect.analyzer import audio_events, feature_extractor
from engine.detect.audio_pass import FeedingBlocks
from engine.detect.sensitivities import DetectorSettings
from engine.heap import PeriodicRelease, release_heap
from engine.ingest.analyze import analyze_transcript
from engine.ingest.language import hear_language
from engine.ingest.results import Analysis, StageTimes, Transcript
from engine.ingest.side_work import Heard, SideTask, SideWork, hear_file
from engine.ingest.speaker_pass import optional_speaker_stream, speaker_turns
from engine.ingest.speech_gate import kept_words
from engine.jobs import CancelToken
from engine.search.segments import segment_bounds
from engine.speakers.diarize import SR as SPEAKER_SR

log = logging.getLogger("earshot.ingest")

__all__ = ["StageTimes", "Transcript", "transcribe_file", "warm_up"]


def transcribe_file(
    info: AudioInfo,
    transcriber: Transcriber,
    *,
    on_progress: Callable[[float, float], None] | None = None,
    cancel: CancelToken | None = None,
    sr: int = config.TARGET_SAMPLE_RATE,
    analyze: bool = True,
    detector_settings: DetectorSettings | None = None,
    side: SideWork | None = None,
) -> Transcript:
    """Recognise ``info.path`` and, if ``analyze``, find its hot spots, stories and entities.

    One pass decodes the file: each block goes to the recogniser, which hears the whole file,
    and, with ``analyze``, to the detectors' feature extractor and the diarizer on a thread beside
    it, or, for a file of at least ``config.SIDE_PROCESS_MIN_SECONDS`` when the worker has a
    ``side`` process, to that process, which decodes the file itself. Afterwards the words the
    detectors place in music, applause, laughter or noise and Whisper doubts are dropped
    (:mod:`engine.ingest.speech_gate`), and the detections are the ones stored.
    ``on_progress(seconds_done, seconds_total)`` is called after each block.
    Raises AudioError for undecodable audio and Cancelled when ``cancel`` is set.
    """
    report = on_progress or (lambda done, total: None)
    cancel = cancel or CancelToken()
    times = StageTimes()
    settings = detector_settings or DetectorSettings()
    want_speakers = analyze and settings.speaker_turns and sr == SPEAKER_SR
    beside: SideTask | None = None
    if side is not None and analyze and info.duration >= config.SIDE_PROCESS_MIN_SECONDS:
        beside = side.start(info, settings, sr=sr, speakers=want_speakers)  # it starts while the language is heard
    here = analyze and beside is None
    extractor = feature_extractor(sr=sr, settings=settings) if here else None
    speakers = optional_speaker_stream(info.duration) if here and want_speakers else None
    timed = FeedingBlocks(
        iter_pcm_blocks(info.path, sr=sr),
        sr=sr,
        total_seconds=info.duration,
        on_progress=report,
        cancel=cancel,
        extractor=extractor,
        listener=speakers,
        progress_on_pull=False,  # the recogniser says how far it has heard
        beside=True,  # the detectors and the diarizer hear the blocks while the recogniser decodes
    )
    long_file = info.duration >= config.TRIM_HEAP_SECONDS
    release = PeriodicRelease(config.TRIM_HEAP_SECONDS) if long_file else None

    def on_heard(seconds: float) -> None:
        timed.heard(seconds)
        if release is not None:
            release(seconds)

    try:
        # The language first, on windows spread over the file (Whisper's voice-activity filter keeps
        # their speech): a one-language model refuses a file in another before any word is recognised.
        t_language = time.perf_counter()
        heard = hear_language(info, transcriber, sr=sr)  # LanguageMismatch: nothing recognised
        times.language = time.perf_counter() - t_language
        t0 = time.perf_counter()
        utterances = list(transcriber.transcribe(timed, sr=sr, on_heard=on_heard))
    except BaseException:
        if beside is not None and side is not None:
            side.drop(beside)  # its files and its work are no longer wanted
        raise
    timed.finish_beside()  # the detectors and the diarizer heard the last chunk while it was decoded
    if long_file:
        release_heap()  # what the decoder and the threads beside it freed, before the file's analysis
    times.decode = timed.decode_seconds
    times.transcribe = time.perf_counter() - t0 - timed.decode_seconds - timed.waited_seconds
    got: Heard | None = None
    if beside is not None and side is not None:
        t_wait = time.perf_counter()
        got = side.wait(beside, cancel=cancel)
        if got is not None:
            times.beside = max(0.0, got.detect_seconds + got.speakers_seconds - (time.perf_counter() - t_wait))
        else:  # the side process is gone or starved: hear the file here, after recognition
            got = hear_file(info.path, sr=sr, duration=info.duration, settings=settings, speakers=want_speakers,
                            cancel=cancel)  # fmt: skip
        times.detect, times.speakers, times.speakers_cpu = got.detect_seconds, got.speakers_seconds, \
            got.speakers_cpu_seconds
    else:
        times.detect = timed.detect_seconds
        times.speakers, times.speakers_cpu = timed.listener_seconds, timed.listener_cpu_seconds
        times.beside = timed.overlapped_seconds
    analysis = Analysis()
    if analyze:
        t1 = time.perf_counter()
        features = got.features if got is not None else extractor.finish() if extractor is not None else None
        assert features is not None
        found = audio_events(features, settings)
        drop = config.GATE_DROP_BELOW if transcriber.engine == "whisper" else config.GATE_DROP_BELOW_OTHER_ENGINES
        utterances = [kept for utt in utterances if (kept := kept_words(utt, *found, drop_below=drop))]
        words = [w for utt in utterances for w in utt]
        detections = run_detectors(features, words, settings=settings, found=found)
        times.detect += time.perf_counter() - t1
        t2 = time.perf_counter()
        analysis = analyze_transcript(words, detections, engine=transcriber.engine, language=heard.language)
        times.analyze = time.perf_counter() - t2
        diarization = got.diarization if got is not None else None
        if diarization is not None or speakers is not None:
            t3, c3 = time.perf_counter(), time.thread_time()
            if diarization is None and speakers is not None:
                diarization = speakers.finish(n_speakers=settings.speaker_count)
            assert diarization is not None
            analysis.speakers = speaker_turns(diarization, words, *found, given=settings.speaker_count)
            times.speakers += time.perf_counter() - t3
            times.speakers_cpu += time.thread_time() - c3
    words = [w for utt in utterances for w in utt]
    if long_file:
        release_heap()  # the analysis' temporaries: the next file starts from what the worker holds
    return Transcript(
        words=words,
        segments=segment_bounds(utterances),
        audio_seconds=timed.samples / sr,
        times=times,
        analysis=analysis,
        language=heard.language,
        language_note=heard.note,
    )


def warm_up(settings: DetectorSettings | None = None, *, engine: str = "whisper", language: str = "en") -> None:
    """Load what the first file would otherwise wait for: the detectors' feature extractor (its
    lazy imports and, with ``sound_model="audioset"``, the tagger) and the story and entity models.
    A worker runs this beside its speech model's load. Raises what those loads raise."""
    settings = settings or DetectorSettings()
    feature_extractor(sr=config.TARGET_SAMPLE_RATE, settings=settings)
    if settings.speaker_turns:
        optional_speaker_stream(0.0)
    words = [Word(0.0, 0.4, 1.0, "the", "The"), Word(0.4, 0.9, 1.0, "council", "council.")]
    analyze_transcript(words, None, engine=engine, language=language)
