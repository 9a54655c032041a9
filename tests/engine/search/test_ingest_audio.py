"""Real speech through the real ingest job, then passage statistics and a search."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.asr.base import ModelSpec
from engine.ingest import IngestJob
from engine.jobs import JobState
from engine.search import index_passages, search, transcript_text
from engine.storage.store import Store
from tests.fixtures.audio import espeak

pytestmark = pytest.mark.slow


def test_espeak_recordings_are_found_by_search(tmp_path: Path, whisper_model: ModelSpec) -> None:
    council = espeak("The council approved the budget for the new hospital on Monday. "
                     "The council will meet again next month.", tmp_path / "council.wav")
    rain = espeak("Heavy rain flooded several streets in the harbour district.", tmp_path / "rain.wav", voice="en-gb")
    db = tmp_path / "lib.sqlite"
    outcomes = IngestJob([council, rain], db_path=db, spec=whisper_model).run()
    assert all(o.state is JobState.DONE for o in outcomes), [o.message for o in outcomes]
    with Store(db) as store:
        with store.atomic():  # as ingest will call it: right after the transcript is saved
            for o in outcomes:
                index_passages(store, o.recording_id)
        rec = store.recording("council.wav")
        recognised = transcript_text(store, rec["id"]).lower().split()
        word = next(w for w in ("council", "budget", "hospital", "monday") if w in recognised)
        hits = search(store, word, limit=5)
        assert hits and hits[0].name == "council.wav"
        assert 0 <= hits[0].start < hits[0].end <= rec["duration"] + 0.5
        assert f"[{word}]" in hits[0].snippet.lower()
