"""Real speech through the real ingest job: Whisper's pieces are one written word in the index and exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.asr.base import ModelSpec
from engine.export import export_transcript
from engine.ingest import IngestJob
from engine.jobs import JobState
from engine.storage.store import Store
from tests.fixtures.audio import espeak

pytestmark = pytest.mark.slow  # starts Whisper tiny.en


def test_a_spoken_abbreviation_is_stored_and_exported_whole(tmp_path: Path, whisper_model: ModelSpec) -> None:
    # tiny.en writes this as " The" " U" ".S." " government" ... " 26" "-year" "-old" (checked by hand)
    wav = espeak("The U.S. government paid a 26-year-old man from Ohio.", tmp_path / "us.wav", speed=150)
    db = tmp_path / "lib.sqlite"
    outcomes = IngestJob([wav], db_path=db, spec=whisper_model).run()
    assert all(o.state is JobState.DONE for o in outcomes), [o.message for o in outcomes]
    with Store(db) as store:
        rec = store.recording("us.wav")
        words, segments = store.words(rec["id"]), store.segments(rec["id"])
    shown = [w["display"] or w["text"] for w in words]
    assert "U.S." in shown and "26-year-old" in shown, shown
    us = words[shown.index("U.S.")]
    assert us["text"] == "u.s" and us["start"] < us["end"]
    assert not any(s.startswith((".", "-")) for s in shown), shown  # no piece stored on its own
    txt = export_transcript("txt", rec, words, segments)
    srt = export_transcript("srt", rec, words, segments)
    assert "The U.S. government" in txt and "26-year-old" in txt
    assert "The U.S. government" in srt and "U .S." not in srt
