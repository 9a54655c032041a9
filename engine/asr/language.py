"""Which language a recording is in, heard by the multilingual Whisper base on its speech.

A few windows spread over the file, each cut to its speech by the Silero voice-activity filter
that ships with faster-whisper (so silence and music are left out), each give Whisper's
probability for every language;
the probabilities are averaged over the windows and the most probable language wins.
An average below ``config.LANGUAGE_MIN_PROBABILITY`` is uncertain: the model's own
language is kept, and the note says so.

:func:`decide_language` then says what the file is transcribed in: a multilingual model
is told the language heard; a one-language model (tiny.en, a Vosk model) refuses a file
confidently heard in another language with :class:`~engine.errors.LanguageMismatch`,
so nothing is indexed as invented English.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine import config
from engine.asr.whisper_engine import speech_spans
from engine.errors import EarshotError, LanguageMismatch

#: Names shown to a user for the languages most likely met; other codes are shown as they are.
LANGUAGE_NAMES = {
    "en": "English", "fr": "French", "es": "Spanish", "de": "German", "it": "Italian", "ru": "Russian",
    "pt": "Portuguese", "nl": "Dutch", "ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ar": "Arabic",
    "pl": "Polish", "tr": "Turkish", "sv": "Swedish", "hi": "Hindi", "uk": "Ukrainian", "ca": "Catalan",
}
#: The embedded multilingual model a one-language model's user is pointed to.
MULTILINGUAL_MODEL = "whisper-base"


def language_name(code: str) -> str:
    """``"fr"`` -> ``"French"``; an unknown code is returned as it is."""
    return LANGUAGE_NAMES.get(code, code)


@dataclass(frozen=True)
class LanguageGuess:
    """The language heard in a file.

    Attributes
    ----------
    language : ISO 639-1 code of the most probable language; ``""`` when nothing was identified.
    probability : its probability averaged over the windows, in [0, 1].
    windows : how many windows of speech were heard.
    scores : the five most probable languages, code -> averaged probability.
    """

    language: str
    probability: float
    windows: int
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def confident(self) -> bool:
        """Whether the averaged probability reaches ``config.LANGUAGE_MIN_PROBABILITY``."""
        return bool(self.language) and self.probability >= config.LANGUAGE_MIN_PROBABILITY

    def describe(self) -> str:
        """``"French (fr, p=0.97)"``."""
        return f"{language_name(self.language)} ({self.language}, p={self.probability:.2f})"


@dataclass(frozen=True)
class LanguageDecision:
    """What a file is transcribed and stored in: ``language`` (code) and a note for the user (may be empty)."""

    language: str
    note: str = ""


def identify_language(model: Any, windows: Sequence[np.ndarray]) -> LanguageGuess:
    """Average Whisper's language probabilities over ``windows`` (float32 in [-1, 1], shape (n,), 16 kHz).

    ``model`` is a multilingual ``faster_whisper.WhisperModel``. No windows: an empty guess.
    """
    totals: dict[str, float] = {}
    heard = [w for w in windows if w.size >= int(config.LANGUAGE_MIN_SPEECH_SECONDS * 16000)]
    for window in heard:
        for code, p in _language_probabilities(model, window):
            totals[code] = totals.get(code, 0.0) + float(p)
    if not totals:
        return LanguageGuess("", 0.0, 0)
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    scores = {code: round(total / len(heard), 4) for code, total in ranked[:5]}
    code, total = ranked[0]
    return LanguageGuess(code, total / len(heard), len(heard), scores)


def _language_probabilities(model: Any, window: np.ndarray) -> list[tuple[str, float]]:
    """Whisper's probability of each language for ``window`` (float32, shape (n,), 16 kHz, at most 30 s).

    The encoder hears the window's own length, not the window padded with silence to 30 s as
    ``WhisperModel.detect_language`` pads it: the 5 s of a short file cost a sixth of the 30 s
    encoder pass (its cost grows with the frames heard).
    """
    extractor = model.feature_extractor
    features = extractor(np.asarray(window, dtype=np.float32))[..., : extractor.nb_max_frames]
    found = model.model.detect_language(model.encode(features))[0]
    return [(token[2:-2], float(p)) for token, p in found]  # "<|en|>" -> "en"


def speech_only(window: np.ndarray) -> np.ndarray:
    """The speech of ``window`` (float32, shape (n,), 16 kHz) as Silero's voice-activity filter inside
    faster-whisper finds it, joined (shape (m,), m <= n): music, silence and noise left out."""
    spans = speech_spans(window)
    if not spans:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate([window[a:b] for a, b in spans]).astype(np.float32, copy=False)


def window_starts(duration: float, *, window: float = config.LANGUAGE_WINDOW_SECONDS,
                  max_windows: int = config.LANGUAGE_MAX_WINDOWS) -> list[float]:
    """Where the identifier's windows of ``window`` s start in a file of ``duration`` s: as many as
    cover it (at most ``max_windows``), spread evenly from its start to its last ``window`` s, so
    the file's end is heard as well as its start (a broadcast that opens on 30 s of music and
    speaks after it is identified by its speech). A file shorter than one window is one window.
    """
    if duration <= 0:
        return []
    n = max(1, min(max_windows, math.ceil(duration / window)))
    last = max(duration - window, 0.0)
    return [last * k / (n - 1) for k in range(n)] if n > 1 else [0.0]


def decide_language(guess: LanguageGuess, *, own: str, model_name: str, multilingual: bool,
                    path: str | Path) -> LanguageDecision:
    """The language ``path`` is transcribed in with the model ``model_name``.

    ``own``: the language the model was set to (``"en"`` for tiny.en, ``""`` for a multilingual
    model told nothing). A multilingual model told nothing is told what was heard (its top
    guess, with a note, when uncertain); one told a language keeps it. A one-language model
    keeps its language when the guess agrees or is uncertain, and raises LanguageMismatch
    (one line: the file, what was heard, what to do) when not; one whose language is unknown
    (``"und"``, a folder registered without ``--language``) stores what was heard.
    """
    own = own.split("-")[0].lower() if own not in ("", "und", "multi") else ""
    if not guess.language:
        return LanguageDecision(own, "language not identified (too little speech)")
    if multilingual and not own:
        if guess.confident:
            return LanguageDecision(guess.language)
        return LanguageDecision(guess.language, f"language uncertain ({_top(guess)}); transcribed as {guess.language}")
    if not multilingual and not own:  # a one-language model of unknown language: nothing to compare with
        return LanguageDecision(guess.language if guess.confident else "")
    if guess.language == own or not guess.confident:
        note = "" if guess.language == own else f"language uncertain ({_top(guess)}); transcribed as {own}"
        return LanguageDecision(own, note)
    if multilingual:
        return LanguageDecision(own, f"heard {guess.describe()}; transcribed as {own}, the language the model was told")
    raise LanguageMismatch(
        f"{path}: heard {guess.describe()}, but {model_name} transcribes only {language_name(own)}; "
        f"choose the {MULTILINGUAL_MODEL} model (earshot ingest --model {MULTILINGUAL_MODEL}, or Settings > Models)"
    )


def _top(guess: LanguageGuess) -> str:
    return ", ".join(f"{code} {p:.2f}" for code, p in list(guess.scores.items())[:3])


class LanguageIdentifier:
    """Identifies the language of files for one transcriber, loading Whisper base when it is not one.

    A multilingual Whisper transcriber identifies with its own model; any other
    (tiny.en, Vosk) with the embedded Whisper base, loaded on first use. Without
    base installed, files are not identified (``model()`` is None). ``own`` is the
    language the transcriber was loaded with, before any file set it.
    """

    def __init__(self, transcriber: Any) -> None:
        own_model = getattr(transcriber, "whisper_model", None)
        self.multilingual = own_model is not None and bool(own_model.model.is_multilingual)
        self.own = str(getattr(transcriber, "language", "") or "")
        self._model: Any = own_model if self.multilingual else None
        self._tried = self.multilingual

    def model(self) -> Any:
        """The multilingual WhisperModel that identifies, or None if none is installed."""
        if not self._tried:
            self._tried = True
            from engine.asr.whisper_load import load_whisper_model
            from models.embedded_base import embedded_whisper_base

            base = embedded_whisper_base()
            if base is not None:
                try:
                    self._model = load_whisper_model(base.spec())
                except EarshotError:
                    self._model = None
        return self._model


_IDENTIFIERS: weakref.WeakKeyDictionary[Any, LanguageIdentifier] = weakref.WeakKeyDictionary()


def identifier_for(transcriber: Any) -> LanguageIdentifier:
    """The identifier of ``transcriber``, made on first use and kept as long as the transcriber."""
    found = _IDENTIFIERS.get(transcriber)
    if found is None:
        found = _IDENTIFIERS[transcriber] = LanguageIdentifier(transcriber)
    return found
