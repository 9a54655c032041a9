"""The SQLite library index."""

from engine.storage.store import EntityRow, EventRow, NewRecording, Store, StoryRow, WordRow

__all__ = ["EntityRow", "EventRow", "NewRecording", "Store", "StoryRow", "WordRow"]
