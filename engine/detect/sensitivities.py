"""The detector sensitivities a user can change (GUI, CLI); defaults from :mod:`engine.detect.config`."""

from __future__ import annotations

from dataclasses import dataclass

from engine.detect import config
from engine.errors import ParameterError


@dataclass(frozen=True)
class DetectorSettings:
    """Sensitivities of the audio detectors.

    Attributes
    ----------
    vad_aggressiveness : webrtcvad mode 0-3; higher rejects more non-speech.
    speech_hangover_seconds : speech stays open this long after the last speech frame, s.
    music_sensitivity, applause_sensitivity, laughter_sensitivity : in (0, 1); higher finds more.
    rate_deviation : a stretch is fast (slow) when its rate is this fraction above (below)
        the recording's median, in (0, 1).
    min_word_confidence : words recognised with less confidence count as untranscribed
        sound for X-duration, in [0, 1].
    sound_model : ``"rules"``, ``"learned"`` (frame features) or ``"audioset"`` (frame features and AudioSet
        scores; the analyzer then runs the AudioSet tagger): what finds music, applause and laughter.
    speaker_turns : find who speaks when (``engine.speakers``) during ingest.
    speaker_count : the number of speakers of every recording, or None to estimate it per recording.
    """

    vad_aggressiveness: int = config.DEFAULT_VAD_AGGRESSIVENESS
    speech_hangover_seconds: float = config.DEFAULT_SPEECH_HANGOVER_SECONDS
    music_sensitivity: float = config.DEFAULT_SENSITIVITY
    applause_sensitivity: float = config.DEFAULT_SENSITIVITY
    laughter_sensitivity: float = config.DEFAULT_SENSITIVITY
    rate_deviation: float = config.DEFAULT_RATE_DEVIATION
    min_word_confidence: float = config.DEFAULT_MIN_WORD_CONFIDENCE
    sound_model: str = config.DEFAULT_SOUND_MODEL
    speaker_turns: bool = True
    speaker_count: int | None = None

    def __post_init__(self) -> None:
        if self.vad_aggressiveness not in (0, 1, 2, 3):
            raise ParameterError(f"vad_aggressiveness must be 0, 1, 2 or 3, got {self.vad_aggressiveness!r}")
        if not 0.0 <= self.speech_hangover_seconds <= 5.0:
            raise ParameterError(f"speech_hangover_seconds must lie in [0, 5] s, got {self.speech_hangover_seconds}")
        for name in ("music_sensitivity", "applause_sensitivity", "laughter_sensitivity", "rate_deviation"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ParameterError(f"{name} must lie strictly between 0 and 1, got {value}")
        if not 0.0 <= self.min_word_confidence <= 1.0:
            raise ParameterError(f"min_word_confidence must lie in [0, 1], got {self.min_word_confidence}")
        if self.speaker_count is not None and self.speaker_count < 1:
            raise ParameterError(f"speaker_count must be at least 1, got {self.speaker_count}")
        if self.sound_model not in config.SOUND_MODELS:
            raise ParameterError(f"sound_model must be one of {', '.join(config.SOUND_MODELS)}, got {self.sound_model!r}")
