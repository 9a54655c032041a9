"""Audio hot-spot detectors: speech, music, applause, laughter, speech rate and X-duration.

Music, applause and laughter come from a small learned classifier (:mod:`engine.detect.classifier`).

The ingest worker feeds each recording's audio blocks to an :class:`AudioAnalyzer` beside
recognition and calls :meth:`AudioAnalyzer.finish` with the recognised words; the result
(:class:`Detections`) holds timeline events and one X-duration per word. The detectors are
pure functions over compact per-frame features and can be called on their own.

The public names load on first use: the ``ingest`` command builds a :class:`DetectorSettings` for
its workers before it imports the detectors themselves (SciPy, numba: a second of CPU).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.detect.analyzer import AudioAnalyzer, analyze, analyze_audio
    from engine.detect.classifier import SoundClassifier, detect_sounds
    from engine.detect.events import EVENT_TYPES, Detections, Event
    from engine.detect.features import FeatureExtractor, FrameFeatures, frame_features
    from engine.detect.rate import detect_rate_changes, rate_stretches, syllable_nuclei
    from engine.detect.sensitivities import DetectorSettings
    from engine.detect.sounds import detect_applause, detect_laughter, detect_music
    from engine.detect.speech import detect_speech
    from engine.detect.xduration import good_words, x_duration

#: Where each public name lives; each is loaded on first use (see above).
_HOMES: dict[str, str] = {
    **dict.fromkeys(("AudioAnalyzer", "analyze", "analyze_audio"), "engine.detect.analyzer"),
    **dict.fromkeys(("SoundClassifier", "detect_sounds"), "engine.detect.classifier"),
    **dict.fromkeys(("EVENT_TYPES", "Detections", "Event"), "engine.detect.events"),
    **dict.fromkeys(("FeatureExtractor", "FrameFeatures", "frame_features"), "engine.detect.features"),
    **dict.fromkeys(("detect_rate_changes", "rate_stretches", "syllable_nuclei"), "engine.detect.rate"),
    "DetectorSettings": "engine.detect.sensitivities",
    **dict.fromkeys(("detect_applause", "detect_laughter", "detect_music"), "engine.detect.sounds"),
    "detect_speech": "engine.detect.speech",
    **dict.fromkeys(("good_words", "x_duration"), "engine.detect.xduration"),
}

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


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
