"""The shipped gazetteers (``models/gazetteers``), loaded once per process.

Phrases are lower-case ASCII words separated by single spaces, as recognizer output.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

GAZETTEER_DIR = Path(__file__).resolve().parents[3] / "models" / "gazetteers"
MAX_PHRASE_WORDS = 6


def fold_token(token: str) -> str:
    """A recognizer or text token as the gazetteers spell it: lower case ASCII, hyphens as
    spaces, other punctuation gone. ``"Wilkes-Barre,"`` -> ``"wilkes barre"``."""
    ascii_ = token if token.isascii() else unicodedata.normalize("NFKD", token).encode("ascii", "ignore").decode()
    text = ascii_.lower()
    text = text.replace("'", "")
    if text.isalnum():
        return text
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


class Place(NamedTuple):
    """A place name's kind (continent, country, state, region, city) and population (0: not known)."""

    kind: str
    population: int


@dataclass
class Gazetteers:
    """Look-up tables; build with :func:`load_gazetteers`."""

    places: dict[str, Place]
    companies: set[str]
    curated: dict[str, str]
    first_names: dict[str, float]
    surnames: dict[str, float]
    zipf: dict[str, float]

    def common(self, word: str) -> float:
        """Zipf frequency of a word (0 for words outside the list)."""
        return self.zipf.get(word, 0.0)


@functools.cache
def load_gazetteers(folder: str | None = None) -> Gazetteers:
    """Read the .tsv files once; later calls return the same object."""
    base = Path(folder) if folder else GAZETTEER_DIR

    def columns(name: str, n: int) -> list[list[str]]:
        """The file's ``n`` tab-separated columns, comment lines (``#``) left out; a row of another width
        is refused."""
        path = base / name
        lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line and line[0] != "#"]
        cells = "\t".join(lines).split("\t")  # one split of the whole file: 120,000 rows in milliseconds
        if len(cells) != n * len(lines):
            raise ValueError(f"{path}: every row must have {n} tab-separated columns")
        return [cells[k::n] for k in range(n)]

    def weights(name: str) -> dict[str, float]:
        words, values = columns(name, 2)
        return dict(zip(words, map(float, values), strict=True))

    names, kinds, populations = columns("locations.tsv", 3)
    places = dict(zip(names, map(Place, kinds, map(int, populations)), strict=True))
    curated = dict(zip(*columns("curated.tsv", 2), strict=True))
    return Gazetteers(
        places=places,
        companies=set(columns("companies.tsv", 1)[0]),
        curated=curated,
        first_names=weights("first_names.tsv"),
        surnames=weights("surnames.tsv"),
        zipf=weights("common_words.tsv"),
    )
