"""Entity spans and word-timed transcripts: what the readers produce and the scorer consumes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.entities import config

#: Every entity type the scorer and the tagger know, with the mark-up element it belongs to.
TYPE_ELEMENT = {
    **{t: "ENAMEX" for t in config.ENAMEX_TYPES},
    **{t: "TIMEX" for t in config.TIMEX_TYPES},
    **{t: "NUMEX" for t in config.NUMEX_TYPES},
}
ENTITY_TYPES = tuple(TYPE_ELEMENT)


@dataclass(frozen=True, slots=True)
class EntitySpan:
    """One entity mention over words ``first_word..last_word`` (inclusive, 0-based).

    ``text`` is the words as given (the tagger gives them lower case), ``score`` the
    tagger's confidence in [0, 1] (1.0 for mark-up read from a file).
    """

    type: str
    first_word: int
    last_word: int
    text: str
    score: float = 1.0

    @property
    def n_words(self) -> int:
        return self.last_word - self.first_word + 1


@dataclass
class Transcript:
    """Words ready for alignment, with their entities.

    Attributes
    ----------
    words : list of str
        Lexemes, upper case, no punctuation (section 2.1).
    starts, ends : ndarray, shape (n_words,), float64
        Word times in seconds; NaN where unknown. Reference word times are estimated
        from their segment's times.
    units : list of str
        Alignment unit of each word (a segment, utterance or file); ``""`` when the
        source has none. Units with the same name on both sides are aligned together.
    entities : list of EntitySpan
        In word order, never overlapping.
    where : list of (int, int)
        Line and column (1-based) in the source file of the text chunk each word came from.
    source : str
        File the transcript came from.
    segment_first : list of int
        First word of each timed segment of a reference (empty when it has none).
    """

    words: list[str]
    starts: np.ndarray
    ends: np.ndarray
    units: list[str]
    entities: list[EntitySpan]
    where: list[tuple[int, int]] = field(default_factory=list)
    source: str = ""
    segment_first: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.words)

    @property
    def timed(self) -> bool:
        return len(self.words) > 0 and not bool(np.isnan(self.starts).any())

    @classmethod
    def from_words(cls, words: list[str], entities: list[EntitySpan] | None = None, *,
                   starts: np.ndarray | None = None, ends: np.ndarray | None = None,
                   units: list[str] | None = None, source: str = "") -> Transcript:
        """A transcript from already normalised words (tests, generated data)."""
        n = len(words)
        nan = np.full(n, np.nan)
        return cls(list(words), nan.copy() if starts is None else np.asarray(starts, dtype=np.float64),
                   nan.copy() if ends is None else np.asarray(ends, dtype=np.float64),
                   list(units) if units is not None else [""] * n, list(entities or []), [], source)
