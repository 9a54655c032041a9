"""The language step of an ingest: identify what a file is in before any word is recognised."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import config
from engine.asr.base import Transcriber
from engine.asr.language import (
    LanguageGuess,
    decide_language,
    identifier_for,
    identify_language,
    read_windows,
    speech_only,
    window_ranges,
)
from engine.audio.decode import AudioInfo, iter_pcm_blocks


@dataclass(frozen=True)
class HeardLanguage:
    """The language a file is transcribed and stored in, what was heard, and a note for the user."""

    language: str
    guess: LanguageGuess
    note: str = ""


def hear_language(info: AudioInfo, transcriber: Transcriber, *, spans: Sequence[tuple[float, float]] | None,
                  sr: int = config.TARGET_SAMPLE_RATE) -> HeardLanguage:
    """Identify the language of ``info.path`` on its speech ``spans`` (seconds; None: windows spread
    over the whole file, each cut to its speech by the voice-activity filter).

    Tells a multilingual transcriber the language to decode in. Raises LanguageMismatch when a
    one-language model would have to transcribe a language it does not know.
    """
    identifier = identifier_for(transcriber)
    model = identifier.model()
    if model is None:
        note = "language not identified: the multilingual Whisper base is not installed"
        return HeardLanguage(identifier.own.split("-")[0], LanguageGuess("", 0.0, 0), note)
    ranges = window_ranges(list(spans) if spans is not None else [(0.0, info.duration)])
    windows = read_windows(iter_pcm_blocks(info.path, sr=sr), ranges, sr=sr)
    guess = identify_language(model, [speech_only(w) for w in windows] if spans is None else windows)
    decision = decide_language(guess, own=identifier.own, model_name=transcriber.model_name,
                               multilingual=identifier.multilingual, path=info.path)
    if identifier.multilingual:
        transcriber.language = decision.language
    return HeardLanguage(decision.language, guess, decision.note)
