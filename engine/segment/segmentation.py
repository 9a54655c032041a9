"""What a segmenter returns: the stories found in a word sequence.

Below the segmenter and the boundary rules and combiner that rework its output
(:mod:`engine.segment.boundaries`, :mod:`engine.segment.combiner`), so that they all read it
without importing each other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.segment.rules import enforce_min_length


@dataclass(frozen=True)
class Segmentation:
    """Stories found in a word sequence.

    Attributes
    ----------
    story_starts : ndarray of int64, shape (k,)
        Index of the first word of every story; ``story_starts[0] == 0`` (empty
        when there are no words).
    confidence : ndarray of float64, shape (k,)
        For every start, the posterior probability that a story starts within
        ``CONFIDENCE_HALF_WINDOW`` words of it (1.0 for the first story).
    boundary_posterior : ndarray of float64, shape (n_words,)
        Posterior probability that each word starts a story (forward-backward).
    states : ndarray of int64, shape (n_words,)
        Viterbi state of every word: its position in its story, capped at L.
    """

    story_starts: np.ndarray
    confidence: np.ndarray
    boundary_posterior: np.ndarray
    states: np.ndarray

    def spans(self) -> list[tuple[int, int]]:
        """(first word, one past the last word) of every story."""
        if self.story_starts.size == 0:
            return []
        ends = [*self.story_starts[1:].tolist(), int(self.states.shape[0])]
        return list(zip(self.story_starts.tolist(), ends, strict=True))

    def merged_short(self, min_words: int) -> Segmentation:
        """The same segmentation with stories shorter than ``min_words`` merged into a neighbour.

        Of the two boundaries around a short story the one with the lower confidence goes
        (see :func:`engine.segment.rules.enforce_min_length`); ``states`` stay the decoder's.
        """

        kept = enforce_min_length(self.story_starts, int(self.states.shape[0]), min_words=min_words,
                                  strength=np.nan_to_num(self.confidence, nan=0.0))
        keep = np.isin(self.story_starts, kept)
        return replace(self, story_starts=self.story_starts[keep], confidence=self.confidence[keep])
