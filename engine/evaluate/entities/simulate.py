"""Simulated recognition errors, for benchmarks and tests: acoustically plausible
substitutions (same first phone, similar length), splits and merges along dictionary
pronunciations (GINGRICH -> GOOD RICH style), deletions and insertions."""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from engine.entities.spans import Transcript
from engine.entities.tagger.gazetteer import load_gazetteers
from engine.evaluate.entities.pronounce import PHONES, _cmu_entries, shared_lexicon

#: Share of errors by kind: substitution, deletion, insertion, split.
ERROR_MIX = (0.6, 0.2, 0.12, 0.08)
_FUNCTION_WORDS = ("THE", "A", "OF", "AND", "TO", "IN", "UH", "UM", "IT", "IS")


@dataclass
class _Index:
    by_sound: dict[tuple[str, int], list[str]]
    by_pron: dict[str, str]


@functools.cache
def _index() -> _Index:
    zipf = load_gazetteers().zipf  # recognizers make errors with words they know: common ones
    by_sound: dict[tuple[str, int], list[str]] = defaultdict(list)
    by_pron: dict[str, str] = {}
    for word, pron in _cmu_entries().items():
        if not word.isalpha() or len(word) < 2 or zipf.get(word, 0.0) < 3.0:
            continue
        phones = [p.rstrip("012") for p in pron.split()]
        by_sound[(phones[0], len(phones))].append(word.upper())
        by_pron.setdefault(" ".join(phones), word.upper())
    return _Index(dict(by_sound), by_pron)


def corrupt(ref: Transcript, wer: float, rng: np.random.Generator) -> Transcript:
    """A hypothesis with roughly ``wer`` word errors per reference word, with word times
    taken from the reference words they replace (entities are not carried over)."""
    idx = _index()
    lex = shared_lexicon()
    words: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    kinds = rng.choice(4, size=len(ref), p=ERROR_MIX)
    hits = rng.random(len(ref)) < wer
    for i, w in enumerate(ref.words):
        t0, t1 = float(ref.starts[i]), float(ref.ends[i])
        if not hits[i]:
            words.append(w)
            starts.append(t0)
            ends.append(t1)
            continue
        kind = kinds[i]
        if kind == 3:
            parts = _split(w, lex, idx)
            if parts:
                mid = (t0 + t1) / 2
                words += parts
                starts += [t0, mid]
                ends += [mid, t1]
                continue
            kind = 0
        if kind == 0:
            phones = lex.phones(w)

            key = (PHONES[phones[0]] if len(phones) else "AH", max(len(phones) + int(rng.integers(-1, 2)), 1))
            pool = idx.by_sound.get(key) or idx.by_sound.get((key[0], len(phones))) or [w + "S"]
            choice = pool[int(rng.integers(len(pool)))]
            words.append(choice if choice != w else w + "S")
            starts.append(t0)
            ends.append(t1)
        elif kind == 2:
            mid = (t0 + t1) / 2
            words += [w, _FUNCTION_WORDS[int(rng.integers(len(_FUNCTION_WORDS)))]]
            starts += [t0, mid]
            ends += [mid, t1]
    n = len(words)
    return Transcript(words, np.array(starts, dtype=np.float64).reshape(n), np.array(ends, dtype=np.float64).reshape(n),
                      [""] * n, [], [], "simulated")


def _split(word: str, lex, idx: _Index) -> list[str] | None:
    phones = [PHONES[p] for p in lex.phones(word)]
    for cut in range(2, len(phones) - 1):
        a, b = idx.by_pron.get(" ".join(phones[:cut])), idx.by_pron.get(" ".join(phones[cut:]))
        if a and b:
            return [a, b]
    return None
