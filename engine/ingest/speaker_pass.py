"""Speaker turns during ingest: the decoded blocks feed the diarizer as they pass, then the
turns are cut where the detectors heard music, applause or laughter and each word gets its speaker."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from engine import config
from engine.asr.base import Word
from engine.detect.events import Event
from engine.ingest.speech_gate import sound_holes
from engine.speakers import config as speaker_config
from engine.speakers.assign import talk_seconds, turns_outside, word_speakers
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.diarize import Diarization, DiarizationStream, Diarizer, SpeakerTurn
from engine.speakers.segmentation import Segmentation
from engine.storage.store import SpeakerRow, SpeakerTurns, TurnRow
from models.speakers import speaker_model_files

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
