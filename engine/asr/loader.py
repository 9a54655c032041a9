"""Loading the recognition engine a :class:`~engine.asr.base.ModelSpec` names.

The engine modules import their recogniser libraries only when a model is loaded, so
importing this module stays light.
"""

from __future__ import annotations

from engine.asr.base import ModelSpec, Transcriber
from engine.asr.vosk_engine import VoskTranscriber
from engine.asr.whisper_engine import WhisperTranscriber
from engine.errors import ModelError


def load_transcriber(spec: ModelSpec) -> Transcriber:
    """Load the engine named by ``spec``; raises ModelError if it cannot."""
    if spec.engine == "vosk":
        return VoskTranscriber(spec)
    if spec.engine == "whisper":
        return WhisperTranscriber(spec)
    raise ModelError(f"{spec.name}: unknown recognition engine {spec.engine!r} (expected whisper or vosk)")
