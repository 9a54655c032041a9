"""Hot-spot features: what happened in the audio around a passage, and the blend with text relevance.

For each unit (recording, start-end seconds, first-last word), three features
in [0, 1]:

``events``    the strongest audience-reaction event (applause, laughter, ...)
              within ``EVENT_MARGIN_SECONDS`` of the unit, times its type's weight
              and its own score when it has one;
``rate``      how unusual the speech rate is: ``|log(unit words per second /
              recording's median)| / log(RATE_SCALE)``, capped at 1;
``entities``  the fraction of the query's terms found in named entities inside the unit.

The blend (documented in docs/search.md)::

    score = text + weight * sum_f feature_weight[f] * feature[f]

where ``text`` is the model score min-max scaled to [0, 1] over the units
being re-ordered. ``weight = 0`` is pure text ranking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.errors import ParameterError
from engine.search import config
from engine.search.text import tokens


def event_feature(rec: np.ndarray, start: np.ndarray, end: np.ndarray, events: Sequence[tuple[Any, ...]], *,
                  type_weights: Mapping[str, float], margin: float) -> np.ndarray:
    """(M,) strongest weighted event near each unit; ``events`` rows are (recording, type, start, end, score, value)."""
    out = np.zeros(len(rec))
    rows = [e for e in events if e[1] in type_weights]
    if not rows or not len(rec):
        return out
    e_rec = np.array([e[0] for e in rows])
    e_start = np.array([e[2] for e in rows], dtype=np.float64)
    e_end = np.array([e[3] for e in rows], dtype=np.float64)
    e_score = np.array([1.0 if e[4] is None else min(max(float(e[4]), 0.0), 1.0) for e in rows])
    e_value = e_score * np.array([type_weights[e[1]] for e in rows])
    near = (rec[:, None] == e_rec[None, :]) & (e_start[None, :] <= end[:, None] + margin) \
        & (e_end[None, :] >= start[:, None] - margin)
    return np.clip(np.max(np.where(near, e_value[None, :], 0.0), axis=1), 0.0, 1.0)


def rate_feature(n_words: np.ndarray, seconds: np.ndarray, baseline: np.ndarray, *, scale: float) -> np.ndarray:
    """(M,) unusualness of each unit's words per second against its recording's ``baseline``."""
    if scale <= 1:
        raise ParameterError(f"rate scale must be > 1, got {scale}")
    ok = (seconds > 0) & (baseline > 0) & (n_words > 0)
    ratio = np.where(ok, n_words / np.where(ok, seconds, 1.0) / np.where(ok, baseline, 1.0), 1.0)
    return np.minimum(np.abs(np.log(ratio)) / np.log(scale), 1.0)


def entity_feature(rec: np.ndarray, first_word: np.ndarray, last_word: np.ndarray,
                   entities: Sequence[tuple[Any, ...]], query_terms: Sequence[str]) -> np.ndarray:
    """(M,) fraction of the query terms that name an entity inside each unit.

    ``entities`` rows are (recording, first word, last word, type, text).
    """
    out = np.zeros(len(rec))
    if not entities or not query_terms or not len(rec):
        return out
    e_rec = np.array([e[0] for e in entities])
    e_first = np.array([e[1] for e in entities])
    e_last = np.array([e[2] for e in entities])
    names = [set(tokens(str(e[4]))) for e in entities]
    has = np.array([[t in n for n in names] for t in query_terms], dtype=bool)  # (Q, E)
    inside = (rec[:, None] == e_rec[None, :]) & (e_first[None, :] >= first_word[:, None]) \
        & (e_last[None, :] <= last_word[:, None])  # (M, E)
    matched = (inside[:, None, :] & has[None, :, :]).any(axis=2)  # (M, Q)
    return matched.mean(axis=1)


def blend(text_scores: np.ndarray, features: Mapping[str, np.ndarray], *, weight: float,
          feature_weights: Mapping[str, float] = config.HOTSPOT_FEATURE_WEIGHTS) -> np.ndarray:
    """Hot-spot score of each unit: min-max scaled text score plus ``weight`` times the weighted features."""
    if weight < 0:
        raise ParameterError(f"hot-spot weight must be >= 0, got {weight}")
    text = np.asarray(text_scores, dtype=np.float64)
    if not len(text):
        return text
    span = text.max() - text.min()
    scaled = (text - text.min()) / span if span > 0 else np.ones_like(text)
    audio = np.zeros_like(text)
    for name, w in feature_weights.items():
        if name in features:
            audio += w * np.asarray(features[name], dtype=np.float64)
    return scaled + weight * audio
