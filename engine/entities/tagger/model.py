"""The trainable tagger: an averaged structured perceptron over BIO tags (Collins 2002),
with the rule tagger's answer and the gazetteer classes among its features.

A *cased* model also reads the words as shown (case, punctuation, sentence starts); it is
meant for recognisers that write them (Whisper) and for text."""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.entities.spans import EntitySpan
from engine.entities.tagger._kernels import _viterbi
from engine.entities.tagger.features import history_features, token_features
from engine.entities.tagger.gazetteer import fold_token
from engine.entities.tagger.numeric import numeric_spans
from engine.entities.tagger.rules import RuleTagger
from engine.errors import ModelError
from engine.writing import join_written

log = logging.getLogger("earshot.entities")

FORMAT_VERSION = 2
#: Older files (no ``cased`` flag, features as a string array) still load.
#: A two-pass model keeps its first pass under this prefix in the same file.
_FIRST = "first_"
_READABLE_VERSIONS = (1, 2)


class PerceptronTagger:
    """A trained model; ``tag(words)`` like the rule tagger."""

    name = "perceptron"

    def __init__(self, tags: Sequence[str], features: Sequence[str], W: np.ndarray, T: np.ndarray,
                 output_types: Sequence[str] | None = None, *, cased: bool = False,
                 first: PerceptronTagger | None = None) -> None:
        self.tags = list(tags)
        self.feature_id = {f: k for k, f in enumerate(features)}
        self.features = list(features)
        self.W = np.ascontiguousarray(W, dtype=np.float64)
        self.T = np.ascontiguousarray(T, dtype=np.float64)
        self.allowed = allowed_transitions(self.tags)
        self.output_types = set(output_types) if output_types else None
        self.cased = cased
        #: With a first pass, what it said about the same word elsewhere in the text is a feature.
        self.first = first
        if cased:
            self.name = "perceptron-cased"
        self.rules = RuleTagger()
        self.gaz = self.rules.gaz

    # -- use ---------------------------------------------------------------------------------
    def tag(self, words: Sequence[str]) -> list[EntitySpan]:
        if not words:
            return []
        spans = decode_bio(self.labels(words), words)
        if self.output_types is not None:
            spans = [s for s in spans if s.type in self.output_types]
        if not any(t.endswith(("-DATE", "-MONEY")) for t in self.tags):
            spans = with_numeric_spans(spans, words)
        return spans

    def labels(self, words: Sequence[str]) -> list[str]:
        """The BIO tag of every word (``"O"``, ``"B-PERSON"`` ...)."""
        feats = self.features_of(words)
        ptr, idx = self.encode([feats])
        return [self.tags[k] for k in _viterbi(ptr, idx, 0, len(words), self.W, self.T, self.allowed)]

    def features_of(self, words: Sequence[str], first_labels: Sequence[str] | None = None) -> list[list[str]]:
        """Feature strings of every word; a two-pass model runs its first pass unless given its labels."""
        feats = token_features(words, self.gaz, self.rules, cased=self.cased)
        if self.first is not None:
            labels = first_labels if first_labels is not None else self.first.labels(words)
            for f, extra in zip(feats, history_features(words, labels), strict=True):
                f.extend(extra)
        return feats

    def encode(self, docs: Sequence[Sequence[Sequence[str]]]) -> tuple[np.ndarray, np.ndarray]:
        """Known feature ids of every token, CSR-style: ``ptr`` int64 (n_tokens + 1,), ``idx`` int64 (n_ids,)."""
        ptr = [0]
        idx: list[int] = []
        get = self.feature_id.get
        for doc in docs:
            for feats in doc:
                idx.extend(k for k in (get(f) for f in feats) if k is not None)
                ptr.append(len(idx))
        return np.array(ptr, dtype=np.int64), np.array(idx, dtype=np.int64)

    # -- storage -----------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".part")
        with open(tmp, "wb") as fh:
            arrays: dict[str, Any] = {"version": np.array(FORMAT_VERSION), **self._arrays()}
            if self.first is not None:
                arrays |= {_FIRST + k: v for k, v in self.first._arrays().items()}
            np.savez_compressed(fh, **arrays)
        tmp.replace(path)
        return path

    def _arrays(self) -> dict[str, np.ndarray]:
        blob = np.frombuffer("\n".join(self.features).encode("utf-8"), dtype=np.uint8)
        return {"tags": np.array(self.tags), "feature_blob": blob, "W": self.W.astype(np.float16),
                "T": self.T.astype(np.float32), "cased": np.array(self.cased),
                "output_types": np.array(sorted(self.output_types or []))}

    @classmethod
    def _from_arrays(cls, z, prefix: str = "") -> PerceptronTagger:
        first = cls._from_arrays(z, _FIRST) if not prefix and _FIRST + "tags" in z else None
        features = bytes(z[prefix + "feature_blob"]).decode("utf-8").split("\n")
        return cls(list(z[prefix + "tags"]), features, z[prefix + "W"], z[prefix + "T"],
                   list(z[prefix + "output_types"]) or None, cased=bool(z[prefix + "cased"]), first=first)

    @classmethod
    def load(cls, path: str | Path) -> PerceptronTagger:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                version = int(z["version"])
                if version not in _READABLE_VERSIONS:
                    raise ModelError(f"{path}: entity model format {version}, expected {FORMAT_VERSION}")
                out = list(z["output_types"]) or None
                if version == 1:
                    return cls(list(z["tags"]), list(z["features"]), z["W"], z["T"], out)
                return cls._from_arrays(z)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:  # EOFError: an empty file
            raise ModelError(f"{path}: not an entity tagger model ({exc or type(exc).__name__})") from None


def allowed_transitions(tags: Sequence[str]) -> np.ndarray:
    """(n_tags + 1, n_tags) bool: I-X only after B-X or I-X; the last row is the sequence start."""
    n = len(tags)
    ok = np.ones((n + 1, n), dtype=np.bool_)
    for y, tag in enumerate(tags):
        if tag.startswith("I-"):
            for p in range(n + 1):
                ok[p, y] = p < n and tags[p] in ("B-" + tag[2:], tag)
    return ok


def with_numeric_spans(spans: list[EntitySpan], words: Sequence[str]) -> list[EntitySpan]:
    """``spans`` plus the rule tagger's DATE, TIME, MONEY and PERCENT on words no span holds."""
    taken = [False] * len(words)
    for s in spans:
        taken[s.first_word:s.last_word + 1] = [True] * s.n_words
    forms = [fold_token(w) for w in words]
    extra = [EntitySpan(etype, lo, hi, join_written(words[lo:hi + 1]), 0.7) for lo, hi, etype in numeric_spans(forms)
             if not any(taken[lo:hi + 1])]
    return sorted([*spans, *extra], key=lambda s: s.first_word) if extra else spans


def decode_bio(labels: Sequence[str], words: Sequence[str]) -> list[EntitySpan]:
    spans = []
    start = None
    for i, lab in enumerate([*labels, "O"]):
        if start is not None and not (lab.startswith("I-") and lab[2:] == labels[start][2:]):
            spans.append(EntitySpan(labels[start][2:], start, i - 1, join_written(words[start:i]), 1.0))
            start = None
        if lab.startswith("B-") or (lab.startswith("I-") and start is None):
            start = i
    return spans
