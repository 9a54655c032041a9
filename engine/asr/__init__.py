"""Speech recognition behind one interface: Vosk, or the embedded PocketSphinx."""

from engine.asr.base import ModelSpec, Transcriber, Word, load_transcriber

__all__ = ["ModelSpec", "Transcriber", "Word", "load_transcriber"]
