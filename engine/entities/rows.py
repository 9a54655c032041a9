"""Named entities as the index stores them, from the words as shown."""

from __future__ import annotations

from collections.abc import Sequence

from engine.entities.tagger import tag_shown
from engine.storage.store import EntityRow

#: Punctuation shown words carry at a mention's edges ("Paris," -> "Paris").
_EDGE_PUNCTUATION = ".,;:!?\"'()[]"


def tag_entities(texts: Sequence[str], *, language: str | None = "") -> list[EntityRow]:
    """Named entities in the words as shown: the cased model when they carry case (Whisper, most
    captions), the gazetteer-and-rules tagger when they do not (Vosk, upper-case captions), none in a
    language other than English."""
    return [EntityRow(s.type, s.text.strip(_EDGE_PUNCTUATION), s.first_word, s.last_word, s.score)
            for s in tag_shown(texts, language=language)]
