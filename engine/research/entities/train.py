"""Training the statistical tagger: an averaged structured perceptron over BIO tags on annotated
documents (the CLI's ``entities train``, the entity benchmark)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from engine.entities import config
from engine.entities.spans import EntitySpan
from engine.entities.tagger._kernels import _train
from engine.entities.tagger.features import history_features, token_features
from engine.entities.tagger.gazetteer import load_gazetteers
from engine.entities.tagger.model import PerceptronTagger
from engine.entities.tagger.rules import RuleTagger
from engine.errors import ParameterError


def bio_labels(n: int, spans: Sequence[EntitySpan]) -> list[str]:
    labels = ["O"] * n
    for s in spans:
        labels[s.first_word] = "B-" + s.type
        for k in range(s.first_word + 1, s.last_word + 1):
            labels[k] = "I-" + s.type
    return labels


def train_tagger(docs: Sequence[tuple[Sequence[str], Sequence[EntitySpan]]], *, epochs: int = config.PERCEPTRON_EPOCHS,
                 min_count: int = config.FEATURE_MIN_COUNT, seed: int = 0,
                 output_types: Sequence[str] | None = None, cased: bool = False, two_pass: bool = False,
                 progress: Callable[[str], None] | None = None) -> PerceptronTagger:
    """Train on (words, entities) documents. Words are folded like recognizer output; with
    ``cased`` the model also learns from them as shown (case, punctuation, sentence starts).

    With ``two_pass`` a first model is trained as usual and a second one also reads what the first
    said about the same word elsewhere in the text; the second learns from first-pass answers on
    documents the first pass did not see (two folds), as it will meet them on new text."""
    if not docs:
        raise ParameterError("no training documents")
    if epochs < 1:
        raise ParameterError(f"epochs must be >= 1, got {epochs}")
    fit = functools.partial(_fit, epochs=epochs, min_count=min_count, seed=seed, output_types=output_types,
                            cased=cased, progress=progress)
    if not two_pass:
        return fit(docs, None, None)
    first = fit(docs, None, None)
    labels: list[list[str]] = [[] for _ in docs]
    for fold in (0, 1):
        held = [k for k in range(len(docs)) if k % 2 == fold]
        part = fit([docs[k] for k in range(len(docs)) if k % 2 != fold], None, None)
        for k in held:
            labels[k] = part.labels(docs[k][0])
    return fit(docs, first, labels)


def _fit(docs: Sequence[tuple[Sequence[str], Sequence[EntitySpan]]], first: PerceptronTagger | None,
         first_labels: Sequence[Sequence[str]] | None, *, epochs: int, min_count: int, seed: int,
         output_types: Sequence[str] | None, cased: bool, progress: Callable[[str], None] | None) -> PerceptronTagger:
    rules = RuleTagger()
    gaz = load_gazetteers()
    types = sorted({s.type for _, spans in docs for s in spans})
    tags = ["O"] + [f"{p}-{t}" for t in types for p in ("B", "I")]
    tag_id = {t: k for k, t in enumerate(tags)}
    feats = []
    gold: list[int] = []
    counts: Counter[str] = Counter()
    for k, (words, spans) in enumerate(docs):
        f = token_features(words, gaz, rules, cased=cased)
        if first_labels is not None:
            for fs, extra in zip(f, history_features(words, first_labels[k]), strict=True):
                fs.extend(extra)
        feats.append(f)
        for fs in f:
            counts.update(fs)
        gold += [tag_id[lab] for lab in bio_labels(len(words), spans)]
        if progress and (k + 1) % 200 == 0:
            progress(f"features: {k + 1}/{len(docs)} documents")
    features = sorted(f for f, c in counts.items() if c >= min_count)
    model = PerceptronTagger(tags, features, np.zeros((len(features), len(tags))), np.zeros((len(tags) + 1, len(tags))),
                             output_types, cased=cased, first=first)
    ptr, idx = model.encode(feats)
    seq_ptr = np.cumsum([0] + [len(d) for d in feats]).astype(np.int64)
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(len(feats)) for _ in range(epochs)]).astype(np.int64)
    if progress:
        progress(f"training: {len(gold)} words, {len(features)} features, {epochs} passes")
    W, T = _train(ptr, idx, seq_ptr, np.array(gold, dtype=np.int64), orders, len(features), len(tags), model.allowed)
    model.W, model.T = np.ascontiguousarray(W), np.ascontiguousarray(T)
    return model
