"""How a music score per 0.1 s segment becomes music events: which score, how smoothed, how bridged.

A music bed under speech is quiet (10-18 dB below the voice) and the voice masks it
syllable by syllable, so a score that is right on average still dips below the event
threshold now and then, and a 0.9 s median with 0.5 s gaps bridged cuts one bed into
pieces, or drops it as runs shorter than the 2 s an event needs. :class:`MusicShape` holds
the few choices that decide this: the score (the network's music posterior, YAMNet's
zero-shot "Music" logit, or their mean), the median filter's length, the longest gap
bridged, and the hysteresis (an event opens at ``1 - sensitivity`` and holds while the score
stays above ``low_fraction`` of that). ``tools/train_detectors.py`` picks them by inner
leave-packages-out folds (:func:`tools.train_detectors.choose_music_shape`) and stores them
in the model, so ingest shapes music exactly as the bench chose.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np
import scipy.ndimage

from engine.detect import config
from engine.detect.events import Event
from engine.detect.features import FrameFeatures
from engine.detect.frames import active_frames, close_and_prune, frames_of, mask_spans
from engine.detect.sounds import score_to_events
from engine.errors import ParameterError

#: Where a music score comes from: the network's posterior, the zero-shot AudioSet score, or their mean.
MUSIC_SOURCES = ("network", "zero-shot", "mean")
#: Shortest music event kept, seconds (as :data:`engine.detect.classifier.EVENT_SHAPE`).
MUSIC_MIN_SECONDS = 2.0


@dataclass(frozen=True)
class MusicShape:
    """The music score and its event shaping.

    ``source``: one of :data:`MUSIC_SOURCES`; ``median_seconds``: median filter length;
    ``max_gap_seconds``: longest gap bridged; ``low_fraction``: hysteresis hold level as a
    fraction of the opening level; ``zero_shot_threshold``: the "Music" logit that maps to a
    score of 0.5 (used by the ``zero-shot`` and ``mean`` sources).
    """

    source: str = "network"
    median_seconds: float = 0.9
    max_gap_seconds: float = 0.5
    low_fraction: float = config.LOW_FRACTION
    zero_shot_threshold: float = 0.0

    def __post_init__(self) -> None:
        if self.source not in MUSIC_SOURCES:
            raise ParameterError(f"music score source must be one of {', '.join(MUSIC_SOURCES)}, got {self.source!r}")
        if not (self.median_seconds > 0 and self.max_gap_seconds >= 0 and 0 < self.low_fraction <= 1):
            raise ParameterError(f"music shape out of range: median {self.median_seconds} s, gap {self.max_gap_seconds} s, "
                                 f"low fraction {self.low_fraction}")  # fmt: skip

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> MusicShape:
        """The shape written by :meth:`to_json`; anything else raises ParameterError."""
        try:
            return cls(**json.loads(text))
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"not a music shape: {text!r} ({exc})") from exc


def music_score(network: np.ndarray, zero_shot: np.ndarray, shape: MusicShape, *, segment_seconds: float) -> np.ndarray:
    """Smoothed music score in [0, 1] per segment, float64 shape ``(n_segments,)``.

    ``network``: the network's raw music posterior per segment, shape ``(n_segments,)``;
    ``zero_shot``: the raw "Music" logit per segment, same shape (unused by the ``network`` source).
    """
    p = np.asarray(network, dtype=np.float64)
    z = np.asarray(zero_shot, dtype=np.float64)
    if p.ndim != 1 or (shape.source != "network" and z.shape != p.shape):
        raise ParameterError(f"music scores must be 1-D of one length, got {p.shape} and {z.shape}")
    if not len(p):
        return p
    width = max(1, round(shape.median_seconds / segment_seconds)) | 1

    def median(x: np.ndarray) -> np.ndarray:
        return scipy.ndimage.median_filter(x, size=width, mode="nearest")

    if shape.source == "network":
        return median(p)
    zero = 1.0 / (1.0 + np.exp(-(median(z) - shape.zero_shot_threshold)))
    return zero if shape.source == "zero-shot" else 0.5 * (median(p) + zero)


def music_events(score: np.ndarray, shape: MusicShape, *, segment_seconds: float, sensitivity: float = 0.5) -> list[Event]:
    """Music events of a smoothed ``score`` (shape ``(n_segments,)``), shaped by ``shape``; value and score: mean score."""
    return score_to_events("music", score, score, frame_seconds=segment_seconds, sensitivity=sensitivity,
                           min_seconds=MUSIC_MIN_SECONDS, max_gap_seconds=shape.max_gap_seconds,
                           low_fraction=shape.low_fraction)  # fmt: skip


def split_at_silence(events: list[Event], features: FrameFeatures) -> list[Event]:
    """``events`` with each music event cut where ``config.MUSIC_SPLIT_SILENCE_SECONDS`` or more of silence
    (frames that do not sound, :func:`~engine.detect.frames.active_frames`) runs inside it; pieces shorter
    than ``MUSIC_MIN_SECONDS`` are dropped, the others keep the event's score and value. Other events pass.

    The music score's 0.9-2.9 s smoothing and the bridged gaps join two pieces a short silence apart;
    silence is no music, and a bed's dips under a voice still sound.
    """
    if not any(e.type == "music" for e in events) or features.n_frames == 0:
        return events
    fs = features.frame_seconds
    silent = close_and_prune(~active_frames(features.energy_db), max_gap=0,
                             min_length=frames_of(config.MUSIC_SPLIT_SILENCE_SECONDS, fs)).astype(bool)  # fmt: skip
    out = []
    for e in events:
        a, b = round(e.start / fs), min(round(e.end / fs), features.n_frames)
        if e.type != "music" or not silent[a:b].any():
            out.append(e)
            continue
        for s, t in mask_spans(~silent[a:b]):
            start, end = (a + s) * fs, min((a + t) * fs, e.end)
            if end - start >= MUSIC_MIN_SECONDS:
                out.append(Event("music", round(start, 3), round(end, 3), e.score, e.value))
    return out
