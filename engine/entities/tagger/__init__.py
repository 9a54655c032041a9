"""Named-entity tagging of recognizer output.

``tag_shown(words, language=)`` is what ingest calls: words as the recogniser shows them go
to the shipped cased model when they carry case (Whisper), else to the gazetteer-and-rules
tagger for lower-case words (Vosk); recordings in another language get no tags.
``tag_words(words)`` runs the lower-case tagger alone; ``load_tagger(path)`` loads a trained
statistical model (``entities train``). Each shipped tagger is loaded once per process.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from engine.entities import config
from engine.entities.spans import EntitySpan
from engine.entities.tagger.model import PerceptronTagger
from engine.entities.tagger.rules import RuleTagger
from engine.errors import ModelError
from engine.paths import data_dir
from models.entities import cased_model_path

log = logging.getLogger("earshot.entities")


class Tagger(Protocol):
    name: str

    def tag(self, words: Sequence[str]) -> list[EntitySpan]: ...


@functools.cache
def _shipped() -> Tagger:
    return RuleTagger()


@functools.cache
def _shipped_cased() -> Tagger:
    return PerceptronTagger.load(cased_model_path())


@functools.cache
def _cased_or_none() -> Tagger | None:
    """The shipped cased model, or None (logged once) when its file is missing or not the pinned one."""
    try:
        return _shipped_cased()
    except ModelError as exc:
        log.warning("cased words get the lower-case tagger: %s", exc)
        return None


def load_tagger(model: str | Path | None = None) -> Tagger:
    """The shipped lower-case tagger (``model`` None or ``"rules"``), the shipped cased model
    (``"cased"``), or a trained model: a name under the user data folder's ``models/entities``
    or a path to an ``.npz`` file."""
    if model is None or str(model) == "rules":
        return _shipped()
    if str(model) == "cased":
        return _shipped_cased()

    return PerceptronTagger.load(model_path(model))


def model_path(model: str | Path) -> Path:
    """Where a named model lives (a path ending in .npz is taken as is)."""
    path = Path(model)
    if path.suffix == ".npz" or path.parent != Path("."):
        return path

    return data_dir() / "models" / "entities" / f"{path.name}.npz"


def tag_words(words: Sequence[str]) -> list[EntitySpan]:
    """Entities (PERSON, LOCATION, ORGANIZATION, DATE, TIME, MONEY, PERCENT) in recognizer words.

    ``words`` are the transcript's words in order (any case; punctuation is ignored);
    spans index into them, ``last_word`` inclusive. Tens of thousands of words per second
    after the first call, which loads the gazetteers (about half a second).
    """
    return _shipped().tag(words)


def words_are_cased(words: Sequence[str]) -> bool:
    """Whether words carry case a tagger can use: some capitalised, most not all capitals
    (recogniser output in lower case, or captions in capitals, do not)."""
    lettered = [w for w in words if any(ch.isalpha() for ch in w)]
    if not lettered:
        return False
    capitalised = sum(any(ch.isupper() for ch in w) for w in lettered)
    shouting = sum(w.isupper() and sum(ch.isalpha() for ch in w) > 1 for w in lettered)
    return capitalised >= config.CASED_MIN_CAPITALISED * len(lettered) and \
        shouting < config.CASED_MAX_ALL_CAPITALS * len(lettered)


def is_english(language: str | None) -> bool:
    """English or unknown (``""``, ``"und"``, None): the languages the shipped taggers read."""
    code = (language or "").split("-")[0].split("_")[0].lower()
    return code in ("", "und", "en", "eng", "english")


def tag_shown(words: Sequence[str], *, language: str | None = "") -> list[EntitySpan]:
    """Entities in one recording's words as the recogniser shows them.

    Cased words (:func:`words_are_cased`) go to the shipped cased model (PERSON, LOCATION,
    ORGANIZATION from case, punctuation and sentence starts, with the rules' DATE, TIME,
    MONEY, PERCENT); others, or all when that model's file is missing, to the lower-case tagger.
    A recording in a language other than English (``language``, a code such as ``"fr"``) gets
    none: both taggers know English only.
    """
    if not words or not is_english(language):
        return []
    cased = _cased_or_none() if words_are_cased(words) else None
    return (cased or _shipped()).tag(words)


__all__ = ["EntitySpan", "Tagger", "is_english", "load_tagger", "model_path", "tag_shown", "tag_words",
           "words_are_cased"]
