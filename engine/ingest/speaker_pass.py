"""Speaker turns during ingest: the decoded blocks feed the diarizer as they pass, then the
turns are cut where the detectors heard music, applause or laughter and each word gets its speaker."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence

import numpy as np

from engine import config
from engine.asr.base import Word
from engine.audio.decode import content_hash, iter_pcm_blocks
from engine.detect.events import Event
from engine.errors import AudioError, EarshotError, ModelError
from engine.ingest.speech_gate import sound_holes
from engine.jobs import JobReport
from engine.speakers import config as speaker_config
from engine.speakers.assign import talk_seconds, turns_outside, word_speakers
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.diarize import SR, Diarization, DiarizationStream, Diarizer, SpeakerTurn, check_speaker_count
from engine.speakers.segmentation import Segmentation
from engine.storage.store import SpeakerRow, SpeakerTurns, Store, TurnRow
from models.speakers import speaker_model_files

log = logging.getLogger("earshot.ingest")

_LOADED: Diarizer | None = None
_LOCK = threading.Lock()


def shared_diarizer() -> Diarizer:
    """The process's diarizer, loaded on first use (about 34 MB of weights). Raises ``ModelError`` when absent."""
    global _LOADED
    with _LOCK:
        if _LOADED is None:
            files = speaker_model_files()
            _LOADED = Diarizer(Segmentation.load(files.segmentation), CamPlusPlus.load(files.embedding))
        return _LOADED


def speaker_stream(total_seconds: float) -> DiarizationStream:
    """A diarization stream for one recording of about ``total_seconds``."""
    return shared_diarizer().stream(total_seconds=total_seconds)


def optional_speaker_stream(total_seconds: float) -> DiarizationStream | None:
    """:func:`speaker_stream`, or None (logged) when the speaker models are not installed."""
    try:
        return speaker_stream(total_seconds)
    except ModelError as error:
        log.warning("no speaker turns: %s", error)
        return None


def speaker_turns(found: Diarization, words: Sequence[Word], sounds: Sequence[Event], speech: Sequence[Event], *,
                  given: int | None = None) -> SpeakerTurns:
    """The index rows of a diarization: turns less music, applause, laughter and audience
    (``config.SPEAKERLESS_EVENT_TYPES``; speech under music stays), speakers numbered from 1 by
    first appearance after that cut, and each word's speaker. ``given``: the count the user fixed."""
    holes = sound_holes(sounds, speech, types=config.SPEAKERLESS_EVENT_TYPES)
    cut = turns_outside(found.turns, holes, min_seconds=speaker_config.MIN_TURN_SECONDS)
    order = {k: n for n, k in enumerate(dict.fromkeys(t.speaker for t in cut))}
    turns = [SpeakerTurn(t.start, t.end, order[t.speaker]) for t in cut]
    seconds = talk_seconds(turns, len(order))
    centroids = {order[k]: found.centroids[k] for k in order if k < found.centroids.shape[0]}
    speakers = [SpeakerRow(n + 1, seconds[n], _blob(centroids.get(n))) for n in range(len(order))]
    per_word = word_speakers([w.start for w in words], [w.end for w in words], turns)
    return SpeakerTurns(
        speakers=speakers,
        turns=[TurnRow(t.speaker + 1, t.start, t.end) for t in turns],
        word_speakers=[None if k is None else k + 1 for k in per_word],
        given=given,
    )


def _blob(centroid: np.ndarray | None) -> bytes | None:
    return None if centroid is None else np.asarray(centroid, dtype="<f4").tobytes()


def recompute_speakers(store: Store, rec_id: int, *, n_speakers: int | None, report: JobReport | None = None) -> int:
    """Diarize a stored recording again from its file (into ``n_speakers``, or estimated when None)
    and replace its speakers, turns and word speakers in one transaction; names start afresh.

    The stored words and events are used as ingest would. Returns the number of speakers.
    Raises ``AudioError`` when the file is gone or undecodable, ``EarshotError`` when its content
    changed since it was indexed, ``Cancelled`` when ``report`` is cancelled.
    """
    check_speaker_count(n_speakers)
    rec = store.recording(rec_id)
    path = str(rec["path"])
    if not os.path.exists(path):
        raise AudioError(path, "file not found; speakers are found from the audio")
    if content_hash(path) != rec["content_hash"]:
        raise EarshotError(f"{path}: the file changed since it was indexed; ingest it again ('earshot ingest --force')")
    report = report or JobReport()
    stream = shared_diarizer().stream(total_seconds=float(rec["duration"]), report=report)
    for block in iter_pcm_blocks(path, sr=SR):
        report.cancel.raise_if_cancelled()
        stream.feed(block)
    found = stream.finish(n_speakers=n_speakers)
    events = [Event(str(e["type"]), float(e["start"]), float(e["end"]), float(e["score"] or 0.0), float(e["value"] or 0.0))
              for e in store.events(rec_id)]
    words = [Word(float(w["start"]), float(w["end"]), float(w["conf"]), str(w["text"])) for w in store.words(rec_id)]
    sounds = [e for e in events if e.type in config.NON_SPEECH_EVENT_TYPES]
    rows = speaker_turns(found, words, sounds, [e for e in events if e.type == "speech"], given=n_speakers)
    store.replace_speakers(rec_id, rows)
    return len(rows.speakers)
