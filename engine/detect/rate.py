"""Speech rate: syllable nuclei per second inside speech (in the spirit of de Jong and Wempe,
"Praat script to detect syllable nuclei and measure speech rate automatically", 2009),
words per second from the transcript, and stretches unusually fast or slow for the recording.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.detect import config
from engine.detect.events import Event
from engine.detect.frames import as_frames, frames_of, moving_mean, positive, same_length
from engine.detect.kernels import _syllable_nuclei_kernel
from engine.errors import ParameterError

#: Event types of unusually fast or slow speech.
RATE_EVENT_TYPES = ("fast", "slow")


def syllable_nuclei(
    *,
    vowel_db: np.ndarray,
    voicing: np.ndarray,
    speech: np.ndarray,
    sr: int,
    hop_length: int,
    min_dip_db: float = config.NUCLEUS_MIN_DIP_DB,
    min_voicing: float = config.NUCLEUS_MIN_VOICING,
    floor_below_peak_db: float = config.NUCLEUS_FLOOR_BELOW_PEAK_DB,
    smooth_seconds: float = config.NUCLEUS_SMOOTH_SECONDS,
) -> np.ndarray:
    """Times of syllable nuclei, in seconds, shape (n_nuclei,), ascending.

    Parameters
    ----------
    vowel_db, voicing : float arrays, shape (n_frames,)
        Vowel-band level (dB) and voicing of each frame (see :mod:`engine.detect.features`).
    speech : bool array, shape (n_frames,)
        Frames inside speech; nuclei are looked for there only.
    sr, hop_length : sample rate (Hz) and frame hop (samples); frame t is at ``t * hop_length / sr`` s.
    min_dip_db : a peak counts if the level falls at least this far (dB) before the next peak.
    min_voicing : ... and the peak frame is voiced at least this much.
    floor_below_peak_db : ... and it is within this many dB of the 99th percentile of speech levels.
    smooth_seconds : the level is smoothed with a moving mean this long first.
    """
    level = as_frames("vowel_db", vowel_db)
    voiced = as_frames("voicing", voicing)
    in_speech = as_frames("speech", speech, dtype=np.uint8)
    same_length(vowel_db=level, voicing=voiced, speech=in_speech)
    if min_dip_db < 0 or floor_below_peak_db <= 0:
        raise ParameterError(
            f"min_dip_db must be >= 0 and floor_below_peak_db > 0 dB, got {min_dip_db} and {floor_below_peak_db}"
        )
    frame_seconds = hop_length / sr
    smooth = moving_mean(level, width=frames_of(smooth_seconds, frame_seconds))
    if not in_speech.any():
        return np.zeros(0)
    floor = float(np.percentile(smooth[in_speech.astype(bool)], 99)) - floor_below_peak_db
    threshold = np.full(level.shape[0], floor)
    peaks = _syllable_nuclei_kernel(smooth, voiced, in_speech, threshold, float(min_dip_db), float(min_voicing))
    return peaks * frame_seconds


@dataclass(frozen=True)
class RateStretch:
    """Consecutive audio holding about ``RATE_WINDOW_SPEECH_SECONDS`` of speech.

    ``start``/``end`` in seconds, ``speech_seconds`` of speech inside, ``syllables`` and
    ``words`` counted inside the speech (``words`` is -1 when no transcript was given).
    """

    start: float
    end: float
    speech_seconds: float
    syllables: int
    words: int

    @property
    def syllable_rate(self) -> float:
        return self.syllables / self.speech_seconds if self.speech_seconds > 0 else 0.0

    @property
    def word_rate(self) -> float:
        return self.words / self.speech_seconds if self.speech_seconds > 0 and self.words >= 0 else 0.0


def rate_stretches(
    *,
    speech: np.ndarray,
    nuclei: np.ndarray,
    frame_seconds: float,
    word_starts: np.ndarray | None = None,
    window_speech_seconds: float = config.RATE_WINDOW_SPEECH_SECONDS,
) -> list[RateStretch]:
    """Cut the recording into stretches of ``window_speech_seconds`` of speech each (the last may hold less).

    ``speech`` is a bool per frame (pauses excluded: speech time is sounding time);
    ``nuclei`` and ``word_starts`` are times in seconds. A boundary moves to the next pause
    when one starts within RATE_CUT_LOOK_AHEAD_SECONDS.
    """
    in_speech = as_frames("speech", speech, dtype=np.uint8).astype(bool)
    fs = positive("frame_seconds", frame_seconds)
    per_window = frames_of(positive("window_speech_seconds", window_speech_seconds), fs)
    cum = np.concatenate([[0], np.cumsum(in_speech)])
    total = int(cum[-1])
    if total == 0:
        return []
    n_windows = max(1, round(total / per_window))
    # cut where cumulative speech crosses k * total / n_windows, moved to the next pause if one is near
    look_ahead = frames_of(config.RATE_CUT_LOOK_AHEAD_SECONDS, fs)
    cuts = [0]
    for k in range(1, n_windows):
        t = min(int(np.searchsorted(cum, k * total / n_windows)), in_speech.shape[0] - 1)
        pauses = np.flatnonzero(~in_speech[t : t + look_ahead])
        t = t + int(pauses[0]) if pauses.size else t
        if cuts[-1] < t < in_speech.shape[0]:
            cuts.append(t)
    cuts.append(in_speech.shape[0])
    nuclei_frames = np.round(np.asarray(nuclei, dtype=np.float64) / fs).astype(np.int64)
    word_frames = None if word_starts is None else np.round(np.asarray(word_starts, dtype=np.float64) / fs).astype(np.int64)
    stretches = []
    for a, b in itertools.pairwise(cuts):
        speech_frames = int(cum[b] - cum[a])
        if speech_frames == 0:
            continue
        syll = int(np.count_nonzero((nuclei_frames >= a) & (nuclei_frames < b)))
        words = -1
        if word_frames is not None:
            inside = word_frames[(word_frames >= a) & (word_frames < b)]
            words = int(np.count_nonzero(in_speech[np.clip(inside, 0, in_speech.shape[0] - 1)]))
        stretches.append(RateStretch(a * fs, b * fs, speech_frames * fs, syll, words))
    return stretches


def detect_rate_changes(
    stretches: Sequence[RateStretch],
    *,
    deviation: float = config.DEFAULT_RATE_DEVIATION,
    min_words: int = config.RATE_MIN_WORDS,
    min_speech_seconds: float = config.RATE_MIN_SPEECH_SECONDS,
) -> tuple[list[Event], float, float]:
    """Fast and slow stretches relative to the recording's own median rate.

    A stretch's relative rate is its syllable rate over the median syllable rate; where
    it holds at least ``min_words`` transcribed words, the geometric mean of that and the
    same ratio for word rates. Relative rates above ``1 + deviation`` are fast, below
    ``1 - deviation`` slow; neighbouring stretches of one kind merge into one event.
    Stretches holding less than ``min_speech_seconds`` of speech are not judged.

    Returns ``(events, median syllables per second, median words per second)``; each Event
    has score = relative rate and value = syllables per second.
    """
    if not 0.0 < deviation < 1.0:
        raise ParameterError(f"deviation must lie strictly between 0 and 1, got {deviation}")
    usable = [s for s in stretches if s.speech_seconds >= min_speech_seconds and s.speech_seconds > 0]
    if not usable:
        return [], 0.0, 0.0
    syl_median = float(np.median([s.syllable_rate for s in usable]))
    worded = [s for s in usable if s.words >= min_words]
    word_median = float(np.median([s.word_rate for s in worded])) if worded else 0.0
    events: list[Event] = []
    run: list[tuple[RateStretch, float]] = []
    run_kind = ""

    def flush() -> None:
        if run:
            syll = sum(s.syllables for s, _ in run)
            secs = sum(s.speech_seconds for s, _ in run)
            score = float(np.exp(np.mean([np.log(r) for _, r in run])))
            events.append(Event(run_kind, round(run[0][0].start, 3), round(run[-1][0].end, 3), score, syll / secs))

    for s in usable:
        relative = s.syllable_rate / syl_median if syl_median > 0 else 1.0
        if word_median > 0 and s.words >= min_words and relative > 0:
            relative = float(np.sqrt(relative * s.word_rate / word_median)) if s.word_rate > 0 else relative
        kind = "fast" if relative > 1.0 + deviation else "slow" if relative < 1.0 - deviation else ""
        if kind != run_kind:
            flush()
            run = []
            run_kind = kind
        if kind:
            run.append((s, max(relative, 1e-6)))
    flush()
    return [e for e in events if e.type], syl_median, word_median


def rate_label(kind: str, start: float, end: float, syllables_per_second: float | None,
               word_starts: Sequence[float]) -> str:
    """How a fast or slow stretch reads to a person: ``"fast speech 12 s: 6.1 syllables/s, 190 words/min"``.

    Words per minute count the recognised words that start inside ``[start, end)`` (seconds) over the
    stretch's length, pauses included, as people time a speaker; ``syllables_per_second`` is the
    event's value (per second of speech), left out when unknown.
    """
    seconds = max(end - start, 0.0)
    parts = []
    if syllables_per_second is not None:
        parts.append(f"{syllables_per_second:.1f} syllables/s")
    if seconds > 0:
        words = sum(1 for s in word_starts if start <= s < end)
        parts.append(f"{60.0 * words / seconds:.0f} words/min")
    return f"{kind} speech {seconds:.0f} s" + (": " + ", ".join(parts) if parts else "")
