"""Which recognised words stand: recognition hears the whole file, doubtful words in sounds go.

Earlier, ingest silenced everything the detectors did not call speech before the
recogniser heard it; quiet, slow or noisy speech the first pass took for noise was
deleted with it. Now the recogniser hears the file as it is (Whisper's own Silero
voice-activity filter skips silence, as faster-whisper does when called directly),
and a word is dropped afterwards only when both sides agree it is not speech:

* its middle lies inside an applause or laughter event of the detectors and inside none
  of their speech events, and
* the recogniser does not overrule them: its probability for the word is below the event
  type's figure in ``config.GATE_DROP_BELOW`` (there: every word, as Whisper writes
  laughter "ha ha" with confidence).

Music beds and noise drop nothing: on the broadcast the figures were chosen on, Whisper
heard whole placed no word in them, while the detectors there miss speech under a bed or
steady noise (``bench/gate_bench.py`` measures both on held-out audio). Engines whose word
confidences say nothing about these sounds (Vosk) lose every word in any non-speech event
outside detected speech (``config.GATE_DROP_BELOW_OTHER_ENGINES``).

:func:`speech_spans` gives the stretches the detectors call speech (their benches use it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine import config
from engine.asr.base import Word
from engine.detect.events import Event


def kept_words(
    words: Sequence[Word],
    sounds: Sequence[Event],
    speech: Sequence[Event],
    *,
    drop_below: Mapping[str, float] = config.GATE_DROP_BELOW,
) -> list[Word]:
    """``words`` less each whose middle (seconds) lies in an event of ``sounds`` of a type in
    ``drop_below``, outside every ``speech`` event, with ``conf`` below that type's figure.
    Order is kept."""
    holes = [(e.start, e.end, drop_below[e.type]) for e in sounds if e.type in drop_below]
    heard = [(e.start, e.end) for e in speech]

    def stands(word: Word) -> bool:
        t = (word.start + word.end) / 2
        below = max((p for a, b, p in holes if a <= t < b), default=0.0)
        return word.conf >= below or any(a <= t < b for a, b in heard)

    return [w for w in words if stands(w)]


def speech_spans(
    sounds: Sequence[Event],
    speech: Sequence[Event],
    *,
    pad: float = config.SPEECH_GATE_PAD_SECONDS,
    duration: float | None = None,
) -> list[tuple[float, float]]:
    """The stretches, in seconds, the detectors call speech: ``speech`` widened by ``pad`` on
    each side, minus every music, applause, laughter or noise event in ``sounds`` (a music
    event minus the ``speech`` events wholly inside it: speech under a music bed is speech).

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


def sound_holes(sounds: Sequence[Event], speech: Sequence[Event], *, types: frozenset[str]) -> list[tuple[float, float]]:
    """The spans, in seconds and sorted, of the events of ``sounds`` whose type is in ``types``, less the
    ``speech`` events wholly inside a music event (speech under a music bed is speech)."""
    kept = [e for e in sounds if e.type in types]
    return sorted(h for e in kept for h in _minus((e.start, e.end), _under(e, speech)))


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
