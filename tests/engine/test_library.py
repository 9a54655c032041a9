"""What the GUI reads from the index (engine.library), without Qt: library rows, failed files, filter lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.library import LibraryReader
from engine.storage.store import EntityRow, EventRow, NewRecording, Store, WordRow


def _recording(path: str, text: str, **rows: Any) -> NewRecording:
    words = [WordRow(i * 0.5, i * 0.5 + 0.4, 0.9, t) for i, t in enumerate(text.split())]
    return NewRecording(path, Path(path).name, "h", 100, len(words) * 0.5, 16000, 1, "pcm_s16le", "wav",
                        "vosk", "m", "en", words, [(0, len(words) - 1)], **rows)


@pytest.fixture
def reader(tmp_path: Path) -> LibraryReader:
    return LibraryReader(Store(tmp_path / "lib.sqlite"))


def test_a_failed_file_is_listed_until_it_is_forgotten(reader: LibraryReader) -> None:
    store = reader.store
    store.save_recording(_recording("/r/good.wav", "council budget approved"))
    job = store.start_job("ingest", "/r/bad.wav")
    store.finish_job(job, "failed", "/r/bad.wav: not audio")
    rows = {r.name: r for r in reader.library_rows()}
    assert rows["good.wav"].status == "done" and rows["good.wav"].word_count == 3
    assert rows["bad.wav"].status == "failed" and rows["bad.wav"].message == "/r/bad.wav: not audio"
    reader.forget_failed("/r/bad.wav")
    assert [r.name for r in reader.library_rows()] == ["good.wav"]
    assert store.jobs() == []


def test_a_newer_failure_shows_over_an_older_transcript(reader: LibraryReader) -> None:
    store = reader.store
    store.save_recording(_recording("/r/a.wav", "old transcript here"))
    job = store.start_job("ingest", "/r/a.wav")
    store.finish_job(job, "failed", "/r/a.wav: corrupt audio data")
    (row,) = reader.library_rows()
    assert (row.status, row.word_count, row.recording_id is not None) == ("failed", 3, True)


def test_a_cancelled_transcribe_again_leaves_the_recording_indexed(reader: LibraryReader) -> None:
    store = reader.store
    store.save_recording(_recording("/r/a.wav", "old transcript here"))
    job = store.start_job("ingest", "/r/a.wav")
    store.finish_job(job, "cancelled", "cancelled")
    (row,) = reader.library_rows()
    assert (row.status, row.message, row.word_count, row.recording_id is not None) == ("done", "", 3, True)


def test_filter_lists_come_from_the_index(reader: LibraryReader) -> None:
    store = reader.store
    store.save_recording(_recording(
        "/r/a.wav", "the mayor of york met the mayor of leeds",
        events=[EventRow("music", 0.0, 1.0), EventRow("applause", 2.0, 3.0)],
        entities=[EntityRow("LOCATION", "york", 3, 3), EntityRow("LOCATION", "leeds", 8, 8),
                  EntityRow("LOCATION", "york", 3, 3)],
    ))
    assert reader.event_types() == ["applause", "music"]
    assert reader.entity_names() == ["york", "leeds"]
    assert reader.entity_names(limit=1) == ["york"]


def test_fast_speech_reads_in_syllables_per_second_and_words_per_minute(reader: LibraryReader) -> None:
    store = reader.store
    # 12 words 0.5 s apart: 0.0 .. 5.5 s; a fast stretch from 1.0 to 4.0 s holds the 6 words starting in it.
    rid = store.save_recording(_recording(
        "/r/fast.wav", " ".join(f"w{i}" for i in range(12)),
        events=[EventRow("fast", 1.0, 4.0, 1.4, 6.25), EventRow("music", 4.0, 6.0), EventRow("audience", 6.0, 9.0, 0.62, 0.4)],
    ))
    labels = {s.kind: s.label for s in reader.detail(rid).events}
    assert labels["fast"] == "fast speech 3 s: 6.2 syllables/s, 120 words/min"
    assert labels["music"] == "music 2 s"
    assert labels["audience"] == "audience 3 s: applause or laughter, score 0.62, 40 % laughter"
