"""The SQLite library index."""

from engine.index.store import NewRecording, Store, WordRow

__all__ = ["NewRecording", "Store", "WordRow"]
