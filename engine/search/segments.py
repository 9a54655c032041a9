"""Search segments: the runs of words the index stores and passage search starts from."""

from __future__ import annotations

from collections.abc import Sequence

from engine import config
from engine.asr.base import Word


def segment_bounds(
    utterances: Sequence[Sequence[Word]],
    *,
    max_words: int = config.SEGMENT_MAX_WORDS,
    pause: float = config.SEGMENT_PAUSE_SECONDS,
) -> list[tuple[int, int]]:
    """Cut utterances into search segments of at most ``max_words`` words.

    A segment also ends where the gap between two words exceeds ``pause``
    seconds. Returns (first, last) word indices, inclusive, over the
    concatenated words.
    """
    bounds: list[tuple[int, int]] = []
    offset = 0
    for utt in utterances:
        first = 0
        for i in range(1, len(utt) + 1):
            at_end = i == len(utt)
            if at_end or i - first >= max_words or utt[i].start - utt[i - 1].end > pause:
                bounds.append((offset + first, offset + i - 1))
                first = i
        offset += len(utt)
    return bounds
