"""The language step of an ingest: identify what a file is in before any word is recognised."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import config
from engine.asr.base import Transcriber
from engine.asr.language import (
    LanguageGuess,
    decide_language,
    identifier_for,
    identify_language,
    speech_only,
    window_starts,
)
from engine.audio.decode import AudioInfo, decode_range


@dataclass(frozen=True)
class HeardLanguage:
    """The language a file is transcribed and stored in, what was heard, and a note for the user."""

    language: str
    guess: LanguageGuess
    note: str = ""


def language_windows(info: AudioInfo, *, sr: int = config.TARGET_SAMPLE_RATE) -> list[np.ndarray]:
    """The speech the identifier hears in ``info.path``: windows spread over the whole file, its
    start and end included (:func:`window_starts`), each decoded on its own (a seek, not a read
    from the start) and cut to its speech by the voice-activity filter, of which the first
    ``config.LANGUAGE_SPEECH_SECONDS`` are kept; float32 in [-1, 1], each of shape (n,),
    n <= LANGUAGE_SPEECH_SECONDS x ``sr``."""
    span, keep = config.LANGUAGE_WINDOW_SECONDS, round(config.LANGUAGE_SPEECH_SECONDS * sr)
    return [speech_only(decode_range(info.path, start, start + span, sr=sr).astype(np.float32) / 32768.0)[:keep]
            for start in window_starts(info.duration)]


def hear_language(info: AudioInfo, transcriber: Transcriber, *, sr: int = config.TARGET_SAMPLE_RATE) -> HeardLanguage:
    """Identify the language of ``info.path`` on :func:`language_windows`.

    Tells a multilingual transcriber the language to decode in. Raises LanguageMismatch when a
    one-language model would have to transcribe a language it does not know.
    """
    identifier = identifier_for(transcriber)
    model = identifier.model()
    if model is None:
        note = "language not identified: the multilingual Whisper base is not installed"
        return HeardLanguage(identifier.own.split("-")[0], LanguageGuess("", 0.0, 0), note)
    guess = identify_language(model, language_windows(info, sr=sr))
    decision = decide_language(guess, own=identifier.own, model_name=transcriber.model_name,
                               multilingual=identifier.multilingual, path=info.path)
    if identifier.multilingual:
        transcriber.language = decision.language
    return HeardLanguage(decision.language, guess, decision.note)
