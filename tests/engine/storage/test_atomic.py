"""atomic() nests with savepoints; every SQLite error leaves the storage package as the project's own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.errors import IndexReadOnly, StorageError
from engine.storage.passages import PassageIndex
from engine.storage.store import NewRecording, Store, WordRow
from tests.fixtures.permissions import immutable


def _recording(path: str, text: str) -> NewRecording:
    words = [WordRow(i * 0.5, i * 0.5 + 0.4, 0.9, t) for i, t in enumerate(text.split())]
    return NewRecording(path, Path(path).name, "h", 100, len(words) * 0.5, 16000, 1, "pcm_s16le", "wav",
                        "vosk", "m", "en", words, [(0, len(words) - 1)])


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "lib.sqlite")


def test_an_inner_failure_rolls_back_the_inner_part_only(store: Store) -> None:
    with store.atomic():
        job = store.start_job("ingest", "/a.wav")
        with pytest.raises(RuntimeError), store.atomic():
            store.start_job("ingest", "/b.wav")
            raise RuntimeError("inner")
        store.finish_job(job, "done")
    assert [(j["path"], j["status"]) for j in store.jobs()] == [("/a.wav", "done")]


def test_an_outer_failure_rolls_back_a_finished_inner_part(store: Store) -> None:
    with pytest.raises(RuntimeError), store.atomic():
        with store.atomic():
            store.start_job("ingest", "/b.wav")
        raise RuntimeError("outer")
    assert store.jobs() == []


def test_savepoints_nest_three_deep(store: Store) -> None:
    with store.atomic(), store.atomic():
        store.start_job("ingest", "/a.wav")
        with pytest.raises(KeyError), store.atomic():
            store.start_job("ingest", "/c.wav")
            raise KeyError("c")
    assert [j["path"] for j in store.jobs()] == ["/a.wav"]


def test_save_recording_inside_a_transaction_commits_with_it(store: Store) -> None:
    with store.atomic():
        rec_id = store.save_recording(_recording("/a.wav", "flood warning for the coast"))
        store.start_job("ingest", "/a.wav")
    assert store.recording(rec_id)["name"] == "a.wav"
    assert len(store.jobs()) == 1


def test_a_failed_inner_write_is_a_storage_error_and_the_outer_part_stays(store: Store) -> None:
    with store.atomic():
        store.start_job("ingest", "/a.wav")
        with pytest.raises(StorageError, match=r"lib\.sqlite: cannot write the index"), store.atomic():
            store.conn.execute("INSERT INTO no_such_table VALUES (1)")
    assert len(store.jobs()) == 1


def test_a_failed_read_is_a_storage_error_naming_the_file(store: Store) -> None:
    store.conn.execute("DROP TABLE jobs")
    with pytest.raises(StorageError, match=r"lib\.sqlite: cannot read the index: no such table: jobs"):
        store.jobs()


def test_a_passage_index_read_is_converted_too(store: Store) -> None:
    store.conn.execute("DROP TABLE search_terms")
    with pytest.raises(StorageError, match=r"lib\.sqlite: cannot read the index: no such table: search_terms"):
        PassageIndex(store).terms_by_text(["flood"])
    with pytest.raises(StorageError):
        PassageIndex(store).collection_frequencies(np.array([1, 2]))


def test_a_write_to_a_file_made_read_only_after_opening_is_index_read_only(tmp_path: Path) -> None:
    db = tmp_path / "ro.sqlite"
    Store(db).close()
    with immutable(db):  # chattr +i as root, who writes to a file whatever its mode
        store = Store.for_reading(db)
        with pytest.raises(IndexReadOnly, match=r"ro\.sqlite"):
            store.start_job("ingest", "/a.wav")
        store.close()
