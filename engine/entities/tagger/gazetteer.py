"""The shipped gazetteers (``models/gazetteers``), loaded once per process.

Phrases are lower-case ASCII words separated by single spaces, as recognizer output.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class Place:
    kind: str  # continent, country, state, region, city
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

    def rows(name: str) -> list[list[str]]:
        text = (base / name).read_text(encoding="utf-8")
        return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]

    places = {r[0]: Place(r[1], int(r[2])) for r in rows("locations.tsv")}
    curated = {r[0]: r[1] for r in rows("curated.tsv")}
    return Gazetteers(
        places=places,
        companies={r[0] for r in rows("companies.tsv")},
        curated=curated,
        first_names={r[0]: float(r[1]) for r in rows("first_names.tsv")},
        surnames={r[0]: float(r[1]) for r in rows("surnames.tsv")},
        zipf={r[0]: float(r[1]) for r in rows("common_words.tsv")},
    )
