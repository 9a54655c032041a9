"""Audio hot-spot detectors: speech, music, applause, laughter, speech rate and X-duration.

Music, applause and laughter come from a small learned classifier (:mod:`engine.detect.classifier`).

The ingest worker feeds each recording's audio blocks to an :class:`AudioAnalyzer` beside
recognition and calls :meth:`AudioAnalyzer.finish` with the recognised words; the result
(:class:`Detections`) holds timeline events and one X-duration per word. The detectors are
pure functions over compact per-frame features and can be called on their own.
"""

from engine.detect.analyzer import AudioAnalyzer, analyze, analyze_audio
from engine.detect.classifier import SoundClassifier, detect_sounds
from engine.detect.events import EVENT_TYPES, Detections, Event
from engine.detect.features import FeatureExtractor, FrameFeatures, frame_features
from engine.detect.rate import detect_rate_changes, rate_stretches, syllable_nuclei
from engine.detect.sensitivities import DetectorSettings
from engine.detect.sounds import detect_applause, detect_laughter, detect_music
from engine.detect.speech import detect_speech
from engine.detect.xduration import good_words, x_duration

__all__ = [
    "EVENT_TYPES",
    "AudioAnalyzer",
    "Detections",
    "DetectorSettings",
    "Event",
    "FeatureExtractor",
    "FrameFeatures",
    "SoundClassifier",
    "analyze",
    "analyze_audio",
    "detect_applause",
    "detect_laughter",
    "detect_music",
    "detect_rate_changes",
    "detect_sounds",
    "detect_speech",
    "frame_features",
    "good_words",
    "rate_stretches",
    "syllable_nuclei",
    "x_duration",
]
