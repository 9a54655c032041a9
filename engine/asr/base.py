"""The transcriber interface every recognition engine implements."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.errors import ModelError


@dataclass(frozen=True)
class Word:
    """One recognised word; times in seconds from the start of the audio, conf in [0, 1].

    ``text`` is the normalised lower-case token search and the index use;
    ``display`` the cased, punctuated form as the recogniser wrote it (empty:
    the same as ``text``).
    """

    start: float
    end: float
    conf: float
    text: str
    display: str = ""

    @property
    def shown(self) -> str:
        """What a reader sees: ``display``, else ``text``."""
        return self.display or self.text


@dataclass(frozen=True)
class ModelSpec:
    """Which engine and model folder to load.

    Attributes
    ----------
    engine : ``"whisper"`` or ``"vosk"`` (the benches' baseline also uses ``"pocketsphinx"``).
    name : the model's name as the model manager lists it.
    path : the model folder.
    language : language code, e.g. ``"en"`` or ``"ko"``.
    note : a hint for the user (e.g. that a better model can be downloaded).
    """

    engine: str
    name: str
    path: str
    language: str = ""
    note: str = ""


class Transcriber(Protocol):
    """Streams 16 kHz mono int16 blocks in, word-timed utterances out."""

    engine: str
    model_name: str
    language: str

    def transcribe(self, blocks: Iterable[np.ndarray], *, sr: int) -> Iterator[list[Word]]:
        """Consume ``blocks`` (each shape (n,), int16) lazily; yield one list of words per utterance."""
        ...


def load_transcriber(spec: ModelSpec) -> Transcriber:
    """Load the engine named by ``spec``; raises ModelError if it cannot."""
    if spec.engine == "vosk":
        from engine.asr.vosk_engine import VoskTranscriber

        return VoskTranscriber(spec)
    if spec.engine == "whisper":
        from engine.asr.whisper_engine import WhisperTranscriber

        return WhisperTranscriber(spec)
    raise ModelError(f"{spec.name}: unknown recognition engine {spec.engine!r} (expected whisper or vosk)")
