"""Named-entity tagging of recognizer output (lower case, no punctuation).

``tag_words(words)`` runs the shipped tagger (gazetteers and rules, loaded once);
``load_tagger(path)`` loads a trained statistical model (``entities train``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from engine.entities.spans import EntitySpan
from engine.entities.tagger.model import PerceptronTagger
from engine.entities.tagger.rules import RuleTagger
from engine.paths import data_dir


class Tagger(Protocol):
    name: str

    def tag(self, words: Sequence[str]) -> list[EntitySpan]: ...


@functools.cache
def _shipped() -> Tagger:
    return RuleTagger()


def load_tagger(model: str | Path | None = None) -> Tagger:
    """The shipped tagger (``model`` None or ``"rules"``), or a trained model: a name under
    the user data folder's ``models/entities`` or a path to an ``.npz`` file."""
    if model is None or str(model) == "rules":
        return _shipped()

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


__all__ = ["EntitySpan", "Tagger", "load_tagger", "model_path", "tag_words"]
