"""Word times moved by a little, to measure how much the stories depend on timing noise.

Captions put a row's words end to start and the rows a few video frames apart; a recogniser's
word times move by tens of milliseconds from run to run. The stories should not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.errors import ParameterError
from engine.segment.text import Transcript


@dataclass(frozen=True)
class TimingMove:
    """How to move every word's times, in seconds.

    Attributes
    ----------
    name : str
        What the move is called in a table.
    start_shift, end_shift : float
        Added to every word's start and to every word's end.
    jitter : float
        Each word's start and end also move by their own uniform amount in ``[-jitter, jitter]``.
    seed : int
        Seed of the jitter.
    """

    name: str
    start_shift: float = 0.0
    end_shift: float = 0.0
    jitter: float = 0.0
    seed: int = 0

    @property
    def largest(self) -> float:
        """The most any one time moves, seconds."""
        return max(abs(self.start_shift), abs(self.end_shift)) + abs(self.jitter)


def moved_times(starts: np.ndarray, ends: np.ndarray, move: TimingMove) -> tuple[np.ndarray, np.ndarray]:
    """Word starts and ends, float64 (n,) each, moved by ``move``, with the words kept in order.

    After the move the starts never decrease (a start moved before the previous word's start
    is raised to it) and no word ends before it starts (its end is raised to its start).
    """
    t0, t1 = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    if t0.shape != t1.shape or t0.ndim != 1:
        raise ParameterError(f"starts and ends must be 1-d arrays of one shape, got {t0.shape} and {t1.shape}")
    new_starts, new_ends = t0 + move.start_shift, t1 + move.end_shift
    if move.jitter:
        rng = np.random.default_rng(move.seed)
        new_starts = new_starts + rng.uniform(-move.jitter, move.jitter, t0.shape)
        new_ends = new_ends + rng.uniform(-move.jitter, move.jitter, t1.shape)
    new_starts = np.maximum.accumulate(new_starts) if new_starts.size else new_starts
    return new_starts, np.maximum(new_ends, new_starts)


def moved_transcript(transcript: Transcript, move: TimingMove) -> Transcript:
    """``transcript`` with its word times moved (see :func:`moved_times`); it must have times."""
    if transcript.starts is None or transcript.ends is None:
        raise ParameterError(f"{transcript.name or 'transcript'}: has no word times to move")
    starts, ends = moved_times(transcript.starts, transcript.ends, move)
    return replace(transcript, starts=starts, ends=ends)


def standard_moves(largest: float = 0.05, *, seeds: tuple[int, ...] = (0, 1, 2)) -> list[TimingMove]:
    """Every end earlier or later, every start earlier or later, both, by ``largest`` / 5 and ``largest``
    seconds, and every time moved on its own by up to ``largest`` (one move per seed)."""
    moves = []
    for size in (largest / 5, largest):
        for sign in (-1.0, 1.0):
            d = sign * size
            moves += [TimingMove(f"ends {d:+.2f} s", end_shift=d), TimingMove(f"starts {d:+.2f} s", start_shift=d),
                      TimingMove(f"starts and ends {d:+.2f} s", start_shift=d, end_shift=d)]
    moves += [TimingMove(f"each time by up to ±{largest:.2f} s, seed {s}", jitter=largest, seed=s) for s in seeds]
    return moves


def starts_matched(reference: np.ndarray, other: np.ndarray, *, within: int) -> float:
    """Share of ``reference``'s story starts with one of ``other``'s within ``within`` words (1.0 if none)."""
    ref, oth = np.asarray(reference, dtype=np.int64), np.asarray(other, dtype=np.int64)
    if ref.size == 0:
        return 1.0
    if oth.size == 0:
        return 0.0
    right = np.clip(np.searchsorted(oth, ref), 0, oth.size - 1)
    left = np.clip(right - 1, 0, oth.size - 1)
    nearest = np.minimum(np.abs(oth[right] - ref), np.abs(oth[left] - ref))
    return float(np.mean(nearest <= within))
