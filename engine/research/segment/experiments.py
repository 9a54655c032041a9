"""Evaluation protocols shared by ``segment eval`` and the benchmark.

* Leave-one-out over transcripts (leave-one-day-out on NewsScape): train on all
  but one, decode the one left out.
* Choi-style concatenations of Lee articles with k-fold cross-validation over
  articles: test documents concatenate held-out articles, the model is trained on
  the other articles (concatenated in order, each once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.segmentation import Scores, score_documents
from engine.research.segment.fit import train_model
from engine.segment.features import DEFAULT_FEATURES
from engine.segment.model import Hyperparameters, SegmentationModel
from engine.segment.segmenter import segment_transcript
from engine.segment.text import Transcript, choi_documents, concatenate_articles


def hmm_starts(model: SegmentationModel, transcript: Transcript, *, log_penalty: float | None = None) -> np.ndarray:
    """Story starts the model finds in a transcript (Viterbi only)."""
    return segment_transcript(transcript, model=model, log_penalty=log_penalty, with_posteriors=False).story_starts


def score(transcripts: Sequence[Transcript], hypotheses: Sequence[np.ndarray]) -> Scores:
    return score_documents(
        [t.story_starts for t in transcripts], [np.asarray(h) for h in hypotheses], [len(t) for t in transcripts]
    )


@dataclass
class Fold:
    """One train/test split and the model trained on it."""

    test: list[Transcript]
    model: SegmentationModel


def leave_one_out(
    transcripts: Sequence[Transcript],
    *,
    hyper: Hyperparameters | None = None,
    features: Sequence = DEFAULT_FEATURES,
    fit_weights: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[Fold]:
    """Train on all transcripts but one, for each one."""
    folds = []
    for i, held in enumerate(transcripts):
        if progress:
            progress(i, len(transcripts))
        kept = [t for j, t in enumerate(transcripts) if j != i]
        folds.append(Fold(test=[held], model=train_model(kept, hyper=hyper, features=features, fit_weights=fit_weights,
                                                             info={"held_out": held.name})))
    return folds


def lee_folds(
    articles: Sequence[str],
    *,
    n_folds: int,
    documents_per_fold: int,
    articles_per_document: int,
    train_articles_per_document: int,
    seed: int,
    hyper: Hyperparameters | None = None,
    features: Sequence = DEFAULT_FEATURES,
    fit_weights: bool = True,
) -> list[Fold]:
    """k-fold cross-validation over articles with Choi-style test documents."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(articles))
    parts = np.array_split(order, n_folds)
    folds = []
    for k, held in enumerate(parts):
        held_set = set(held.tolist())
        train = concatenate_articles(
            [articles[i] for i in order if i not in held_set], per_document=train_articles_per_document,
            name=f"lee-train{k}",
        )
        test = choi_documents(
            [articles[i] for i in held], n_documents=documents_per_fold,
            articles_per_document=articles_per_document, rng=rng,
        )
        folds.append(Fold(test=test, model=train_model(train, hyper=hyper, features=features, fit_weights=fit_weights,
                                                     info={"fold": k})))
    return folds


def hmm_starts_matching(
    model: SegmentationModel,
    transcript: Transcript,
    n_boundaries: int,
    *,
    low: float = -30.0,
    high: float = 40.0,
    steps: int = 30,
) -> np.ndarray:
    """Story starts at the boundary penalty whose count of boundaries comes closest to ``n_boundaries``.

    Compares the HMM with another segmenter at the same operating point (as many
    boundaries as it placed), using no reference labels. The count grows with the
    penalty, so the penalty is found by bisection over ``[low, high]`` (log units).
    """
    def found(penalty: float) -> np.ndarray:
        return hmm_starts(model, transcript, log_penalty=penalty)

    target = max(int(n_boundaries), 0)
    best = found(low)
    for _ in range(steps):
        mid = 0.5 * (low + high)
        starts = found(mid)
        count = int((starts > 0).sum())
        if abs(count - target) < abs(int((best > 0).sum()) - target):
            best = starts
        if count == target:
            break
        if count < target:
            low = mid
        else:
            high = mid
    return best


def penalty_sweep(
    folds: Sequence[Fold], penalties: Sequence[float]
) -> list[dict]:
    """Pooled scores of every fold's model over its own test documents, at each penalty (a DET curve)."""
    tests = [t for f in folds for t in f.test]
    points = []
    for penalty in penalties:
        hyps = [hmm_starts(f.model, t, log_penalty=float(penalty)) for f in folds for t in f.test]
        points.append({"log_penalty": float(penalty), **score(tests, hyps).as_dict()})
    return points


#: A system for :func:`nested_leave_one_out`: given the training transcripts, it fits
#: whatever it needs on them alone and returns a function from a transcript to story starts.
Fitter = Callable[[Sequence[Transcript]], Callable[[Transcript], np.ndarray]]


def nested_leave_one_out(transcripts: Sequence[Transcript], systems: dict[str, Fitter]) -> list[dict[str, np.ndarray]]:
    """Leave-one-out where every system is fitted on the training transcripts only.

    For each transcript ``i`` in turn, every fitter in ``systems`` gets the other
    transcripts (its thresholds, weights and penalties are chosen on them: the held-out
    transcript is never passed), and the segmenter it returns decodes transcript ``i``.

    Returns
    -------
    list of dict, length len(transcripts)
        For each held-out transcript, the story starts of every system (int64 arrays).
    """
    if len(transcripts) < 2:
        raise ParameterError(f"leave-one-out needs at least 2 transcripts, got {len(transcripts)}")
    out = []
    for i, held in enumerate(transcripts):
        train = [t for j, t in enumerate(transcripts) if j != i]
        out.append({name: np.asarray(fit(train)(held), dtype=np.int64) for name, fit in systems.items()})
    return out
