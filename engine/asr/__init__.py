"""Speech recognition behind one interface: Whisper (the embedded default) or Vosk."""

from engine.asr.base import ModelSpec, Transcriber, Word
from engine.asr.loader import load_transcriber

__all__ = ["ModelSpec", "Transcriber", "Word", "load_transcriber"]
