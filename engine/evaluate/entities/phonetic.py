"""Phone-level alignment of word strings (after Fisher & Fiscus 1993, as the paper uses it).

Both word strings become phone strings with a boundary symbol between words. A weighted
edit distance aligns them: similar phones substitute cheaply, a word boundary may be
inserted or deleted cheaply, a boundary never meets a phone. Words whose phones meet
are linked; linked words form one alignment column, so one reference word may align
with two hypothesis words (GINGRICH ~ GOOD RICH) and two with one (NEW YORK ~ NEWARK).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from engine.entities import config
from engine.evaluate.entities._kernels import _link_columns, _links, _phone_dp
from engine.evaluate.entities.pronounce import BOUNDARY, PHONES, Lexicon

# Vowels: (height 1 = high .. 4 = low, backness 1 = front .. 3 = back, rounding 0..1).
_VOWELS = {
    "IY": (1, 1, 0), "IH": (1.5, 1, 0), "EY": (2, 1, 0), "EH": (2.5, 1, 0), "AE": (3.5, 1, 0),
    "AH": (2.5, 2, 0), "ER": (2.5, 2, 0), "AA": (4, 3, 0), "AO": (3, 3, 1), "OW": (2, 3, 1),
    "UH": (1.5, 3, 1), "UW": (1, 3, 1), "AW": (3.5, 2.5, 0.5), "AY": (3.5, 2, 0), "OY": (3, 2.5, 1),
}
# Consonants: (place 1 = lips .. 8 = glottis, manner, voiced).
_CONSONANTS = {
    "P": (1, "stop", 0), "B": (1, "stop", 1), "M": (1, "nasal", 1), "W": (1, "approx", 1),
    "F": (2, "fric", 0), "V": (2, "fric", 1), "TH": (3, "fric", 0), "DH": (3, "fric", 1),
    "T": (4, "stop", 0), "D": (4, "stop", 1), "N": (4, "nasal", 1), "S": (4, "fric", 0), "Z": (4, "fric", 1),
    "L": (4, "lateral", 1), "R": (5, "approx", 1), "SH": (5, "fric", 0), "ZH": (5, "fric", 1),
    "CH": (5, "affric", 0), "JH": (5, "affric", 1), "Y": (6, "approx", 1), "K": (7, "stop", 0),
    "G": (7, "stop", 1), "NG": (7, "nasal", 1), "HH": (8, "fric", 0),
}
_SEMIVOWELS = {"W", "Y", "R", "L"}
_NEAR_MANNERS = {frozenset(("affric", "stop")), frozenset(("affric", "fric")), frozenset(("approx", "lateral"))}
_FORBIDDEN = 1e9


def phone_distance(p: str, q: str) -> float:
    """Substitution cost of phone ``p`` by ``q`` (0 when equal; about 0.35-1.6 otherwise)."""
    if p == q:
        return 0.0
    if p in _VOWELS and q in _VOWELS:
        (h1, b1, r1), (h2, b2, r2) = _VOWELS[p], _VOWELS[q]
        return min(1.2, config.PHONE_SUB_BASE + 0.15 * (abs(h1 - h2) + abs(b1 - b2) + abs(r1 - r2)))
    if p in _CONSONANTS and q in _CONSONANTS:
        (pl1, m1, v1), (pl2, m2, v2) = _CONSONANTS[p], _CONSONANTS[q]
        manner = 0.0 if m1 == m2 else (0.15 if frozenset((m1, m2)) in _NEAR_MANNERS else 0.3)
        return min(1.3, config.PHONE_SUB_BASE + 0.08 * min(abs(pl1 - pl2), 3) + manner + 0.15 * abs(v1 - v2))
    if {p, q} == {"ER", "R"}:
        return 0.5
    if p in _SEMIVOWELS or q in _SEMIVOWELS:
        return 1.0
    return config.PHONE_SUB_VOWEL_CONSONANT


@functools.cache
def cost_tables() -> tuple[np.ndarray, np.ndarray]:
    """(sub_cost, indel_cost): float64 arrays of shape (n_phones, n_phones) and (n_phones,)."""
    n = len(PHONES)
    sub = np.empty((n, n), dtype=np.float64)
    for i, p in enumerate(PHONES):
        for j, q in enumerate(PHONES):
            if i == BOUNDARY or j == BOUNDARY:
                sub[i, j] = 0.0 if i == j else _FORBIDDEN
            else:
                sub[i, j] = phone_distance(p, q)
    indel = np.full(n, config.PHONE_INDEL)
    indel[BOUNDARY] = config.BOUNDARY_INDEL
    return sub, indel


class PhoneString:
    """All words of one transcript as phones, a boundary before, between and after them.

    ``ids`` (int8) and ``owner`` (int64, word index, -1 at boundaries) have one entry per
    symbol; :meth:`span` returns the symbols of words ``lo..hi-1`` without copying.
    """

    def __init__(self, words: Sequence[str], lexicon: Lexicon) -> None:
        prons = [lexicon.phones(w) for w in words]
        lengths = np.fromiter((len(p) for p in prons), dtype=np.int64, count=len(prons))
        # word k's phones start after k + 1 boundaries and the phones of the words before it
        self.first = np.arange(1, len(prons) + 1, dtype=np.int64) + np.concatenate(([0], np.cumsum(lengths)[:-1]))
        self.lengths = lengths
        total = 1 + int(lengths.sum()) + len(prons)
        self.ids = np.zeros(total, dtype=np.int8)
        self.owner = np.full(total, -1, dtype=np.int64)
        if prons:
            where = np.repeat(self.first, lengths) + (np.arange(int(lengths.sum())) - np.repeat(self.first - self.first[0]
                                                                                                  - np.arange(len(prons)),
                                                                                                  lengths))
            self.ids[where] = np.concatenate(prons)
            self.owner[where] = np.repeat(np.arange(len(prons)), lengths)

    def span(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        a = self.first[lo] - 1
        b = self.first[hi - 1] + self.lengths[hi - 1]
        return self.ids[a:b + 1], self.owner[a:b + 1]


def word_links(ref: PhoneString, hyp: PhoneString, r0: int, r1: int, h0: int, h1: int) -> tuple[np.ndarray, np.ndarray]:
    """For reference words ``r0..r1-1``, the first and last hypothesis word (``h0..h1-1``,
    chunk-relative) their phones meet; -1 where none. Two int64 arrays of shape (r1 - r0,)."""
    if r1 == r0 or h1 == h0:
        return np.full(r1 - r0, -1, dtype=np.int64), np.full(r1 - r0, -1, dtype=np.int64)
    rp, rown = ref.span(r0, r1)
    hp, hown = hyp.span(h0, h1)
    sub, indel = cost_tables()
    ops = _phone_dp(rp, hp, sub, indel)
    return _links(ops, rown, hown, r0, h0, r1 - r0)


def link_columns(lo: np.ndarray, hi: np.ndarray, n_hyp: int) -> np.ndarray:
    """Alignment columns ``(ref_lo, ref_hi, hyp_lo, hyp_hi)`` (half-open, chunk-relative) from word links.

    Linked words sharing a hypothesis word fall in one column; unlinked reference words
    between two words of a column join it; other unlinked words are deletions and
    insertions of their own. Returns an int64 array of shape (n_columns, 4).
    """
    return _link_columns(np.ascontiguousarray(lo, dtype=np.int64), np.ascontiguousarray(hi, dtype=np.int64), n_hyp)
