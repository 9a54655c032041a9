"""Writing an imported transcript into the index, the way ingest writes a transcribed one."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engine.asr.base import Word
from engine.audio.decode import probe
from engine.detect.audio_pass import detection_rows, recording_detections
from engine.detect.sensitivities import DetectorSettings
from engine.entities.rows import tag_entities
from engine.errors import ParameterError
from engine.importer.captions import Captions, read_captions
from engine.jobs import JobReport
from engine.search.passage_blocks import index_passages
from engine.segment.stories import caption_model, segment_stories
from engine.segment.text import normalize_words, sentence_starts_from_display
from engine.storage.store import EntityRow, EventRow, NewRecording, Store, StoryRow, WordRow

#: Recorded as the recording's engine, so the library tells imported transcripts apart.
IMPORT_ENGINE = "import"
#: Recorded as the codec of a transcript imported without its recording: nothing to play.
NO_AUDIO_CODEC = "none"


def has_audio(recording: dict[str, Any]) -> bool:
    """False for a transcript imported without its recording (its path is the caption file)."""
    return recording.get("codec") != NO_AUDIO_CODEC


def caption_words(caps: Captions) -> tuple[list[WordRow], list[tuple[int, int]], list[StoryRow]]:
    """Words (each cue's time shared equally among its words), one segment per cue, and stories.

    Returns (words, segments as (first, last) word, stories as first/last word), all inclusive.
    """
    words: list[WordRow] = []
    segments: list[tuple[int, int]] = []
    cue_first: list[int] = []
    for cue in caps.cues:
        parts = cue.text.split()
        cue_first.append(len(words))
        if not parts:
            continue
        step = (cue.end - cue.start) / len(parts)
        first = len(words)
        for i, text in enumerate(parts):
            end = cue.end if i == len(parts) - 1 else cue.start + (i + 1) * step
            words.append(WordRow(cue.start + i * step, end, 1.0, text))
        segments.append((first, len(words) - 1))
    cue_first.append(len(words))
    stories = []
    bounds = [cue_first[k] for k in caps.story_starts] + [len(words)]
    kinds = caps.story_kinds or ["story"] * len(caps.story_starts)
    for (a, b), kind in zip(itertools.pairwise(bounds), kinds, strict=True):
        if b > a:
            stories.append(StoryRow(a, b - 1, None, kind))
    return words, segments, stories


def caption_stories(words: list[WordRow], x_duration: list[float] | None = None,
                    transcribed: list[bool] | None = None) -> list[StoryRow]:
    """Stories of captions that mark none, by the segmenter with the model trained on captions
    (the punctuated one when the captions write sentence ends), with the detectors' X-duration
    (seconds, one per word) and transcribed flags when the recording was analysed."""
    shown = [w.text for w in words]
    punctuated = bool(sentence_starts_from_display(shown).size)
    plain = [WordRow(w.start, w.end, w.conf, "_".join(normalize_words(w.text)), w.text) for w in words]
    return segment_stories(plain, None if x_duration is None else np.asarray(x_duration),
                           None if transcribed is None else np.asarray(transcribed, dtype=bool),
                           model=caption_model(punctuated))


def caption_entities(words: list[WordRow]) -> list[EntityRow]:
    """Named entities of caption words as written (cased captions by the cased model, upper-case
    ones by the lower-case tagger)."""
    return tag_entities([w.text for w in words])


#: Suffixes of a recording that sits next to its captions under the same name.
AUDIO_SUFFIXES = (".wav", ".mp3", ".m4a", ".mp4", ".ogg", ".opus", ".flac", ".mkv", ".webm", ".mov", ".aac")


def matching_audio(path: str | Path) -> Path | None:
    """The recording next to a caption file with the same name (``news.srt`` -> ``news.mp4``), if any."""
    path = Path(path)
    if not path.name:  # '' or '/': no name to put a suffix on (with_suffix would raise ValueError)
        return None
    for suffix in AUDIO_SUFFIXES:
        for candidate in (path.with_suffix(suffix), path.with_suffix(suffix.upper())):
            if candidate.is_file():
                return candidate
    return None


def import_transcript(
    store: Store, path: str | Path, *, audio: str | Path | None = None, report: JobReport | None = None,
    detector_settings: DetectorSettings | None = None, notice: Callable[[str], None] | None = None,
) -> int:
    """Read a caption file and index it as a recording; return its id.

    With ``audio`` the recording is that file (so hits play it) and the detectors run over it as at
    ingest (events, X-duration and transcribed flags per word, with ``detector_settings``); else the
    recording is the caption file itself (searchable, nothing to play). Stories are the file's own
    (NewsScape's story markers) or, where it marks none, the segmenter's; named entities are tagged
    as at ingest. Replaces an earlier import or ingest of the same recording path. Recording, words,
    segments, events, stories, entities and passages go in one transaction.

    ``report.progress(seconds_done, seconds_total)`` follows the decode of ``audio``; setting
    ``report.cancel`` stops it (Cancelled, nothing written). ``notice`` gets one line per run of
    unreadable rows the file was imported without (``FILE: lines 12-15 skipped: REASON``), after
    the transcript is written.
    """
    path = Path(path)
    report = report or JobReport()
    caps = read_captions(path)
    words, segments, stories = caption_words(caps)
    if not words:
        raise ParameterError(f"{path}: no words in the timed text")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    events: list[EventRow] = []
    x_duration: list[float] | None = None
    transcribed: list[bool] | None = None
    if audio is not None:
        info = probe(audio)
        target, size = info.path, info.size_bytes
        duration = max(info.duration, words[-1].end)
        sr, channels, codec, container = info.sample_rate, info.channels, info.codec, info.container
        heard = [Word(w.start, w.end, w.conf, w.text, w.display) for w in words]
        detections = recording_detections(info.path, heard, total_seconds=info.duration, settings=detector_settings,
                                          on_progress=report.progress, cancel=report.cancel)  # fmt: skip
        events, x_duration, transcribed = detection_rows(detections, len(words))
    else:
        target, size = str(path.resolve()), path.stat().st_size
        duration, sr, channels, codec, container = words[-1].end, 0, 0, NO_AUDIO_CODEC, caps.format
    stories = stories or caption_stories(words, x_duration, transcribed)
    entities = caption_entities(words)
    report.cancel.raise_if_cancelled()
    rec_id = store.save_recording(NewRecording(
        path=target, name=Path(target).name, content_hash=digest, size_bytes=size, duration=duration,
        sample_rate=sr, channels=channels, codec=codec, container=container, engine=IMPORT_ENGINE,
        model=f"{caps.format} captions", language="", words=words, segments=segments, x_duration=x_duration,
        transcribed=transcribed, events=events, stories=stories, entities=entities,
    ), then=lambda rec_id: index_passages(store, rec_id))
    for skipped in caps.skipped:
        (notice or (lambda line: None))(skipped.describe(path))
    return rec_id


def attach_audio(store: Store, recording_id: int, audio: str | Path, *, report: JobReport | None = None,
                 detector_settings: DetectorSettings | None = None) -> int:
    """Give a transcript imported without audio its recording: import its caption file again with
    ``audio``, in place of the audio-less one, in one transaction; return the new recording's id.

    The detectors run over ``audio`` as in :func:`import_transcript` (``report``: its progress and cancel).
    Raises ParameterError when the recording already has audio, or when its caption file or the
    audio cannot be read (AudioError).
    """
    rec = store.recording(recording_id)
    if has_audio(rec):
        raise ParameterError(f"{rec['name']}: already plays {rec['path']}")
    with store.atomic():
        new_id = import_transcript(store, rec["path"], audio=audio, report=report,
                                   detector_settings=detector_settings)
        store.remove_recording(recording_id)
    return new_id
