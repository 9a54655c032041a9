"""An index written when PocketSphinx was a product engine still opens, shows, searches and re-segments."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.asr.base import Word
from engine.evaluate.collection import SourceRecording, Story, index_recordings
from engine.ingest.analyze import segment_stories
from engine.search import search
from engine.storage.store import Store

SENTENCE = ("heavy rain closed the harbour bridge in riverton last night and the mayor thanked the volunteers "
            "farmers in the eastern valleys expect a record apple harvest after a mild winter and a wet summer")
TEXT = SENTENCE.split(" ")


def test_a_pocketsphinx_recording_opens_searches_and_resegments(tmp_path: Path) -> None:
    starts = np.arange(len(TEXT)) * 0.4
    old = SourceRecording("old-bulletin", TEXT, starts, starts + 0.3, [Story(0, len(TEXT) - 1, True)])
    db = tmp_path / "library.sqlite"
    with Store(db) as store:
        (rid,) = index_recordings(store, [old], engine="pocketsphinx").values()
    with Store(db) as store:
        assert store.recording(rid)["engine"] == "pocketsphinx"
        rows = store.words(rid)
        hits = search(store, "harbour bridge", limit=5)
    assert [r["text"] for r in rows] == TEXT and all(r["display"] is None for r in rows)
    assert hits and hits[0].name == "old-bulletin" and "harbour" in hits[0].snippet.lower()
    words = [Word(r["start"], r["end"], r["conf"], r["text"]) for r in rows]
    stories = segment_stories(words, None, engine="pocketsphinx")  # the acoustic-only model, as at ingest
    assert stories and stories[0].first_word == 0 and stories[-1].last_word == len(TEXT) - 1
