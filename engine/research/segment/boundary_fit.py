"""Fitting the story-boundary rule and the block length on held-out decodes.

Every number of :class:`engine.segment.boundaries.BoundaryRule` and the block length that
ingest applies are chosen here, on training days only, from decodes by models that did not
see the day they decode; the runtime module only applies them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.segment import config
from engine.segment.boundaries import BoundaryRule, collapse_blocks, windowed
from engine.segment.rules import enforce_min_length
from engine.segment.text import Transcript

#: Block lengths (seconds) searched by :func:`fit_block_seconds`; 0 switches blocks off.
GRID_VITERBI_BLOCK_SECONDS = (0.0, 30.0, 45.0, 60.0, 90.0)


def viterbi_with_blocks(story_starts: np.ndarray, posterior: np.ndarray, transcript: Transcript, *,
                        block_seconds: float, min_words: int = config.MIN_STORY_WORDS) -> np.ndarray:
    """Viterbi starts with blocks collapsed, then stories under ``min_words`` merged (ingest's order), int64 (k,)."""
    found = np.asarray(story_starts, dtype=np.int64)
    if block_seconds > 0 and transcript.starts is not None and transcript.ends is not None:
        found = collapse_blocks(found, starts=transcript.starts, ends=transcript.ends, max_seconds=block_seconds)
    strength = np.clip(windowed(np.asarray(posterior, dtype=np.float64))[found], 0.0, 1.0)
    return enforce_min_length(found, len(transcript), min_words=min_words, strength=strength)


def fit_block_seconds(decoded: Sequence[tuple[np.ndarray, np.ndarray, Transcript]],
                      grid: Sequence[float] = GRID_VITERBI_BLOCK_SECONDS) -> float:
    """The block length (s) whose Viterbi stories have the lowest mean C_seg + Pk + WindowDiff on held-out decodes.

    Parameters
    ----------
    decoded : sequence of (viterbi starts, posterior, transcript)
        Each transcript (with its true story starts) decoded by a model trained without it.
    """
    if not decoded:
        raise ParameterError("fitting the block length needs at least one decoded transcript")

    def cost(seconds: float) -> float:
        total = 0.0
        for viterbi, posterior, t in decoded:
            found = viterbi_with_blocks(viterbi, posterior, t, block_seconds=seconds)
            s = score_documents([t.story_starts], [found], [len(t)])
            total += s.tdt_cost + s.pk + s.windowdiff
        return total / len(decoded)

    costs = [cost(float(g)) for g in grid]
    return float(grid[int(np.argmin(costs))])


#: Grids searched by :func:`fit_boundary_rule` (every combination). A threshold above 1 with a
#: pause weight of 1 reads "a long pause where the posterior also says a story may start".
GRID_THRESHOLD = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8)
GRID_PAUSE_SECONDS = (2.0, 3.0, 5.0, 8.0)
GRID_PAUSE_WEIGHT = (0.0, 0.5, 1.0)
GRID_BLOCK_SECONDS = (0.0, 30.0, 60.0)
GRID_MIN_WORDS = (0, 30, 60)


def _measures(rule: BoundaryRule, posterior: np.ndarray, transcript: Transcript) -> np.ndarray:
    """C_seg, Pk and WindowDiff of the rule on one decoded transcript, shape (3,)."""
    s = score_documents([transcript.story_starts], [rule.on_transcript(posterior, transcript)], [len(transcript)])
    return np.array([s.tdt_cost, s.pk, s.windowdiff])


def rule_cost(rule: BoundaryRule, decoded: Sequence[tuple[np.ndarray, Transcript]],
              peers: Sequence[np.ndarray] | None = None) -> float:
    """How far the rule is from beating the peers, mean over the decoded days.

    With ``peers`` (one float array (m, 3) per day: C_seg, Pk, WindowDiff of m peer systems on
    that day), a day costs the largest ratio of the rule's measure to a peer's, so a cost
    below 1 means "beats every peer on every measure"; without, a day costs C_seg + Pk + WindowDiff.
    """
    total = 0.0
    for k, (posterior, transcript) in enumerate(decoded):
        own = _measures(rule, posterior, transcript)
        if peers is None:
            total += float(own.sum())
        else:
            total += float(np.max(own[None, :] / np.maximum(np.asarray(peers[k]), 1e-9)))
    return total / len(decoded)


def fit_boundary_rule(decoded: Sequence[tuple[np.ndarray, Transcript]], *,
                      peers: Sequence[np.ndarray] | None = None,
                      cost: Callable[..., float] = rule_cost) -> BoundaryRule:
    """The rule of lowest ``cost`` on held-out decodes, searched over every combination of the grids above.

    Parameters
    ----------
    decoded : sequence of (posterior, transcript)
        Each transcript (with its true story starts) and the start posterior that a model
        trained *without it* gives its words. Nothing else is looked at.
    peers : sequence of float arrays (m, 3), optional
        Per decoded transcript, the C_seg, Pk and WindowDiff of the systems to beat (see :func:`rule_cost`).
    """
    if not decoded:
        raise ParameterError("fitting a boundary rule needs at least one decoded transcript")
    if peers is not None and len(peers) != len(decoded):
        raise ParameterError(f"peers has {len(peers)} entries for {len(decoded)} decoded transcripts")
    best, best_cost = None, np.inf
    for threshold, pause_seconds, pause_weight, block_seconds, min_words in itertools.product(
            GRID_THRESHOLD, GRID_PAUSE_SECONDS, GRID_PAUSE_WEIGHT, GRID_BLOCK_SECONDS, GRID_MIN_WORDS):
        if pause_weight == 0 and pause_seconds != GRID_PAUSE_SECONDS[0]:
            continue  # the pause threshold does nothing without a weight
        rule = BoundaryRule(threshold, pause_seconds, pause_weight, block_seconds, min_words)
        c = cost(rule, decoded, peers)
        if c < best_cost - 1e-12:
            best, best_cost = rule, c
    assert best is not None
    return best
