"""Learned music, applause and laughter detector: window statistics, a small network, smoothed posteriors.

The recording's frame features (:mod:`engine.detect.features`) are summarised every
``SEGMENT_SECONDS`` (0.1 s) by the mean and standard deviation of each scalar feature and of
each cepstral coefficient (the spectral envelope) over a short (0.3 s) and a long (1.2 s)
centred window, levels taken above the recording's silence floor, plus the fraction of
sounding frames: :func:`segment_descriptors`. A one-hidden-layer network
(:class:`SoundClassifier`, numpy only; trained by ``tools/train_detectors.py`` on real clips
from Debian packages) gives each segment a posterior per class; the posteriors are median
filtered over ``MEDIAN_SECONDS`` (tones over ``TONE_MEDIAN_SECONDS``: a beep may last 0.1 s)
and each sound class becomes events where its smoothed posterior passes ``1 - sensitivity``
(hysteresis, gaps bridged, short runs dropped). Tones and beeps are reported as ``noise``
events (value: level, dBFS), so that they are cut out of speech like any steady sound.

A model may also read AudioSet class scores (:mod:`engine.detect.audioset`): for each class
named in its ``audioset_classes``, the YAMNet logit interpolated from the patch centres to the
segment's centre and its mean over the long window (:func:`audioset_descriptors`). The
shipped model of that kind is ``models/detectors/sounds_audioset.npz`` (sound model
``"audioset"``); its features must be computed with the AudioSet tagger.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.ndimage

from engine.detect import config
from engine.detect.descriptors import (
    SEGMENT_SECONDS,
    ZERO_SHOT_CLASSES,
    all_descriptors,
    audioset_logits_per_segment,
    descriptor_rows,
    descriptor_size,
    segment_count,
)
from engine.detect.events import Event
from engine.detect.features import FrameFeatures
from engine.detect.frames import silence_floor_db
from engine.detect.laughter import LaughterHead
from engine.detect.music_beds import MusicShape, music_events, music_score
from engine.detect.sounds import score_to_events
from engine.errors import ParameterError

MEDIAN_SECONDS = 0.9
TONE_MEDIAN_SECONDS = 0.3
#: Sound classes the network tells apart; ``other`` is speech, silence and every other sound;
#: ``tone`` is beeps, test tones and dial tones (never speech).
CLASSES = ("other", "music", "applause", "laughter", "tone")
#: (shortest event kept, longest gap bridged), seconds, per emitted class.
EVENT_SHAPE = {"music": (2.0, 0.5), "applause": (0.8, 0.5), "laughter": (0.6, 0.5), "tone": (0.1, 0.1)}
#: The event type each class is reported as (a tone is steady non-speech sound: ``noise``).
EVENT_TYPE = {"music": "music", "applause": "applause", "laughter": "laughter", "tone": "noise"}
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "detectors" / "sounds.npz"
AUDIOSET_MODEL = DEFAULT_MODEL.with_name("sounds_audioset.npz")
#: AudioSet classes whose scores the "learned + AudioSet" model reads, named before any result was
#: seen: the classes we detect and their kinds (music and the music a broadcast plays under speech;
#: applause, clapping, cheering, crowd; laughter and its kinds), what they must be told from (speech
#: of several kinds, singing, babble) and the sounds that are none of them (beeps and tones, silence, noise).
AUDIOSET_CLASSES = (
    "Music", "Musical instrument", "Background music", "Theme music", "Soundtrack music", "Video game music",
    "Singing", "Applause", "Clapping", "Cheering", "Crowd", "Hubbub, speech noise, speech babble",
    "Laughter", "Baby laughter", "Giggle", "Snicker", "Belly laugh", "Chuckle, chortle",
    "Speech", "Conversation", "Narration, monologue", "Speech synthesizer", "Shout",
    "Beep, bleep", "Sine wave", "Dial tone", "Telephone dialing, DTMF", "Buzzer",
    "Silence", "Noise", "White noise", "Static",
)  # fmt: skip


#: Segments whose posteriors are computed at once (0.1 s each: 15 minutes).
POSTERIOR_ROWS = 9000


@dataclass(frozen=True)
class SoundClassifier:
    """Standardise, one tanh hidden layer, softmax over :data:`CLASSES`.

    ``mean``, ``scale``: shape (n_dims,); ``w1``: (n_dims, n_hidden); ``b1``: (n_hidden,);
    ``w2``: (n_hidden, n_classes); ``b2``: (n_classes,). ``audioset_classes``: the AudioSet
    classes whose scores follow the frame descriptors (none: frame features only).
    ``zero_shot``: (kind, logit threshold) pairs of the kinds whose events come from their
    AudioSet zero-shot score (:func:`zero_shot_scores`) rather than from the network.
    ``music_shape``: how music events are made (:mod:`engine.detect.music_beds`); none: like the other kinds.
    ``laughter_head``: when set, laughter events come from it (:mod:`engine.detect.laughter`) instead.
    """

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    classes: tuple[str, ...] = CLASSES
    audioset_classes: tuple[str, ...] = ()
    zero_shot: tuple[tuple[str, float], ...] = ()
    music_shape: MusicShape | None = None
    laughter_head: LaughterHead | None = None

    def descriptors(self, features: FrameFeatures) -> np.ndarray:
        """What this model reads of ``features``, float32 shape ``(n_segments, n_dims)`` (computed in float64;
        the network reads them in float64, a block of rows at a time)."""
        return all_descriptors(features, self.audioset_classes, dtype=np.float32)

    def raw_posteriors(self, features: FrameFeatures) -> tuple[np.ndarray, np.ndarray]:
        """Unsmoothed class posteriors per 0.1 s segment, float64 shape ``(n_segments, n_classes)``, and the
        interpolated AudioSet "Music" logit the model reads, float64 shape ``(n_segments,)`` (zeros when it reads
        none). The descriptors are made and read :data:`POSTERIOR_ROWS` segments at a time: a recording's
        whole matrix (110 MB in float32 for three hours) is never held."""
        n = segment_count(features)
        p, music = np.empty((n, len(self.classes))), np.zeros(n)
        music_col = (descriptor_size(0) + self.audioset_classes.index("Music")) if "Music" in self.audioset_classes else None
        floor = silence_floor_db(features.energy_db)
        for rows in descriptor_rows(n, POSTERIOR_ROWS):
            x = all_descriptors(features, self.audioset_classes, dtype=np.float32, rows=rows, floor_db=floor)
            p[rows] = self.posteriors(x)
            if music_col is not None:
                music[rows] = x[:, music_col]
        return p, music

    def posteriors(self, descriptors: np.ndarray) -> np.ndarray:
        """Class posteriors of float32 or float64 ``descriptors``, shape ``(n_segments, n_classes)``, rows summing to 1."""
        x = np.asarray(descriptors)
        if x.ndim != 2 or x.shape[1] != self.mean.shape[0]:
            raise ParameterError(f"descriptors must have shape (n, {self.mean.shape[0]}), got {x.shape}")
        out = np.empty((x.shape[0], self.w2.shape[1]))
        for at in range(0, x.shape[0], POSTERIOR_ROWS):  # in row blocks: an hour's hidden layer is not held whole
            rows = slice(at, at + POSTERIOR_ROWS)
            h = np.tanh(((x[rows].astype(np.float64) - self.mean) / self.scale) @ self.w1 + self.b1)
            z = h @ self.w2 + self.b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            out[rows] = p / p.sum(axis=1, keepdims=True)
        return out

    def save(self, path: Path, *, info: dict | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, mean=self.mean, scale=self.scale, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                            classes=np.array(self.classes), audioset_classes=np.array(self.audioset_classes, dtype=str),
                            zero_shot_kinds=np.array([k for k, _ in self.zero_shot], dtype=str),
                            zero_shot_thresholds=np.array([t for _, t in self.zero_shot], dtype=np.float64),
                            music_shape=np.array(self.music_shape.to_json() if self.music_shape else ""),
                            info=np.array(json.dumps(info or {})),
                            **(self.laughter_head.arrays() if self.laughter_head is not None else {}))  # type: ignore[arg-type]  # fmt: skip

    @classmethod
    def load(cls, path: Path = DEFAULT_MODEL) -> SoundClassifier:
        """Read the parameters written by :meth:`save`; a missing or malformed file raises ParameterError."""
        try:
            with np.load(path, allow_pickle=False) as z:
                audioset = tuple(str(c) for c in z["audioset_classes"]) if "audioset_classes" in z else ()
                zero_shot = tuple((str(k), float(t)) for k, t in zip(z["zero_shot_kinds"], z["zero_shot_thresholds"], strict=True)
                                  ) if "zero_shot_kinds" in z else ()  # fmt: skip
                shape_text = str(z["music_shape"]) if "music_shape" in z else ""
                music_shape = MusicShape.from_json(shape_text) if shape_text else None

                model = cls(z["mean"], z["scale"], z["w1"], z["b1"], z["w2"], z["b2"], tuple(str(c) for c in z["classes"]),
                            audioset, zero_shot, music_shape, LaughterHead.from_arrays(z))  # fmt: skip
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, ParameterError) as exc:  # EOFError: empty
            raise ParameterError(f"{path}: not a sound classifier ({exc})") from exc
        if model.music_shape and model.music_shape.source != "network" and "Music" not in model.audioset_classes:
            raise ParameterError(f"{path}: its music shape reads AudioSet's 'Music' score, which the model does not read")
        size = descriptor_size(len(model.audioset_classes))
        if model.w1.shape[0] != size or model.w2.shape[1] != len(model.classes):
            raise ParameterError(f"{path}: parameters do not fit {size} descriptors")
        if any(k not in ZERO_SHOT_CLASSES for k, _ in model.zero_shot):
            raise ParameterError(f"{path}: zero-shot kinds must be among {', '.join(ZERO_SHOT_CLASSES)}")
        return model


_CACHE: dict[Path, SoundClassifier] = {}


def default_classifier(path: Path = DEFAULT_MODEL) -> SoundClassifier:
    """A shipped classifier (default ``models/detectors/sounds.npz``; :data:`AUDIOSET_MODEL` reads AudioSet
    scores too), loaded once."""
    if path not in _CACHE:
        _CACHE[path] = SoundClassifier.load(path)
    return _CACHE[path]


def zero_shot_scores(features: FrameFeatures, kinds: tuple[str, ...]) -> np.ndarray:
    """Per 0.1 s segment and kind, the largest logit of the kind's :data:`ZERO_SHOT_CLASSES`, median filtered over
    ``MEDIAN_SECONDS``; float64 shape ``(n_segments, len(kinds))``."""
    names = tuple(n for k in kinds for n in ZERO_SHOT_CLASSES[k])
    logits = audioset_logits_per_segment(features, names)
    out, at = np.zeros((len(logits), len(kinds))), 0
    for k, kind in enumerate(kinds):
        n = len(ZERO_SHOT_CLASSES[kind])
        out[:, k] = logits[:, at : at + n].max(axis=1) if len(logits) else out[:, k]
        at += n
    width = max(1, round(MEDIAN_SECONDS / SEGMENT_SECONDS)) | 1
    return scipy.ndimage.median_filter(out, size=(width, 1), mode="nearest") if len(out) else out


def smoothed_posteriors(model: SoundClassifier, features: FrameFeatures, *, raw: np.ndarray | None = None) -> np.ndarray:
    """Median-filtered class posteriors per 0.1 s segment, shape ``(n_segments, n_classes)``; ``raw``: the
    unsmoothed posteriors (:meth:`SoundClassifier.raw_posteriors`) when already computed."""
    p = model.raw_posteriors(features)[0] if raw is None else raw
    if not len(p):
        return p
    out = np.empty_like(p)
    for k, kind in enumerate(model.classes):
        seconds = TONE_MEDIAN_SECONDS if kind == "tone" else MEDIAN_SECONDS
        width = max(1, round(seconds / SEGMENT_SECONDS)) | 1
        out[:, k] = scipy.ndimage.median_filter(p[:, k], size=width, mode="nearest")
    return out


def detect_sounds(
    features: FrameFeatures,
    *,
    model: SoundClassifier | None = None,
    sensitivities: dict[str, float] | None = None,
    classes: tuple[str, ...] = tuple(EVENT_SHAPE),
) -> list[Event]:
    """Music, applause and laughter events (and tones, as ``noise``) from the learned classifier.

    ``sensitivities`` maps a class to a value in (0, 1) (default 0.5): an event starts
    where the smoothed posterior reaches ``1 - sensitivity`` (for a zero-shot kind of the
    model, its score passed through a logistic centred on the kind's threshold). ``score`` of each event is
    its mean smoothed posterior; ``value`` the same, or for a tone its mean level in dBFS.
    Only the classes named in ``classes`` are turned into events.
    """
    model = model or default_classifier()
    sensitivities = sensitivities or {}
    if features.n_frames == 0:
        return []
    # the laughter head's own descriptors first, so that theirs and the model's are never held together
    # (an hour of either is about 35 MB)
    head = model.laughter_head if "laughter" in model.classes else None
    laughter = head.scores(features) if head is not None else None
    raw, music_logit = model.raw_posteriors(features)  # computed once: music shaping reads them too
    p = smoothed_posteriors(model, features, raw=raw)
    network = p.copy()  # the network's own posteriors, before zero-shot scores replace some kinds
    if model.zero_shot:  # these kinds' scores: 0.5 where the zero-shot logit reaches its threshold
        z = zero_shot_scores(features, tuple(k for k, _ in model.zero_shot))
        for j, (kind, threshold) in enumerate(model.zero_shot):
            p[:, model.classes.index(kind)] = 1.0 / (1.0 + np.exp(-(z[: len(p), j] - threshold)))
    if laughter is not None:  # its own smoothing and shape
        p[:, model.classes.index("laughter")] = laughter[: len(p)]
    step = max(1, round(SEGMENT_SECONDS / features.frame_seconds))
    seg = step * features.frame_seconds
    power = 10.0 ** (features.energy_db[::step].astype(np.float64) / 10.0)  # mean square per segment
    events: list[Event] = []
    for k, kind in enumerate(model.classes):
        if kind not in EVENT_SHAPE or kind not in classes:
            continue
        if kind == "music" and model.music_shape is not None:
            events += shaped_music_events(model, features, sensitivity=sensitivities.get(kind, 0.5),
                                          raw=(raw[:, k], music_logit))  # fmt: skip
            continue
        min_s, gap_s = EVENT_SHAPE[kind]
        if kind == "laughter" and model.laughter_head is not None:
            min_s, gap_s = model.laughter_head.min_seconds, model.laughter_head.gap_seconds
        value = p[:, k] if kind != "tone" else power[: len(p)]
        found = score_to_events(EVENT_TYPE[kind], p[:, k], value, frame_seconds=seg,
                                sensitivity=sensitivities.get(kind, 0.5), min_seconds=min_s, max_gap_seconds=gap_s)  # fmt: skip
        for e in found:
            if kind == "tone" and not _tonal(features, e.start, e.end):
                continue
            v = e.value if kind != "tone" else 10.0 * np.log10(max(e.value, 1e-12))  # mean power as dBFS
            events.append(Event(e.type, e.start, min(e.end, features.duration), e.score, v))
    if "applause" in model.classes and "laughter" in model.classes:
        a, lg = model.classes.index("applause"), model.classes.index("laughter")
        # either laughter score (network or zero-shot) may be the one that hears a laugh the other misses
        events = audience_by_scores(events, applause=np.maximum(p[:, a], network[:, a]),
                                    laughter=np.maximum(p[:, lg], network[:, lg]), segment_seconds=seg)  # fmt: skip
    return events


def audience_by_scores(events: list[Event], *, applause: np.ndarray, laughter: np.ndarray,
                       segment_seconds: float) -> list[Event]:  # fmt: skip
    """``events`` with each applause or laughter event over which the other kind's smoothed score averages at
    least ``config.AUDIENCE_SCORE_SHARE`` of its own made an ``audience`` event: the detector cannot tell the
    two apart. ``applause``, ``laughter``: smoothed scores per segment, shape ``(n_segments,)``. Score: the
    larger of the two means; value: laughter's share of the two, 0-1 (above 0.5: more like laughter)."""
    out, audience = [], []
    for e in events:
        a, b = round(e.start / segment_seconds), max(round(e.end / segment_seconds), round(e.start / segment_seconds) + 1)
        if e.type not in ("applause", "laughter") or a >= len(applause):
            out.append(e)
            continue
        pa, pl = float(applause[a:b].mean()), float(laughter[a:b].mean())
        own, other = (pa, pl) if e.type == "applause" else (pl, pa)
        if other >= config.AUDIENCE_SCORE_SHARE * own:
            audience.append(Event("audience", e.start, e.end, max(pa, pl), pl / max(pa + pl, 1e-12)))
        else:
            out.append(e)
    return out + merged_audience(audience)


def merged_audience(events: list[Event]) -> list[Event]:
    """Overlapping ``audience`` events joined, their score and value weighted by duration."""
    out: list[Event] = []
    for e in sorted(events, key=lambda e: e.start):
        if out and e.start <= out[-1].end:
            last = out.pop()
            w1, w2 = last.duration, e.duration
            e = Event("audience", last.start, max(last.end, e.end), (last.score * w1 + e.score * w2) / (w1 + w2),
                      (last.value * w1 + e.value * w2) / (w1 + w2))  # fmt: skip
        out.append(e)
    return out


def raw_music_scores(model: SoundClassifier, features: FrameFeatures) -> tuple[np.ndarray, np.ndarray]:
    """The network's unsmoothed music posterior and AudioSet's "Music" logit (zeros for a model without AudioSet
    scores) per 0.1 s segment, each float64 shape ``(n_segments,)``."""
    raw, logit = model.raw_posteriors(features)
    return raw[:, model.classes.index("music")], logit


def shaped_music_events(model: SoundClassifier, features: FrameFeatures, *, sensitivity: float = 0.5,
                        raw: tuple[np.ndarray, np.ndarray] | None = None) -> list[Event]:  # fmt: skip
    """Music events by the model's :class:`~engine.detect.music_beds.MusicShape` (its score, median, bridge and
    hysteresis); ``score`` and ``value`` of each event are its mean music score. ``raw``: what
    :func:`raw_music_scores` gives, when already computed."""
    shape = model.music_shape or MusicShape()
    network, zero_shot = raw if raw is not None else raw_music_scores(model, features)
    score = music_score(network, zero_shot, shape, segment_seconds=SEGMENT_SECONDS)
    return [Event(e.type, e.start, min(e.end, features.duration), e.score, e.value)
            for e in music_events(score, shape, segment_seconds=SEGMENT_SECONDS, sensitivity=sensitivity)]  # fmt: skip


def _tonal(features: FrameFeatures, start: float, end: float) -> bool:
    """Whether the loud frames of ``[start, end)`` s have the spectral flatness of a beep, not of a voice.

    Beeps (sines, DTMF pairs, buzzers) have a median log10 flatness of -4.8 or less; voiced
    speech, even telephone band, stays above -3.1 in 999 frames of 1000.
    """
    a = round(start / features.frame_seconds)
    b = max(round(end / features.frame_seconds), a + 1)
    energy, flatness = features.energy_db[a:b], features.flatness[a:b]
    if not len(energy):
        return False
    loud = energy >= energy.max() - 6.0
    return bool(np.median(flatness[loud]) < config.TONE_MAX_FLATNESS)
