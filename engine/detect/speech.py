"""Voice activity from webrtcvad decisions, smoothed with a hangover, as speech events."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.detect import config
from engine.detect.events import Event, events_from_mask
from engine.detect.frames import as_frames, close_and_prune, frames_of, positive, smooth_hangover


def speech_mask(
    vad: np.ndarray,
    *,
    vad_frame_seconds: float,
    onset_seconds: float = config.SPEECH_ONSET_SECONDS,
    hangover_seconds: float = config.DEFAULT_SPEECH_HANGOVER_SECONDS,
    max_gap_seconds: float = config.SPEECH_MAX_GAP_SECONDS,
    min_seconds: float = config.SPEECH_MIN_SECONDS,
    exclude: Sequence[Event] = (),
) -> np.ndarray:
    """Smoothed speech decision per webrtcvad frame (uint8, shape like ``vad``).

    ``vad`` holds webrtcvad's raw 0/1 decisions, one per ``vad_frame_seconds``. Speech opens
    after ``onset_seconds`` of consecutive speech frames and closes ``hangover_seconds`` after
    the last one; spans in ``exclude`` (e.g. music, applause, laughter), widened by the
    hangover, are cut out; pauses up
    to ``max_gap_seconds`` are bridged and stretches shorter than ``min_seconds`` dropped.
    """
    raw = as_frames("vad", vad, dtype=np.uint8)
    fs = positive("vad_frame_seconds", vad_frame_seconds)
    hangover = frames_of(hangover_seconds, fs, minimum=0)
    mask = smooth_hangover(raw, onset=frames_of(onset_seconds, fs), hangover=hangover)
    for event in exclude:
        # widened by the hangover: webrtcvad calls most sound speech, so its tail would linger
        mask[max(0, int(np.floor(event.start / fs)) - hangover) : int(np.ceil(event.end / fs)) + hangover] = 0
    return close_and_prune(mask, max_gap=frames_of(max_gap_seconds, fs, minimum=0), min_length=frames_of(min_seconds, fs))


def detect_speech(
    vad: np.ndarray,
    *,
    vad_frame_seconds: float,
    hangover_seconds: float = config.DEFAULT_SPEECH_HANGOVER_SECONDS,
    exclude: Sequence[Event] = (),
    duration: float | None = None,
) -> list[Event]:
    """Speech events from webrtcvad decisions (see :func:`speech_mask`).

    Returns Events of type ``"speech"``; score and value = the fraction of 30 ms frames
    inside the event that webrtcvad itself called speech.
    """
    raw = as_frames("vad", vad, dtype=np.uint8)
    mask = speech_mask(raw, vad_frame_seconds=vad_frame_seconds, hangover_seconds=hangover_seconds, exclude=exclude)
    fraction = raw.astype(np.float64)
    # events_from_mask centres frame t on t * frame_seconds; a webrtcvad frame t spans [t, t + 1) frames.
    events = events_from_mask("speech", mask, fraction, fraction, frame_seconds=vad_frame_seconds)
    shift = 0.5 * vad_frame_seconds
    cap = np.inf if duration is None else duration
    return [Event(e.type, round(e.start + shift if e.start > 0 else 0.0, 3), round(min(cap, e.end + shift), 3), e.score, e.value)
            for e in events]  # fmt: skip
