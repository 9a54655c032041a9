"""The trainable tagger: an averaged structured perceptron over BIO tags (Collins 2002),
with the rule tagger's answer and the gazetteer classes among its features."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.entities.spans import EntitySpan
from engine.entities.tagger._kernels import _viterbi
from engine.entities.tagger.features import sequence_features
from engine.entities.tagger.gazetteer import fold_token
from engine.entities.tagger.rules import RuleTagger
from engine.errors import ModelError

log = logging.getLogger("earshot.entities")

FORMAT_VERSION = 1


class PerceptronTagger:
    """A trained model; ``tag(words)`` like the rule tagger."""

    name = "perceptron"

    def __init__(self, tags: Sequence[str], features: Sequence[str], W: np.ndarray, T: np.ndarray,
                 output_types: Sequence[str] | None = None) -> None:
        self.tags = list(tags)
        self.feature_id = {f: k for k, f in enumerate(features)}
        self.features = list(features)
        self.W = np.ascontiguousarray(W, dtype=np.float64)
        self.T = np.ascontiguousarray(T, dtype=np.float64)
        self.allowed = allowed_transitions(self.tags)
        self.output_types = set(output_types) if output_types else None
        self.rules = RuleTagger()
        self.gaz = self.rules.gaz

    # -- use ---------------------------------------------------------------------------------
    def tag(self, words: Sequence[str]) -> list[EntitySpan]:
        if not words:
            return []
        forms = [fold_token(w) for w in words]
        ptr, idx = self.encode([sequence_features(forms, self.gaz, self.rules)])
        path = _viterbi(ptr, idx, 0, len(forms), self.W, self.T, self.allowed)
        spans = decode_bio([self.tags[k] for k in path], words)
        if self.output_types is not None:
            spans = [s for s in spans if s.type in self.output_types]
        return spans

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
            np.savez_compressed(fh, version=np.array(FORMAT_VERSION), tags=np.array(self.tags),
                                features=np.array(self.features), W=self.W.astype(np.float32),
                                T=self.T.astype(np.float32),
                                output_types=np.array(sorted(self.output_types or [])))
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> PerceptronTagger:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                if int(z["version"]) != FORMAT_VERSION:
                    raise ModelError(f"{path}: entity model format {int(z['version'])}, expected {FORMAT_VERSION}")
                out = list(z["output_types"]) or None
                return cls(list(z["tags"]), list(z["features"]), z["W"], z["T"], out)
        except (OSError, KeyError, ValueError) as exc:
            raise ModelError(f"{path}: not an entity tagger model ({exc})") from None


def allowed_transitions(tags: Sequence[str]) -> np.ndarray:
    """(n_tags + 1, n_tags) bool: I-X only after B-X or I-X; the last row is the sequence start."""
    n = len(tags)
    ok = np.ones((n + 1, n), dtype=np.bool_)
    for y, tag in enumerate(tags):
        if tag.startswith("I-"):
            for p in range(n + 1):
                ok[p, y] = p < n and tags[p] in ("B-" + tag[2:], tag)
    return ok


def decode_bio(labels: Sequence[str], words: Sequence[str]) -> list[EntitySpan]:
    spans = []
    start = None
    for i, lab in enumerate([*labels, "O"]):
        if start is not None and not (lab.startswith("I-") and lab[2:] == labels[start][2:]):
            spans.append(EntitySpan(labels[start][2:], start, i - 1, " ".join(words[start:i]), 1.0))
            start = None
        if lab.startswith("B-") or (lab.startswith("I-") and start is None):
            start = i
    return spans
