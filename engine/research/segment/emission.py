"""Emission tables of the segmentation HMM from bin-by-state counts: ``log p(bin | state)`` per feature."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.segment import config, estimate


def _pad_bins(tables: list[np.ndarray], n_bins: int, fill: float) -> np.ndarray:
    n_states = tables[0].shape[1]
    out = np.full((len(tables), n_bins, n_states), fill)
    for j, t in enumerate(tables):
        out[j, : t.shape[0]] = t
    return out


def emission_tables(
    counts: np.ndarray, n_real_bins: list[int], bandwidth: float, features: Sequence
) -> np.ndarray:
    """log p(bin | state) per feature, padded bins get the floor (they never occur)."""
    logs = [
        estimate.emission_log_probs(counts[j, :nb], bandwidth=bandwidth, own_states=_own_states(f, counts.shape[2]),
                                    tie_from=getattr(f, "tie_from", None))
        for j, (nb, f) in enumerate(zip(n_real_bins, features, strict=True))
    ]
    return _pad_bins(logs, counts.shape[1], np.log(config.PROBABILITY_FLOOR))


def _own_states(feature, n_states: int) -> int | None:
    own = getattr(feature, "own_states", None)
    return None if own is None else min(own, n_states - 1)
