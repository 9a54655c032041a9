"""What the GUI tests share: the test broadcast's texts, a library built from its truth, common steps."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt

from app.main_window import MainWindow
from engine.search import index_passages
from engine.storage.store import EntityRow, EventRow, NewRecording, Store, StoryRow, WordRow
from tools.broadcast import BroadcastTruth

STORIES = [
    "Heavy rain closed the Harbour Bridge in Riverton last night. Mayor Linda Okafor thanked the Red Cross volunteers.",
    "Norland Airways shares fell after chief executive Peter Lindqvist warned that fuel costs would cut profits.",
]
#: Entities of STORIES: (type, words as they appear, lower-cased).
ENTITIES = [
    ("LOCATION", "harbour bridge"), ("LOCATION", "riverton"), ("PERSON", "linda okafor"),
    ("ORGANIZATION", "red cross"), ("ORGANIZATION", "norland airways"), ("PERSON", "peter lindqvist"),
]


@dataclass(frozen=True)
class Broadcast:
    wav: Path
    truth: BroadcastTruth


def store_truth(store: Store, broadcast: Broadcast, *, name: str | None = None, language: str = "en") -> int:
    """Index the broadcast's true words as its transcript, with stories, events and entities; returns its id.

    Written the way ingest writes (one ``save_recording`` with the passage index), so search works on it.
    """
    truth = broadcast.truth
    words = [WordRow(w.start, max(w.end, w.start + 0.05), 0.95 if k % 4 else 0.45, w.norm)
             for k, w in enumerate(truth.words)]
    norms = [w.norm for w in truth.words]
    entities = []
    for kind, phrase in ENTITIES:
        parts = phrase.split()
        for i in range(len(norms) - len(parts) + 1):
            if norms[i : i + len(parts)] == parts:
                entities.append(EntityRow(kind, phrase.title(), i, i + len(parts) - 1, 1.0))
    return store.save_recording(NewRecording(
        str(broadcast.wav), name or broadcast.wav.name, "truth-" + (name or "0"), broadcast.wav.stat().st_size,
        truth.duration, truth.sample_rate, 1, "pcm_s16le", "wav", "truth", "ground-truth", language, words,
        segments=[(a, min(a + 7, len(words) - 1)) for a in range(0, len(words), 8)],
        events=[EventRow(e.type, e.start, e.end, 1.0) for e in truth.events if e.type in ("music", "applause", "laughter")],
        stories=[StoryRow(s.first_word, s.last_word, 0.9) for s in truth.stories],
        entities=entities,
    ), then=lambda rec_id: index_passages(store, rec_id))


def open_recording(qtbot, window: MainWindow, rec_id: int = 1) -> None:  # type: ignore[no-untyped-def]
    """Double-click the recording's row in the library, as a user would."""
    panel = window.library_panel
    row = next(r for r in range(window.library.rowCount()) if window.library.row_at(r).recording_id == rec_id)
    index = panel.proxy.mapFromSource(window.library.index(row, 0))
    rect = panel.table.visualRect(index)
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.view.detail is not None and window.view.recording_id == rec_id)
    qtbot.waitUntil(window.view.transcript.text.is_filled)


def wait_loaded(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Until QtMultimedia has loaded the current recording (seeks are then real, not pending)."""
    qtbot.waitUntil(lambda: window.player.loaded, timeout=10000)

