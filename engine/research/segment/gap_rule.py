"""Fitting the caption-gap rule (:func:`engine.segment.rules.gap_rule_starts`) on training transcripts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.segment import config
from engine.segment.rules import gap_rule_starts
from engine.segment.text import Transcript


def fit_gap_threshold(transcripts: Sequence[Transcript],
                      grid: Sequence[float] = config.GRID_GAP_THRESHOLD) -> float:
    """The pause threshold (s) of the gap rule with the lowest pooled TDT cost on ``transcripts`` (training data)."""
    if not transcripts:
        raise ParameterError("the gap rule needs at least one training transcript")
    refs = [t.story_starts for t in transcripts]
    lengths = [len(t) for t in transcripts]
    costs = [score_documents(refs, [gap_rule_starts(t, threshold=g) for t in transcripts], lengths).tdt_cost
             for g in grid]
    return float(grid[int(np.argmin(costs))])
