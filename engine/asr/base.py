"""The transcriber interface every recognition engine implements."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

# What a model folder is and which engine reads it: models/ finds the folder, the engine loads it.
from models.records import ModelSpec as ModelSpec


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


class Transcriber(Protocol):
    """Streams 16 kHz mono int16 blocks in, word-timed utterances out."""

    engine: str
    model_name: str
    language: str

    def transcribe(
        self, blocks: Iterable[np.ndarray], *, sr: int, on_heard: Callable[[float], None] | None = None
    ) -> Iterator[list[Word]]:
        """Consume ``blocks`` (each shape (n,), int16) lazily; yield one list of words per utterance.
        ``on_heard(seconds)`` is told how far into the stream recognition has got (it may lag the
        blocks consumed by a whole chunk)."""
        ...
