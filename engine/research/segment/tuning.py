"""Fitting the binning, smoothing and penalty settings on development data.

The training documents are split into folds (the cross-fitting folds of
:func:`engine.segment.model.prepare_training`). For each candidate setting the
model is estimated on all folds but one and decoded on the held-out fold; the
pooled normalised TDT segmentation cost over all held-out folds is the score.
Coordinate descent walks the grids in :mod:`engine.segment.config`; for every
setting the best boundary penalty is chosen on the same held-out decodes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from engine.evaluate.segmentation import ProbeCounts, probe_counts
from engine.research.segment.emission import emission_tables
from engine.segment import config, estimate
from engine.segment.features import DEFAULT_FEATURES
from engine.segment.hmm import count_bins_by_state, viterbi
from engine.segment.model import Hyperparameters, weighted

log = logging.getLogger("earshot.segment")


class _DevData:
    """Binned values and per-document counts for one ``n_bins``, computed once."""

    def __init__(self, training, n_bins: int, max_state: int) -> None:
        pooled = np.concatenate(training.values)
        edges = [estimate.bin_edges(pooled[:, j], n_bins=n_bins) for j in range(pooled.shape[1])]
        self.n_real = [e.size + 2 for e in edges]
        self.n_bins = max(self.n_real)
        self.bins = [
            np.stack([estimate.apply_bins(v[:, j], e) for j, e in enumerate(edges)], axis=1) for v in training.values
        ]
        self.counts = [
            count_bins_by_state(b, s, n_bins=self.n_bins, n_states=max_state + 1)
            for b, s in zip(self.bins, training.states, strict=True)
        ]


def _score(training, dev: _DevData, hyper, max_state: int, penalties: Sequence[float] | np.ndarray, features) -> np.ndarray:
    """Normalised TDT cost of every penalty, pooled over held-out folds."""
    return np.array([c.tdt_cost() for c in _probe_counts(training, dev, hyper, max_state, penalties, features)])


def _probe_counts(training, dev: _DevData, hyper, max_state: int, penalties: Sequence[float] | np.ndarray, features) -> list:
    """Pooled held-out probe counts for every penalty."""
    pooled = [ProbeCounts(0, 0, 0, 0) for _ in penalties]
    for k in np.unique(training.folds):
        held = np.flatnonzero(training.folds == k)
        kept = np.flatnonzero(training.folds != k)
        counts: np.ndarray = sum((dev.counts[i] for i in kept), np.zeros_like(dev.counts[kept[0]]))
        log_emission = weighted(emission_tables(counts, dev.n_real, hyper.state_bandwidth, features), features, hyper)
        lengths = estimate.smooth_length_histogram(
            np.concatenate([training.lengths[i] for i in kept]),
            max_state=max_state,
            bandwidth=hyper.length_bandwidth,
        )
        log_next, log_restart, log_init = estimate.transition_log_probs(
            lengths["density"], float(lengths["tail"]), float(lengths["tail_excess"])
        )
        for i in held:
            reference = training.transcripts[i].story_starts
            n = dev.bins[i].shape[0]
            for p, penalty in enumerate(penalties):
                path, _ = viterbi(dev.bins[i], log_emission, log_next, log_restart, log_init, log_penalty=penalty)
                pooled[p] = pooled[p] + probe_counts(reference, np.flatnonzero(path == 0), n)
    return pooled


def penalty_for_false_alarm(
    training,
    hyper,
    *,
    features: Sequence = DEFAULT_FEATURES,
    max_state: int = config.MAX_STATE,
    target: float = config.FALSE_ALARM_TARGET,
) -> dict:
    """The largest penalty whose pooled held-out P(false alarm) is at most ``target``.

    Returns ``{"target", "log_penalty", "dev_p_miss", "dev_p_false_alarm"}``, or an
    empty dict with a single fold.
    """
    if np.unique(training.folds).size < 2:
        return {}
    penalties = np.asarray(config.GRID_RECALL_PENALTY, dtype=np.float64)
    pooled = _probe_counts(training, _DevData(training, hyper.n_bins, max_state), hyper, max_state, penalties,
                           features)
    ok = [i for i, c in enumerate(pooled) if c.p_false_alarm <= target]
    i = ok[-1] if ok else 0
    return {"target": target, "log_penalty": float(penalties[i]),
            "dev_p_miss": pooled[i].p_miss, "dev_p_false_alarm": pooled[i].p_false_alarm}


def fit_hyperparameters(
    training,
    *,
    features: Sequence = DEFAULT_FEATURES,
    max_state: int = config.MAX_STATE,
    start=None,
    sweeps: int = config.HYPERPARAMETER_SWEEPS,
    fit_weights: bool = True,
):
    """Coordinate descent over n_bins, state and length bandwidths, feature weights, and the penalty.

    With ``fit_weights``, each feature group's log-likelihood weight is searched on
    GRID_FEATURE_WEIGHT (a group of weight 0 is switched off); without, all weigh 1
    as in the paper.

    Returns the best :class:`~engine.segment.model.Hyperparameters` found. With a
    single fold there is nothing to hold out, and the defaults come back.
    """
    current = start or Hyperparameters()
    if np.unique(training.folds).size < 2:
        log.warning("one training fold only: keeping default hyper-parameters")
        return current
    dev_cache: dict[int, _DevData] = {}
    seen: dict[tuple, tuple[float, float]] = {}
    penalties = np.asarray(config.GRID_LOG_PENALTY, dtype=np.float64)

    def evaluate(h) -> tuple[float, float]:
        key = (h.n_bins, h.state_bandwidth, h.length_bandwidth, tuple(sorted(h.weights.items())))
        if key not in seen:
            if h.n_bins not in dev_cache:
                dev_cache[h.n_bins] = _DevData(training, h.n_bins, max_state)
            costs = _score(training, dev_cache[h.n_bins], h, max_state, penalties, features)
            best = int(np.argmin(costs))
            seen[key] = (float(costs[best]), float(penalties[best]))
            log.debug("dev cost %.4f at penalty %.1f for %s", costs[best], penalties[best], key)
        return seen[key]

    best_cost, best_penalty = evaluate(current)
    grids: list[tuple[str, Sequence]] = [
        ("n_bins", config.GRID_N_BINS),
        ("state_bandwidth", config.GRID_STATE_BANDWIDTH),
        ("length_bandwidth", config.GRID_LENGTH_BANDWIDTH),
    ]
    if fit_weights:
        groups = dict.fromkeys(getattr(f, "group", f.name) for f in features)
        grids += [(f"weight:{g}", config.GRID_FEATURE_WEIGHT) for g in groups]
    for _ in range(max(1, sweeps)):
        improved = False
        for name, grid in grids:
            for value in grid:
                if name.startswith("weight:"):
                    candidate = replace(current, weights={**current.weights, name[7:]: float(value)})
                else:
                    candidate = replace(current, **{name: value})
                cost, penalty = evaluate(candidate)
                if cost < best_cost - 1e-12:
                    best_cost, best_penalty, current, improved = cost, penalty, candidate, True
        if not improved:
            break
    # Refine the penalty on a finer grid around the best coarse value.
    fine = best_penalty + np.linspace(-config.PENALTY_REFINE_SPAN, config.PENALTY_REFINE_SPAN,
                                      config.PENALTY_REFINE_STEPS)
    costs = _score(training, dev_cache[current.n_bins], current, max_state, fine, features)
    best_penalty = float(fine[int(np.argmin(costs))])
    log.info("fitted %s (dev TDT cost %.4f)", current, float(costs.min()))
    return replace(current, log_penalty=best_penalty)
