"""Word error rate of a transcript against a reference, after the normalisation scoring needs.

Recognisers write the same spoken words differently ("Mr." / "mister", "25" /
"twenty five", "it's" / "it is" stays as is): both sides are reduced to
lower-case tokens with numbers spelled out before the edit distance is taken.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.writing import number_words

_TOKEN = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*|[$%&]")
_SPOKEN = {
    "mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint", "&": "and", "%": "percent",
    "$": "dollars", "ok": "okay", "u.s": "us",
}


def _ordinal_or_number(token: str) -> list[str]:
    digits = token.replace(".", "")
    if digits.isdecimal() and len(digits) <= 12:
        return number_words(int(digits))
    return [token]


def scoring_tokens(texts: Iterable[str]) -> list[str]:
    """Lower-case tokens of ``texts`` with numbers spelled out and common abbreviations expanded."""
    out: list[str] = []
    for text in texts:
        for token in _TOKEN.findall(text.lower().replace("’", "'").replace(",", "")):
            token = _SPOKEN.get(token, token)
            out += _ordinal_or_number(token) if token[0].isdigit() else token.split()
    return out


@dataclass(frozen=True)
class WordErrors:
    """Edit-distance alignment counts of a hypothesis against a reference."""

    substitutions: int
    deletions: int
    insertions: int
    reference_words: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float:
        """Errors per reference word (0 for an empty reference with no hypothesis)."""
        return self.errors / self.reference_words if self.reference_words else float(self.errors > 0)

    def __add__(self, other: WordErrors) -> WordErrors:
        return WordErrors(self.substitutions + other.substitutions, self.deletions + other.deletions,
                          self.insertions + other.insertions, self.reference_words + other.reference_words)


def word_errors(reference: Sequence[str], hypothesis: Sequence[str]) -> WordErrors:
    """Levenshtein alignment of two token lists (already normalised), counted by error kind."""
    n, m = len(reference), len(hypothesis)
    cost = np.zeros((n + 1, m + 1), dtype=np.int64)
    cost[:, 0], cost[0, :] = np.arange(n + 1), np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sub = cost[i - 1, j - 1] + (reference[i - 1] != hypothesis[j - 1])
            cost[i, j] = min(sub, cost[i - 1, j] + 1, cost[i, j - 1] + 1)
    i, j, s, d, ins = n, m, 0, 0, 0
    while i or j:
        if i and j and cost[i, j] == cost[i - 1, j - 1] + (reference[i - 1] != hypothesis[j - 1]):
            s += reference[i - 1] != hypothesis[j - 1]
            i, j = i - 1, j - 1
        elif i and cost[i, j] == cost[i - 1, j] + 1:
            d, i = d + 1, i - 1
        else:
            ins, j = ins + 1, j - 1
    return WordErrors(int(s), d, ins, n)
