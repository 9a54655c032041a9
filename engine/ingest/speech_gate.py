"""Recognition hears only what the detectors call speech.

Ingest runs the detectors first (a cheap pass over the file), then feeds the
recogniser the same audio with everything outside the detected speech replaced
by digital silence. Silence rather than cutting the non-speech out: word times
stay on the file's own clock with nothing to map back, a removed music bed
leaves a pause that ends the recogniser's utterance instead of joining the
words on either side into one, and every engine already skips silence cheaply
(Whisper's voice-activity filter, Vosk's endpointer). Each kept span fades in
and out over ``config.SPEECH_GATE_FADE_SECONDS`` so that no step in the signal
sounds like a consonant.

A speech event lying wholly inside a music event (the detectors report speech heard under a
music bed so) stays audible: the music silences only its time outside such speech.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from engine import config
from engine.detect.events import Event


def speech_spans(
    sounds: Sequence[Event],
    speech: Sequence[Event],
    *,
    pad: float = config.SPEECH_GATE_PAD_SECONDS,
    duration: float | None = None,
) -> list[tuple[float, float]]:
    """The stretches, in seconds, that recognition hears: detected ``speech`` widened by
    ``pad`` on each side, minus every music, applause, laughter or noise event in ``sounds``
    (a music event minus the ``speech`` events wholly inside it: speech under a music bed is heard).

    Returns sorted, disjoint (start, end) pairs within [0, ``duration``].
    """
    cap = float("inf") if duration is None else float(duration)
    merged: list[list[float]] = []
    for event in sorted(speech, key=lambda event: event.start):
        a, b = max(0.0, event.start - pad), min(cap, event.end + pad)
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        elif b > a:
            merged.append([a, b])
    kept = [e for e in sounds if e.type in config.NON_SPEECH_EVENT_TYPES]
    holes = sorted(h for e in kept for h in _minus((e.start, e.end), _under(e, speech)))
    return [span for a, b in merged for span in _minus((a, b), holes)]


def _under(sound: Event, speech: Sequence[Event]) -> list[tuple[float, float]]:
    """The speech events wholly inside ``sound`` when it is music, sorted; none for other sounds."""
    if sound.type != "music":
        return []
    return sorted((e.start, e.end) for e in speech if sound.start <= e.start and e.end <= sound.end)


def _minus(span: tuple[float, float], cuts: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The parts of ``span`` outside every one of the sorted ``cuts`` (seconds)."""
    a, b = span
    out = []
    for c, d in cuts:
        if d <= a or c >= b:
            continue
        if c > a:
            out.append((a, c))
        a = max(a, d)
    if b > a:
        out.append((a, b))
    return out


def span_gain(spans: Sequence[tuple[float, float]], *, first: int, n: int, sr: int,
              fade: float = config.SPEECH_GATE_FADE_SECONDS) -> np.ndarray:  # fmt: skip
    """Gain per sample for samples ``first`` .. ``first + n - 1``, float32 shape (n,): 1 inside
    ``spans`` (seconds), 0 outside, ramping linearly over ``fade`` seconds at each span's edges."""
    gain = np.zeros(n, dtype=np.float32)
    ramp = max(1.0, fade * sr)
    t = np.arange(first, first + n, dtype=np.float64)
    for start, end in spans:
        a, b = int(np.floor(start * sr)), int(np.ceil(end * sr))
        lo, hi = max(a, first), min(b, first + n)
        if lo >= hi:
            continue
        seg = t[lo - first : hi - first]
        gain[lo - first : hi - first] = np.clip(np.minimum(seg - a + 1, b - seg) / ramp, 0.0, 1.0)
    return gain


def gate_blocks(blocks: Iterable[np.ndarray], spans: Sequence[tuple[float, float]], *, sr: int) -> Iterator[np.ndarray]:
    """``blocks`` (int16, shape (n,) each, in order) with every sample outside ``spans`` silenced.

    Blocks keep their lengths, so sample positions and times are unchanged.
    """
    ordered = sorted(spans)
    k = 0  # first span that can still overlap a block
    first = 0
    for block in blocks:
        n = block.size
        while k < len(ordered) and ordered[k][1] * sr <= first:
            k += 1
        j = k
        while j < len(ordered) and ordered[j][0] * sr < first + n:
            j += 1
        near = ordered[k:j]
        if not near:
            out = np.zeros(n, dtype=np.int16)
        else:
            gain = span_gain(near, first=first, n=n, sr=sr)
            out = np.rint(block.astype(np.float32) * gain).astype(np.int16)
        first += n
        yield out
