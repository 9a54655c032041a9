"""What AudioSet's zero-shot scores settle: ambience is no speech, speech is no noise, laughter or applause.

Each rule reads YAMNet's logits (:mod:`engine.detect.audioset`) per 0.1 s segment, median filtered
over ``MEDIAN_SECONDS``, and runs only on features computed with the tagger (sound model ``"audioset"``):

* :func:`ambience_events`: where sound is heard, YAMNet hears no speech (the best speech logit of
  :data:`SPEECH_CLASSES` below ``config.SPEECH_PRESENT_LOGIT``) and an ambience class
  (:data:`AMBIENCE_CLASSES`: rain, water, fire, insects, engines, hum, rumble, crowd murmur) beats
  it, the sound is a ``noise`` event, so webrtcvad's "speech" there is not speech;
* :func:`noise_outside_speech`: a steady-noise event is cut where YAMNet hears speech (quiet, slow
  or noisy speech is steady enough for the noise rule);
* :func:`ambience_relabelled`: a music event over which an ambience class clearly beats YAMNet's
  music classes (a rumble taken for music) is ``noise``.

The class lists were named before any result was seen, as the sounds the issue reports name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.ndimage

from engine.detect import config
from engine.detect.descriptors import SEGMENT_SECONDS, audioset_logits_per_segment, segment_count
from engine.detect.events import Event, events_from_mask
from engine.detect.features import FrameFeatures
from engine.detect.frames import active_frames, close_and_prune, frames_of

MEDIAN_SECONDS = 0.9
#: AudioSet classes of speech; their largest logit is the speech score.
SPEECH_CLASSES = ("Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue",
                  "Speech synthesizer", "Shout", "Whispering")  # fmt: skip
#: AudioSet classes of ambience: weather and water, fire, animals of the night, engines and machines,
#: hum and rumble, and the murmur of a crowd. Steady broadband noise (white noise, static) is left
#: out: speech under it is the steady-noise rule's and the speech gate's concern.
AMBIENCE_CLASSES = (
    "Wind", "Rustling leaves", "Thunderstorm", "Thunder", "Water", "Rain", "Raindrop", "Rain on surface",
    "Stream", "Waterfall", "Ocean", "Waves, surf", "Steam", "Gurgling", "Boiling", "Liquid", "Fire", "Crackle",
    "Insect", "Cricket", "Mosquito", "Fly, housefly", "Buzz", "Bee, wasp, etc.", "Frog", "Croak",
    "Vehicle", "Engine", "Idling", "Heavy engine (low frequency)", "Medium engine (mid frequency)",
    "Light engine (high frequency)", "Motor vehicle (road)", "Traffic noise, roadway noise", "Rail transport",
    "Train", "Aircraft", "Aircraft engine", "Mechanical fan", "Air conditioning", "Mechanisms", "Whir",
    "Hum", "Mains hum", "Rumble", "Vibration", "Throbbing", "Explosion", "Eruption", "Boom",
    "Environmental noise", "Hubbub, speech noise, speech babble",
)  # fmt: skip
#: Each kind's own classes, which an ambience class must beat to relabel the kind's event. Music only:
#: YAMNet's applause logits are weak on real applause (the lmms-common clip: "Vehicle" -2.8, "Cheering"
#: -3.4) and far below "Water" when laughter is mixed in, so they cannot overrule the network there.
OWN_CLASSES = {"music": ("Music", "Musical instrument")}


def ambience_classes() -> tuple[str, ...]:
    """Every AudioSet class these rules read: speech's, ambience's and the kinds' own."""
    return (*SPEECH_CLASSES, *AMBIENCE_CLASSES, *(c for own in OWN_CLASSES.values() for c in own))


def best_logits(features: FrameFeatures, groups: Sequence[tuple[str, ...]]) -> np.ndarray:
    """Per 0.1 s segment and group, the largest logit of the group's AudioSet classes, median filtered over
    ``MEDIAN_SECONDS``; float64 shape ``(n_segments, len(groups))``."""
    n = segment_count(features)
    out = np.full((n, len(groups)), -np.inf) if groups else np.zeros((0, 0))
    for g, group in enumerate(groups):  # a class at a time: a group of 40 classes is not held as 40 columns
        for name in group:
            np.maximum(out[:, g], audioset_logits_per_segment(features, (name,))[:, 0], out=out[:, g])
    width = max(1, round(MEDIAN_SECONDS / SEGMENT_SECONDS)) | 1
    return scipy.ndimage.median_filter(out, size=(width, 1), mode="nearest") if len(out) else out


def _segment_times(n: int) -> np.ndarray:
    return np.arange(n) * SEGMENT_SECONDS


def segments_inside(t: np.ndarray, events: Sequence[Event]) -> np.ndarray:
    """Which of the ascending times ``t`` (s, shape (n,)) lie inside one of ``events`` (start <= t < end), bool (n,).
    Each event marks its own slice: no mask per event (an hour is 36,000 segments)."""
    mask = np.zeros(len(t), bool)
    for e in events:
        mask[np.searchsorted(t, e.start) : np.searchsorted(t, e.end)] = True
    return mask


def ambience_events(features: FrameFeatures, exclude: Sequence[Event] = ()) -> list[Event]:
    """``noise`` events where ambience, not speech, sounds, outside ``exclude``; empty without AudioSet scores.

    A 0.1 s segment is ambience when it sounds (:func:`~engine.detect.frames.active_frames`), its speech
    score is below ``config.SPEECH_PRESENT_LOGIT`` and the best ambience logit beats the speech score;
    runs shorter than ``config.AMBIENCE_MIN_SECONDS`` are dropped, gaps up to ``config.AMBIENCE_MAX_GAP_SECONDS``
    bridged. Score: the mean margin of ambience over speech, logits; value: the mean level, dBFS.
    """
    if features.audioset is None or features.n_frames == 0:
        return []
    speech, ambience = best_logits(features, (SPEECH_CLASSES, AMBIENCE_CLASSES)).T
    step = max(1, round(SEGMENT_SECONDS / features.frame_seconds))
    sounding = active_frames(features.energy_db)[::step][: len(speech)]
    level = features.energy_db[::step][: len(speech)].astype(np.float64)
    t = _segment_times(len(speech))
    mask = sounding & (speech < config.SPEECH_PRESENT_LOGIT) & (ambience > speech) & ~segments_inside(t, exclude)
    mask = close_and_prune(mask, max_gap=frames_of(config.AMBIENCE_MAX_GAP_SECONDS, SEGMENT_SECONDS),
                           min_length=frames_of(config.AMBIENCE_MIN_SECONDS, SEGMENT_SECONDS)).astype(bool)  # fmt: skip
    mask &= ~segments_inside(t, exclude)
    return events_from_mask("noise", mask, ambience - speech, level, frame_seconds=SEGMENT_SECONDS,
                            duration=features.duration)  # fmt: skip


def noise_outside_speech(noise: Sequence[Event], features: FrameFeatures) -> list[Event]:
    """``noise`` events less the segments where YAMNet hears speech (speech score at least
    ``config.SPEECH_PRESENT_LOGIT``); pieces shorter than ``config.NOISE_MIN_SECONDS`` are dropped.
    Unchanged without AudioSet scores."""
    if features.audioset is None or not noise:
        return list(noise)
    speech = best_logits(features, (SPEECH_CLASSES,))[:, 0]
    t = _segment_times(len(speech))
    heard = speech >= config.SPEECH_PRESENT_LOGIT
    out: list[Event] = []
    for e in noise:
        inside = (t >= e.start) & (t < e.end)
        if not (inside & heard).any():
            out.append(e)
            continue
        keep = close_and_prune(inside & ~heard, max_gap=0,
                               min_length=frames_of(config.NOISE_MIN_SECONDS, SEGMENT_SECONDS)).astype(bool)
        for piece in events_from_mask("noise", keep, np.full(len(t), e.score), np.full(len(t), e.value),
                                      frame_seconds=SEGMENT_SECONDS, duration=e.end):  # fmt: skip
            out.append(Event("noise", max(piece.start, e.start), min(piece.end, e.end), e.score, e.value))
    return out


def ambience_relabelled(sounds: Sequence[Event], features: FrameFeatures) -> list[Event]:
    """``sounds`` with each music event over which the mean best ambience logit beats
    the mean best logit of the kind's :data:`OWN_CLASSES` by more than ``config.AMBIENCE_RELABEL_MARGIN_LOGIT``
    made a ``noise`` event (score: the margin, logits;
    value: the mean level, dBFS). Unchanged without AudioSet scores."""
    if features.audioset is None or not any(e.type in OWN_CLASSES for e in sounds):
        return list(sounds)
    kinds = tuple(OWN_CLASSES)
    logits = best_logits(features, (AMBIENCE_CLASSES, *(OWN_CLASSES[k] for k in kinds)))
    t = _segment_times(len(logits))
    step = max(1, round(SEGMENT_SECONDS / features.frame_seconds))
    level = features.energy_db[::step][: len(t)].astype(np.float64)
    out = []
    for e in sounds:
        inside = (t >= e.start) & (t < e.end)
        if e.type not in OWN_CLASSES or not inside.any():
            out.append(e)
            continue
        margin = float(logits[inside, 0].mean() - logits[inside, 1 + kinds.index(e.type)].mean())
        relabel = margin > config.AMBIENCE_RELABEL_MARGIN_LOGIT
        out.append(Event("noise", e.start, e.end, margin, float(level[inside].mean())) if relabel else e)
    return out
