"""Segmentation measures over word sequences.

A segmentation is given by its story starts: sorted word indices, the first 0.

* TDT (Fiscus/Doddington): two probe words ``k`` words apart (k = 50). A *miss*
  is a probe whose words lie in different reference stories but the same
  hypothesised one; a *false alarm* the reverse. ``P(miss)`` is conditioned on
  the reference saying "different", ``P(false alarm)`` on it saying "same".
  ``C_seg = C_miss P(miss) P_seg + C_fa P(fa) (1 - P_seg)``, normalised by
  ``min(C_miss P_seg, C_fa (1 - P_seg))``.
* Pk (Beeferman et al.) and WindowDiff (Pevzner & Hearst) over the n - 1 gaps
  between words, computed exactly as nltk's ``pk`` and ``windowdiff`` do on a
  boundary string (``"1"`` at gap ``j - 1`` when word ``j`` starts a story).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError
from engine.segment import config


def _indicator(starts: np.ndarray, n_words: int, name: str) -> np.ndarray:
    starts = np.asarray(starts, dtype=np.int64)
    if starts.ndim != 1 or (starts.size and (starts.min() < 0 or starts.max() >= n_words)):
        raise ParameterError(f"{name} must be word indices in [0, {n_words}), got {starts[:5]}...")
    ind = np.zeros(n_words, dtype=np.int64)
    ind[starts] = 1
    ind[0] = 0  # the first word starts a story by definition; it is no boundary
    return ind


def _segment_ids(starts: np.ndarray, n_words: int, name: str) -> np.ndarray:
    return np.cumsum(_indicator(starts, n_words, name))


@dataclass(frozen=True)
class ProbeCounts:
    """Probe tallies of one document (they add up over documents)."""

    probes: int
    reference_different: int
    misses: int
    false_alarms: int

    def __add__(self, other: ProbeCounts) -> ProbeCounts:
        return ProbeCounts(
            self.probes + other.probes,
            self.reference_different + other.reference_different,
            self.misses + other.misses,
            self.false_alarms + other.false_alarms,
        )

    @property
    def p_miss(self) -> float:
        return self.misses / self.reference_different if self.reference_different else 0.0

    @property
    def p_false_alarm(self) -> float:
        same = self.probes - self.reference_different
        return self.false_alarms / same if same else 0.0

    @property
    def error_rate(self) -> float:
        """Fraction of probes in disagreement: Pk when k is half the mean story length."""
        return (self.misses + self.false_alarms) / self.probes if self.probes else 0.0

    def tdt_cost(self) -> float:
        """Normalised TDT segmentation cost (0 perfect, 1 = the better trivial system)."""
        cost = (
            config.TDT_COST_MISS * self.p_miss * config.TDT_PRIOR_SEGMENT
            + config.TDT_COST_FALSE_ALARM * self.p_false_alarm * (1 - config.TDT_PRIOR_SEGMENT)
        )
        return cost / min(config.TDT_COST_MISS * config.TDT_PRIOR_SEGMENT,
                          config.TDT_COST_FALSE_ALARM * (1 - config.TDT_PRIOR_SEGMENT))


def probe_counts(
    reference: np.ndarray, hypothesis: np.ndarray, n_words: int, *, k: int = config.TDT_PROBE_WORDS
) -> ProbeCounts:
    """Tally probes (t, t + k) for t = 0 .. n_words - k - 1."""
    if k < 1:
        raise ParameterError(f"probe distance k must be >= 1 word, got {k}")
    ref = _segment_ids(reference, n_words, "reference")
    hyp = _segment_ids(hypothesis, n_words, "hypothesis")
    if n_words <= k:
        return ProbeCounts(0, 0, 0, 0)
    ref_diff = ref[k:] != ref[:-k]
    hyp_diff = hyp[k:] != hyp[:-k]
    return ProbeCounts(
        probes=int(ref_diff.size),
        reference_different=int(ref_diff.sum()),
        misses=int((ref_diff & ~hyp_diff).sum()),
        false_alarms=int((~ref_diff & hyp_diff).sum()),
    )


def half_mean_story_length(reference: np.ndarray, n_words: int) -> int:
    """The usual Pk / WindowDiff window: half the mean reference story length, in words (>= 2)."""
    n_stories = max(len(np.unique(np.append(np.asarray(reference, dtype=np.int64), 0))), 1)
    return max(2, round(n_words / (2 * n_stories)))


def pk(reference: np.ndarray, hypothesis: np.ndarray, n_words: int, *, k: int) -> float:
    """Beeferman's Pk with window ``k`` words (as nltk.metrics.segmentation.pk)."""
    counts = probe_counts(reference, hypothesis, n_words, k=k)
    return counts.error_rate


def windowdiff(reference: np.ndarray, hypothesis: np.ndarray, n_words: int, *, k: int) -> float:
    """WindowDiff with window ``k`` words (as nltk.metrics.segmentation.windowdiff, unweighted)."""
    if k < 1:
        raise ParameterError(f"window k must be >= 1 word, got {k}")
    gaps_ref = _indicator(reference, n_words, "reference")[1:]
    gaps_hyp = _indicator(hypothesis, n_words, "hypothesis")[1:]
    if gaps_ref.size < k:
        raise ParameterError(f"window k={k} is longer than the {gaps_ref.size} gaps between words")
    csum_ref = np.concatenate([[0], np.cumsum(gaps_ref)])
    csum_hyp = np.concatenate([[0], np.cumsum(gaps_hyp)])
    in_ref = csum_ref[k:] - csum_ref[:-k]
    in_hyp = csum_hyp[k:] - csum_hyp[:-k]
    return float(np.mean(in_ref != in_hyp))


def evenly_spaced_starts(n_words: int, n_stories: int) -> np.ndarray:
    """The trivial baseline: ``n_stories`` stories of equal length."""
    n_stories = max(1, min(n_stories, n_words))
    return np.unique(np.floor(np.arange(n_stories) * n_words / n_stories).astype(np.int64))


@dataclass(frozen=True)
class Scores:
    """Measures over a set of documents.

    ``p_miss``, ``p_false_alarm`` and ``tdt_cost`` pool the probes of all
    documents (as TDT did); ``pk`` and ``windowdiff`` are means over documents,
    each with k = half that document's mean reference story length.
    """

    p_miss: float
    p_false_alarm: float
    tdt_cost: float
    pk: float
    windowdiff: float
    documents: int
    boundaries: int

    def as_dict(self) -> dict:
        return {
            "p_miss": self.p_miss,
            "p_false_alarm": self.p_false_alarm,
            "tdt_cost": self.tdt_cost,
            "pk": self.pk,
            "windowdiff": self.windowdiff,
            "documents": self.documents,
            "boundaries": self.boundaries,
        }


def score_documents(
    references: list[np.ndarray], hypotheses: list[np.ndarray], lengths: list[int],
    *, probe_words: int = config.TDT_PROBE_WORDS,
) -> Scores:
    """Score hypothesised story starts against reference ones, document by document."""
    if not (len(references) == len(hypotheses) == len(lengths)) or not references:
        raise ParameterError(
            f"need as many references, hypotheses and lengths (>= 1): {len(references)}, "
            f"{len(hypotheses)}, {len(lengths)}"
        )
    pooled = ProbeCounts(0, 0, 0, 0)
    pks, wds = [], []
    n_boundaries = 0
    for ref, hyp, n in zip(references, hypotheses, lengths, strict=True):
        pooled = pooled + probe_counts(ref, hyp, n, k=probe_words)
        k = half_mean_story_length(ref, n)
        pks.append(pk(ref, hyp, n, k=k))
        wds.append(windowdiff(ref, hyp, n, k=k))
        n_boundaries += int(np.count_nonzero(np.asarray(hyp) > 0))
    return Scores(
        p_miss=pooled.p_miss,
        p_false_alarm=pooled.p_false_alarm,
        tdt_cost=pooled.tdt_cost(),
        pk=float(np.mean(pks)),
        windowdiff=float(np.mean(wds)),
        documents=len(references),
        boundaries=n_boundaries,
    )
