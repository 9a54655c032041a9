"""What the detectors return: events on the timeline, and everything found in one recording."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.detect.frames import mask_spans

#: Event types the analyzer emits (``value`` meaning in brackets):
#: speech (mean webrtcvad decision), music, applause and laughter (mean smoothed posterior of the
#: learned classifier, 0-1), audience (applause or laughter the detector cannot tell apart; laughter's
#: share of the two scores, 0-1), noise (steady non-speech sound such as crowds and ambience; level,
#: dBFS), fast and slow (syllables per second).
EVENT_TYPES = ("speech", "music", "applause", "laughter", "audience", "noise", "fast", "slow")


@dataclass(frozen=True)
class Event:
    """One detected stretch: ``type``, ``start``/``end`` in seconds, ``score`` (detector
    confidence, larger is surer; for fast/slow the rate relative to the recording's median),
    and ``value`` (a type-specific measurement, see :data:`EVENT_TYPES`)."""

    type: str
    start: float
    end: float
    score: float
    value: float

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass
class Detections:
    """Everything the analyzer found in one recording.

    Attributes
    ----------
    events : sorted by start time.
    x_duration : float64, shape (n_words,): untranscribed sound before each word, seconds.
    transcribed : bool, shape (n_words,): the word is a real word, not one "heard" in music, applause,
        laughter or noise, outside speech, or an unknown-word token (its time is X-duration of the next real word).
    duration : seconds of audio analysed.
    syllables_per_second : median syllable-nucleus rate inside speech (0 without speech).
    words_per_second : median transcript word rate inside speech (0 without words).
    words_per_minute : the same rate in words per minute, the measure people know (property).
    """

    events: list[Event]
    x_duration: np.ndarray
    transcribed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    duration: float = 0.0
    syllables_per_second: float = 0.0
    words_per_second: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def words_per_minute(self) -> float:
        """Median transcript word rate inside speech, words per minute (0 without words)."""
        return 60.0 * self.words_per_second

    def of_type(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.type == kind]


def events_from_mask(
    kind: str, mask: np.ndarray, score: np.ndarray, value: np.ndarray, *, frame_seconds: float, duration: float | None = None
) -> list[Event]:
    """One event per run of ``mask``: score and value are the means of the per-frame arrays over the run.

    A frame ``t`` covers ``[(t - 0.5) * frame_seconds, (t + 0.5) * frame_seconds)``, clipped to
    ``[0, duration]``.
    """
    events = []
    end_cap = np.inf if duration is None else duration
    for a, b in mask_spans(mask):
        start = max(0.0, (a - 0.5) * frame_seconds)
        end = min(end_cap, (b - 0.5) * frame_seconds)
        if end <= start:
            continue
        events.append(Event(kind, round(start, 3), round(end, 3), float(np.mean(score[a:b])), float(np.mean(value[a:b]))))
    return events
