"""The streaming front end: feed audio blocks beside recognition, then run every detector.

::

    analyzer = AudioAnalyzer(sr=16000)
    for block in blocks:            # int16 mono, any length, in order
        analyzer.feed(block)
    detections = analyzer.finish(words)   # words: engine.asr.base.Word, in time order

Only compact per-frame features are kept between blocks (about 16 MB an hour, see
:mod:`engine.detect.features`); the detectors run once, in :meth:`AudioAnalyzer.finish`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import scipy.ndimage

from engine.asr.base import Word
from engine.detect import config
from engine.detect.ambience import (
    ambience_classes,
    ambience_events,
    ambience_relabelled,
    noise_outside_speech,
    segments_inside,
)
from engine.detect.audioset import AudioSetModel
from engine.detect.classifier import (
    AUDIOSET_MODEL,
    MEDIAN_SECONDS,
    SEGMENT_SECONDS,
    SoundClassifier,
    audioset_logits_per_segment,
    default_classifier,
    detect_sounds,
)
from engine.detect.descriptors import ZERO_SHOT_CLASSES
from engine.detect.events import Detections, Event, events_from_mask
from engine.detect.features import FeatureExtractor, FrameFeatures
from engine.detect.frames import active_frames, close_and_prune, frames_of
from engine.detect.music_beds import split_at_silence
from engine.detect.rate import detect_rate_changes, rate_stretches, syllable_nuclei
from engine.detect.sensitivities import DetectorSettings
from engine.detect.sounds import detect_applause, detect_laughter, detect_music, detect_noise
from engine.detect.speech import detect_speech
from engine.detect.xduration import good_words, inside_sounds, x_duration
from engine.errors import ParameterError

#: The AudioSet class whose score tells speech heard under music (:func:`speech_under_music`).
SPEECH_UNDER_MUSIC_CLASSES = ("Speech",)


class AudioAnalyzer:
    """Per-recording audio analysis: :meth:`feed` every block, then :meth:`finish` once.

    Parameters
    ----------
    sr : sample rate of the blocks, Hz (8000, 16000, 32000 or 48000).
    settings : detector sensitivities; default :class:`DetectorSettings()`. With
        ``sound_model="audioset"`` the AudioSet tagger runs beside the frame features.
    """

    def __init__(self, *, sr: int = 16000, settings: DetectorSettings | None = None) -> None:
        self.settings = settings or DetectorSettings()
        self._extractor = feature_extractor(sr=sr, settings=self.settings)
        self._feature_seconds = 0.0
        self.features: FrameFeatures | None = None

    @property
    def sr(self) -> int:
        return self._extractor.sr

    def feed(self, block: np.ndarray) -> None:
        """Add the next block: int16 (or float in [-1, 1]) mono samples, shape (n,)."""
        t0 = time.process_time()
        self._extractor.feed(block)
        self._feature_seconds += time.process_time() - t0

    def finish(self, words: Sequence[Word] = ()) -> Detections:
        """Run every detector over the whole recording; ``words`` are the recognised words in time order."""
        t0 = time.process_time()
        self.features = self._extractor.finish()
        self._feature_seconds += time.process_time() - t0
        detections = analyze(self.features, words, settings=self.settings)
        detections.timings["features"] = self._feature_seconds
        return detections


def feature_extractor(*, sr: int, settings: DetectorSettings) -> FeatureExtractor:
    """The streaming feature extractor the ``settings`` need: with the AudioSet tagger when
    ``settings.sound_model == "audioset"`` (raises ``ModelError`` when the tagger is not installed),
    keeping the scores of the classes the detectors read only (:func:`audioset_classes_read`)."""
    if settings.sound_model != "audioset":
        return FeatureExtractor(sr=sr, vad_aggressiveness=settings.vad_aggressiveness)
    tagger = AudioSetModel.shipped()  # ONNX Runtime is loaded here, on first use
    return FeatureExtractor(sr=sr, vad_aggressiveness=settings.vad_aggressiveness, audioset=tagger,
                            audioset_classes=audioset_classes_read(tagger.class_names))  # fmt: skip


def audioset_classes_read(order: tuple[str, ...], model: SoundClassifier | None = None) -> tuple[str, ...]:
    """The AudioSet classes whose scores the ``"audioset"`` detectors read, in the tagger's ``order``: the
    classifier's (``model``, default the shipped one) and its laughter head's, the zero-shot kinds', the ambience
    rules' and speech under music's. 85 of 521 with the shipped model: the rest need not be kept while a
    recording streams (6.5 MB an hour)."""
    model = model or default_classifier(AUDIOSET_MODEL)
    read = {*model.audioset_classes, *SPEECH_UNDER_MUSIC_CLASSES, *ambience_classes()}
    read.update(c for kind, _ in model.zero_shot for c in ZERO_SHOT_CLASSES[kind])
    if model.music_shape is not None:
        read.add("Music")
    if model.laughter_head is not None:
        read.update(model.laughter_head.classes)
        read.update(ZERO_SHOT_CLASSES["laughter"])
    return tuple(name for name in order if name in read)


def audio_events(features: FrameFeatures, settings: DetectorSettings | None = None) -> tuple[list[Event], list[Event]]:
    """The detectors that need no words: (music, applause, laughter and noise events, speech events).

    Speech events lie outside the sound events, except speech heard under music
    (:func:`speech_under_music`, with AudioSet scores only), which the speech gate keeps audible.
    """
    settings = settings or DetectorSettings()
    sounds = sound_events(features, settings) if features.n_frames else []
    speech = detect_speech(features.vad, vad_frame_seconds=features.vad_frame_seconds,
                           hangover_seconds=settings.speech_hangover_seconds, exclude=sounds,
                           duration=features.duration)  # fmt: skip
    under = speech_under_music(features, sounds, settings)
    return sounds, sorted(speech + under, key=lambda e: (e.start, e.end))


def speech_under_music(features: FrameFeatures, sounds: Sequence[Event], settings: DetectorSettings) -> list[Event]:
    """Speech heard under the music events of ``sounds``: ``speech`` events inside them.

    Where webrtcvad hears speech (other sounds excluded) inside a music event and AudioSet's
    "Speech" logit, median filtered over 0.9 s, reaches ``config.SPEECH_UNDER_MUSIC_LOGIT``;
    runs shorter than ``config.SPEECH_UNDER_MUSIC_MIN_SECONDS`` are dropped. Score and value:
    the mean logit. Empty when the features carry no AudioSet scores (webrtcvad alone hears
    speech in most music).
    """
    music = [e for e in sounds if e.type == "music"]
    if not music or features.audioset is None or features.n_frames == 0:
        return []
    voiced = detect_speech(features.vad, vad_frame_seconds=features.vad_frame_seconds,
                           hangover_seconds=settings.speech_hangover_seconds,
                           exclude=[e for e in sounds if e.type != "music"], duration=features.duration)  # fmt: skip
    logit = audioset_logits_per_segment(features, SPEECH_UNDER_MUSIC_CLASSES)[:, 0]
    logit = scipy.ndimage.median_filter(logit, size=max(1, round(MEDIAN_SECONDS / SEGMENT_SECONDS)) | 1, mode="nearest")
    t = np.arange(len(logit)) * SEGMENT_SECONDS
    mask = segments_inside(t, music) & segments_inside(t, voiced) & (logit >= config.SPEECH_UNDER_MUSIC_LOGIT)
    mask = close_and_prune(mask, max_gap=0, min_length=frames_of(config.SPEECH_UNDER_MUSIC_MIN_SECONDS, SEGMENT_SECONDS))
    found = events_from_mask("speech", mask, logit, logit, frame_seconds=SEGMENT_SECONDS, duration=features.duration)
    out = []
    for e in found:  # each run lies in one music event: clip it to that event's edges
        m = next((m for m in music if m.start <= (e.start + e.end) / 2 < m.end), None)
        if m is not None and min(e.end, m.end) > max(e.start, m.start):
            out.append(Event("speech", max(e.start, m.start), min(e.end, m.end), e.score, e.value))
    return out


def analyze(
    features: FrameFeatures, words: Sequence[Word] = (), *, settings: DetectorSettings | None = None,
    found: tuple[list[Event], list[Event]] | None = None,
) -> Detections:  # fmt: skip
    """Every detector over one recording's features; pure (the same input gives the same output).

    ``found``: the result of :func:`audio_events` on the same features and settings, when it
    was already computed (ingest runs it before recognition, to feed the recogniser speech only).
    Returns :class:`Detections` with events sorted by start and one X-duration per word.
    """
    settings = settings or DetectorSettings()
    t0 = time.process_time()
    sounds, speech = found if found is not None else audio_events(features, settings)
    t_sounds = time.process_time()
    rate_events, syl_rate, word_rate = speech_rate_events(features, speech, words, settings)
    t_rate = time.process_time()
    transcribed = transcribed_words(words, sounds=sounds, speech=speech, settings=settings)
    xd = word_x_duration(features, words, transcribed)
    t_end = time.process_time()
    events = sorted(sounds + speech + rate_events, key=lambda e: (e.start, e.end, e.type))
    return Detections(
        events=events,
        x_duration=xd,
        transcribed=transcribed,
        duration=features.duration,
        syllables_per_second=syl_rate,
        words_per_second=word_rate,
        timings={"sounds": t_sounds - t0, "speech_rate": t_rate - t_sounds, "x_duration": t_end - t_rate},
    )


def sound_events(features: FrameFeatures, settings: DetectorSettings) -> list[Event]:
    """Music, applause and laughter (by ``settings.sound_model``), tones, then steady noise outside those.

    The rules have no tone detector: with them, the learned classifier's tones outside the
    rules' events are added, so that a beep is never speech whichever model is chosen.
    """
    if settings.sound_model == "rules":
        sounds = rule_sound_events(features, settings)
        return sounds + tones_outside(features, sounds)
    if settings.sound_model == "audioset":
        return heard_sound_events(features, settings)
    return learned_sound_events(features, settings)


def heard_sound_events(features: FrameFeatures, settings: DetectorSettings,
                       model: SoundClassifier | None = None) -> list[Event]:  # fmt: skip
    """The AudioSet model's events (``model``, default the shipped one), then what YAMNet's zero-shot scores
    settle (:mod:`engine.detect.ambience`): music split at silence, ambience relabelled ``noise``, steady noise
    cut where speech is heard, and ambience outside every event ``noise``."""
    model = model or default_classifier(AUDIOSET_MODEL)
    sounds = detect_sounds(features, model=model, sensitivities={"music": settings.music_sensitivity,
                                                    "applause": settings.applause_sensitivity,
                                                    "laughter": settings.laughter_sensitivity})  # fmt: skip
    sounds = ambience_relabelled(split_at_silence(sounds, features), features)
    noise = noise_outside_speech(_noise_outside(features, sounds), features)
    sounds = sounds + noise
    return sounds + ambience_events(features, exclude=sounds)


def tones_outside(features: FrameFeatures, sounds: Sequence[Event], model: SoundClassifier | None = None) -> list[Event]:
    """The learned classifier's tone events (type ``noise``) that overlap none of ``sounds``."""
    tones = detect_sounds(features, model=model, classes=("tone",))
    return [t for t in tones if not any(min(t.end, e.end) > max(t.start, e.start) for e in sounds)]


def learned_sound_events(features: FrameFeatures, settings: DetectorSettings,
                         model: SoundClassifier | None = None) -> list[Event]:  # fmt: skip
    """Music, applause, laughter and tones from the learned classifier ``model`` (default: the shipped one),
    then steady noise outside those."""
    sounds = detect_sounds(features, model=model, sensitivities={"music": settings.music_sensitivity,
                                                    "applause": settings.applause_sensitivity,
                                                    "laughter": settings.laughter_sensitivity})  # fmt: skip
    sounds = split_at_silence(sounds, features)
    return sounds + _noise_outside(features, sounds)


def rule_sound_events(features: FrameFeatures, settings: DetectorSettings) -> list[Event]:
    """The hand-set rules for music, applause and laughter, then steady noise outside those."""
    f, kw = features, {"sr": features.sr, "hop_length": features.hop_length}
    sounds = detect_music(chroma_stability=f.chroma_stability, voicing=f.voicing, flux=f.flux, energy_db=f.energy_db,
                          sensitivity=settings.music_sensitivity, **kw)  # fmt: skip
    sounds += detect_applause(flatness=f.flatness, voicing=f.voicing, chroma_stability=f.chroma_stability,
                              energy_db=f.energy_db, sensitivity=settings.applause_sensitivity, **kw)  # fmt: skip
    sounds += detect_laughter(energy_db=f.energy_db, shape_stability=f.shape_stability,
                              chroma_stability=f.chroma_stability, sensitivity=settings.laughter_sensitivity, **kw)  # fmt: skip
    return sounds + _noise_outside(features, sounds)


def _noise_outside(features: FrameFeatures, sounds: list[Event]) -> list[Event]:
    f = features
    return detect_noise(shape_stability=f.shape_stability, flux=f.flux, flatness=f.flatness, energy_db=f.energy_db,
                        exclude=sounds, sr=f.sr, hop_length=f.hop_length)  # fmt: skip


def _frames_in(events: Sequence[Event], n_frames: int, frame_seconds: float) -> np.ndarray:
    mask = np.zeros(n_frames, dtype=bool)
    for e in events:
        mask[round(e.start / frame_seconds) : round(e.end / frame_seconds)] = True
    return mask


def speech_rate_events(
    features: FrameFeatures, speech: Sequence[Event], words: Sequence[Word], settings: DetectorSettings
) -> tuple[list[Event], float, float]:
    """Fast and slow stretches, and the median syllable and word rates inside speech."""
    if features.n_frames == 0:
        return [], 0.0, 0.0
    fs = features.frame_seconds
    in_speech = _frames_in(speech, features.n_frames, fs)
    nuclei = syllable_nuclei(vowel_db=features.vowel_db, voicing=features.voicing, speech=in_speech,
                             sr=features.sr, hop_length=features.hop_length)  # fmt: skip
    sounding = in_speech & active_frames(features.energy_db)  # pauses inside speech do not count
    starts = np.array([w.start for w in words], dtype=np.float64) if len(words) else None
    stretches = rate_stretches(speech=sounding, nuclei=nuclei, frame_seconds=fs, word_starts=starts)
    return detect_rate_changes(stretches, deviation=settings.rate_deviation)


def transcribed_words(
    words: Sequence[Word], *, sounds: Sequence[Event], speech: Sequence[Event], settings: DetectorSettings
) -> np.ndarray:
    """Bool per word, shape (len(words),): a real word, not something the recogniser "heard" in sound.

    A word counts when it is no unknown-word token, has at least the minimum confidence,
    lies mostly inside detected speech and not inside a music, applause, laughter or noise
    event (event edges widened by ``XD_SOUND_MARGIN_SECONDS``), unless it lies in speech heard
    under a music bed (:func:`speech_under_music`): those words are the bed's real speech.
    """
    if not len(words):
        return np.zeros(0, dtype=bool)
    starts = np.array([w.start for w in words], dtype=np.float64)
    ends = np.maximum(np.array([w.end for w in words], dtype=np.float64), starts)
    if (np.diff(starts) < 0).any():
        raise ParameterError("words must be given in time order (non-decreasing start times)")
    good = good_words(np.array([w.conf for w in words], dtype=np.float64), [w.text for w in words],
                      min_confidence=settings.min_word_confidence)  # fmt: skip
    margin = config.XD_SOUND_MARGIN_SECONDS  # event edges are uncertain by half a window

    def widened(events: Sequence[Event]) -> list[Event]:
        return [Event(e.type, e.start - margin, e.end + margin, e.score, e.value) for e in events]

    music = [e for e in sounds if e.type == "music"]
    under_music = [e for e in speech if any(min(e.end, m.end) > max(e.start, m.start) for m in music)]
    good &= ~inside_sounds(starts, ends, widened(sounds)) | inside_sounds(starts, ends, under_music)
    # a word heard outside speech (in a noise burst too short to be an event, say) is no word either
    good &= inside_sounds(starts, ends, widened(speech))
    return good


def word_x_duration(features: FrameFeatures, words: Sequence[Word], transcribed: np.ndarray) -> np.ndarray:
    """X-duration of every word, seconds, shape (len(words),); see :mod:`engine.detect.xduration`."""
    if not len(words):
        return np.zeros(0)
    starts = np.array([w.start for w in words], dtype=np.float64)
    ends = np.maximum(np.array([w.end for w in words], dtype=np.float64), starts)
    active = active_frames(features.energy_db) if features.n_frames else np.zeros(0, dtype=bool)
    return x_duration(word_starts=starts, word_ends=ends, good=transcribed, active=active,
                      frame_seconds=features.frame_seconds)


def analyze_audio(
    audio: np.ndarray, *, sr: int = 16000, words: Sequence[Word] = (), settings: DetectorSettings | None = None,
    block_seconds: float = 0.5,
) -> Detections:  # fmt: skip
    """Analyse a whole signal (shape (n,), int16 or float in [-1, 1]) by feeding it in blocks."""
    analyzer = AudioAnalyzer(sr=sr, settings=settings)
    step = max(1, round(block_seconds * sr))
    for i in range(0, len(audio), step):
        analyzer.feed(audio[i : i + step])
    return analyzer.finish(words)


def clip_syllable_nuclei(audio: np.ndarray, sr: int) -> np.ndarray:
    """Syllable nuclei of a whole clip inside the speech the detectors find in it.

    ``audio`` is float mono at ``sr`` Hz, shape (n_samples,); returns the nuclei's frame indices,
    int (k,), as :func:`engine.detect.rate.syllable_nuclei` gives them.
    """
    analyzer = AudioAnalyzer(sr=sr)
    analyzer.feed(audio)
    detections = analyzer.finish()
    f = analyzer.features
    assert f is not None  # finish() keeps the features
    speech = np.zeros(f.n_frames, bool)
    for e in detections.of_type("speech"):
        speech[round(e.start / f.frame_seconds) : round(e.end / f.frame_seconds)] = True
    return syllable_nuclei(vowel_db=f.vowel_db, voicing=f.voicing, speech=speech, sr=f.sr, hop_length=f.hop_length)
