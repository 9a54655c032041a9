"""Training the segmentation HMM: cross-fitted feature values, parameter estimation and, without
given hyper-parameters, their fit on held-out folds (:mod:`.tuning`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.research.segment.emission import emission_tables
from engine.research.segment.tuning import fit_hyperparameters, penalty_for_false_alarm
from engine.segment import config, estimate
from engine.segment.features import (
    DEFAULT_FEATURES,
    Vocabulary,
    WordStatistics,
    feature_matrix,
    word_tables,
    x_duration_of,
)
from engine.segment.hmm import count_bins_by_state
from engine.segment.model import Hyperparameters, SegmentationModel
from engine.segment.text import Transcript


def true_states(transcript: Transcript, max_state: int) -> np.ndarray:
    """State of every word given the story starts: position in story, capped at L."""
    n = len(transcript)
    starts = transcript.story_starts
    if starts.size == 0 or starts[0] != 0:
        raise ParameterError(f"{transcript.name}: story starts must begin with word 0")
    owner = np.searchsorted(starts, np.arange(n), side="right") - 1
    return np.minimum(np.arange(n) - starts[owner], max_state)


@dataclass
class TrainingSet:
    """Cross-fitted feature values and true states of the training transcripts."""

    transcripts: list[Transcript]
    values: list[np.ndarray]  # (n_words, F) per transcript
    states: list[np.ndarray]  # (n_words,) per transcript
    lengths: list[np.ndarray]  # story lengths per transcript
    folds: np.ndarray  # development fold of each transcript


def _split_for_folds(transcripts: Sequence[Transcript]) -> list[Transcript]:
    """At least two documents: a single transcript is cut in three at story starts."""
    if len(transcripts) >= 2:
        return list(transcripts)
    (only,) = transcripts
    starts = only.story_starts
    if starts.size < 3:
        return [only]
    cuts = [0, *(int(starts[np.argmin(np.abs(starts - len(only) * q / 3))]) for q in (1, 2)), len(only)]
    cuts = sorted(set(cuts))
    return [only.slice(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def prepare_training(
    transcripts: Sequence[Transcript], *, features: Sequence = DEFAULT_FEATURES, max_state: int = config.MAX_STATE
) -> TrainingSet:
    """Feature values of every training word, each computed from the other folds' counts.

    Per-word statistics seen on the word's own story would make rare words look
    like perfect triggers; cross-fitting keeps training values distributed like
    the values the model meets on new recordings.
    """
    if max_state < 1:
        raise ParameterError(f"max_state (L) must be >= 1, got {max_state}")
    docs = [t for t in _split_for_folds(list(transcripts)) if len(t)]
    if not docs:
        raise ParameterError("no training words")
    for t in docs:
        if t.story_starts.size == 0:
            raise ParameterError(f"{t.name}: training transcript has no story starts")
    n_folds = max(1, min(len(docs), config.MAX_CROSS_FIT_FOLDS))
    folds = np.arange(len(docs)) % n_folds
    values: list[np.ndarray] = [np.empty(0)] * len(docs)
    for k in range(n_folds):
        mask = [np.full(d.story_starts.size, folds[i] != k or n_folds == 1) for i, d in enumerate(docs)]
        stats = WordStatistics.count(docs, story_mask=mask)
        tables = word_tables(features, stats)
        vocabulary = Vocabulary(stats.words)
        for i, d in enumerate(docs):
            if folds[i] == k:
                xd = x_duration_of(len(d), starts=d.starts, ends=d.ends)
                sentences = d.sentence_starts if d.sentence_starts.size else None
                values[i] = feature_matrix(features, tables, vocabulary, d.words, xd, sentence_starts=sentences)
    return TrainingSet(
        transcripts=docs,
        values=values,
        states=[true_states(d, max_state) for d in docs],
        lengths=[d.story_lengths() for d in docs],
        folds=folds,
    )


def build_model(
    training: TrainingSet,
    hyper: Hyperparameters,
    *,
    features: Sequence = DEFAULT_FEATURES,
    max_state: int = config.MAX_STATE,
    info: dict | None = None,
) -> SegmentationModel:
    """Estimate all parameters from a prepared training set with fixed hyper-parameters."""
    hyper.validate()
    docs = training.transcripts
    pooled = np.concatenate(training.values)
    edges = [estimate.bin_edges(pooled[:, j], n_bins=hyper.n_bins) for j in range(pooled.shape[1])]
    n_real = [e.size + 2 for e in edges]
    n_bins = max(n_real)
    counts = np.zeros((len(features), n_bins, max_state + 1))
    for v, s in zip(training.values, training.states, strict=True):
        bins = np.stack([estimate.apply_bins(v[:, j], e) for j, e in enumerate(edges)], axis=1)
        counts += count_bins_by_state(bins, s, n_bins=n_bins, n_states=max_state + 1)
    lengths = estimate.smooth_length_histogram(
        np.concatenate(training.lengths), max_state=max_state, bandwidth=hyper.length_bandwidth
    )
    log_next, log_restart, log_init = estimate.transition_log_probs(
        lengths["density"], float(lengths["tail"]), float(lengths["tail_excess"])
    )
    stats = WordStatistics.count(docs)
    return SegmentationModel(
        features=tuple(features),
        vocabulary=Vocabulary(stats.words),
        word_tables=word_tables(features, stats),
        bin_edges=edges,
        emission_counts=counts,
        log_emission=emission_tables(counts, n_real, hyper.state_bandwidth, features),
        log_next=log_next,
        log_restart=log_restart,
        log_init=log_init,
        length_raw=lengths["raw"],
        length_density=lengths["density"],
        length_tail=float(lengths["tail"]),
        length_tail_excess=float(lengths["tail_excess"]),
        hyper=hyper,
        info={
            "documents": len(docs),
            "words": int(sum(len(d) for d in docs)),
            "stories": int(sum(d.story_starts.size for d in docs)),
            **(info or {}),
        },
    )


def train_model(
    transcripts: Sequence[Transcript],
    *,
    hyper: Hyperparameters | None = None,
    features: Sequence = DEFAULT_FEATURES,
    max_state: int = config.MAX_STATE,
    info: dict | None = None,
    fit_weights: bool = True,
) -> SegmentationModel:
    """Train a model; without ``hyper``, fit the hyper-parameters on held-out folds first.

    ``fit_weights=False`` keeps every feature's weight at 1 (the paper's model) while
    fitting the rest.

    A tuned model also records in ``info["penalty_at_false_alarm"]`` the penalty
    that keeps held-out P(false alarm) within FALSE_ALARM_TARGET (a recall-oriented
    operating point; pass it as ``log_penalty`` to ``segment_words``).
    """
    training = prepare_training(transcripts, features=features, max_state=max_state)
    info = dict(info or {})
    if hyper is None:
        hyper = fit_hyperparameters(training, features=features, max_state=max_state, fit_weights=fit_weights)
        info["penalty_at_false_alarm"] = penalty_for_false_alarm(
            training, hyper, features=features, max_state=max_state
        )
    return build_model(training, hyper, features=features, max_state=max_state, info=info)
