"""Speaker turns meet the rest of a transcript: holes cut out of turns, a speaker per word.

Pure functions on seconds; ingest and the ``speakers`` command call them on the same inputs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.speakers.diarize import SpeakerTurn


def turns_outside(turns: Sequence[SpeakerTurn], holes: Sequence[tuple[float, float]], *,
                  min_seconds: float = 0.0) -> list[SpeakerTurn]:
    """``turns`` less every part inside ``holes`` ((start, end) seconds, any order, may overlap);
    pieces shorter than ``min_seconds`` are dropped. Sorted by start, then speaker."""
    cuts = sorted(holes)
    out = []
    for turn in turns:
        a = turn.start
        for c, d in cuts:
            if d <= a or c >= turn.end:
                continue
            if c - a > min_seconds:
                out.append(SpeakerTurn(a, c, turn.speaker))
            a = max(a, d)
        if turn.end - a > min_seconds:
            out.append(SpeakerTurn(a, turn.end, turn.speaker))
    return sorted(out, key=lambda t: (t.start, t.speaker))


def word_speakers(starts: Sequence[float], ends: Sequence[float], turns: Sequence[SpeakerTurn]) -> list[int | None]:
    """For each word (``starts``, ``ends`` in seconds, shape (n,)) the speaker whose turns cover most
    of it; a word no turn touches has none. Ties go to the speaker with the lower index."""
    n = len(starts)
    if not turns or n == 0:
        return [None] * n
    speakers = max(t.speaker for t in turns) + 1
    a, b = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    b = np.maximum(b, a + 1e-3)  # a zero-length word still sits somewhere
    cover = np.zeros((n, speakers))
    for turn in turns:
        cover[:, turn.speaker] += np.maximum(np.minimum(b, turn.end) - np.maximum(a, turn.start), 0.0)
    best = cover.argmax(axis=1)
    return [int(k) if cover[i, k] > 0 else None for i, k in enumerate(best)]


def talk_seconds(turns: Sequence[SpeakerTurn], n_speakers: int) -> list[float]:
    """Seconds of turns of each speaker ``0..n_speakers-1``."""
    seconds = [0.0] * n_speakers
    for turn in turns:
        seconds[turn.speaker] += turn.end - turn.start
    return seconds
