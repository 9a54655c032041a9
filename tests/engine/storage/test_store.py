"""The index file: migrations, WAL, atomic replace, FTS kept in sync, crash marks."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from engine.errors import NotFoundError, StorageError
from engine.storage.schema import MIGRATIONS
from engine.storage.store import NewRecording, Store, WordRow


def _recording(path: str, text: str, *, h: str = "h1") -> NewRecording:
    words = [WordRow(i * 0.5, i * 0.5 + 0.4, 0.9, t) for i, t in enumerate(text.split())]
    half = len(words) // 2
    return NewRecording(path, Path(path).name, h, 100, len(words) * 0.5, 16000, 1, "pcm_s16le", "wav",
                        "vosk", "m", "en", words, [(0, half - 1), (half, len(words) - 1)])


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "lib.sqlite")


def test_new_index_is_migrated_and_in_wal_mode(store: Store) -> None:
    assert store.schema_version() == len(MIGRATIONS)
    assert store.journal_mode() == "wal"
    names = [r[0] for r in store.conn.execute("SELECT name FROM migrations ORDER BY name")]
    assert names == [m[0] for m in MIGRATIONS]


def test_reopening_applies_no_migration_twice(tmp_path: Path) -> None:
    Store(tmp_path / "a.sqlite").close()
    s = Store(tmp_path / "a.sqlite")
    assert s.schema_version() == len(MIGRATIONS)


def test_an_up_to_date_index_opens_while_another_connection_holds_the_write_lock(tmp_path: Path) -> None:
    """An index with every migration is only read when opened: a search does not wait for an ingest's write."""
    db = tmp_path / "lib.sqlite"
    Store(db).close()
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with Store.for_reading(db) as store:
            assert store.schema_version() == len(MIGRATIONS)
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_save_and_read_back(store: Store) -> None:
    rid = store.save_recording(_recording("/r/a.wav", "the mayor opened the new bridge over the river today"))
    rec = store.recording(rid)
    assert rec["word_count"] == 10 and rec["status"] == "done"
    words = store.words(rid)
    assert [w["text"] for w in words][:3] == ["the", "mayor", "opened"]
    assert [s["text"] for s in store.segments(rid)] == ["the mayor opened the new", "bridge over the river today"]
    assert store.recording("a.wav")["id"] == rid
    assert store.recording("/r/a.wav")["id"] == rid


def test_an_index_with_the_segment_fts_loses_it_and_keeps_its_segments(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    conn = sqlite3.connect(db, isolation_level=None)
    for _, apply in MIGRATIONS[:4]:  # an index as it was before 0005_drop_segments_fts
        apply(sqlite_utils.Database(conn))
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    conn.executemany("INSERT INTO migrations VALUES (?, 0)", [(m[0],) for m in MIGRATIONS[:4]])
    conn.close()
    store = Store(db)
    rid = store.save_recording(_recording("/r/a.wav", "the mayor opened the new bridge"))
    names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert not {n for n in names if n.startswith("segments_fts")}
    assert not {n for n in names if n.startswith("segments_a")}  # its insert/update/delete triggers
    assert [s["text"] for s in store.segments(rid)] == ["the mayor opened", "the new bridge"]
    store.remove_recording(rid)
    assert store.counts()["segments"] == 0


def test_saving_the_same_path_replaces_everything(store: Store) -> None:
    store.save_recording(_recording("/r/a.wav", "old words about the weather"))
    rid = store.save_recording(_recording("/r/a.wav", "new words about the election", h="h2"))
    assert store.counts()["recordings"] == 1
    assert store.recording(rid)["content_hash"] == "h2"
    assert [s["text"] for s in store.segments(rid)] == ["new words", "about the election"]
    assert store.counts()["segments"] == 2


def test_a_failed_write_leaves_the_old_transcript(store: Store) -> None:
    store.save_recording(_recording("/r/a.wav", "old words about the weather"))
    bad = _recording("/r/a.wav", "new words here", h="h2")
    bad = NewRecording(**{**bad.__dict__, "segments": [(0, 99)]})  # segment past the last word
    with pytest.raises(IndexError):
        store.save_recording(bad)
    assert store.recording("/r/a.wav")["content_hash"] == "h1"
    assert " ".join(s["text"] for s in store.segments(store.recording("/r/a.wav")["id"])) == "old words about the weather"
    assert store.counts()["words"] == 5


def test_remove_cascades(store: Store) -> None:
    rid = store.save_recording(_recording("/r/a.wav", "one two three four"))
    store.conn.execute("INSERT INTO events (recording_id, type, start, end) VALUES (?, 'applause', 1, 2)", [rid])
    store.remove_recording(rid)
    assert store.counts() == dict.fromkeys(store.counts(), 0)


@pytest.mark.parametrize(
    ("ref", "message"),
    [("99", "99: no such recording in the index"), ("nothing.wav", "nothing.wav: no such recording"),
     ("²", "²: no such recording"), ("9" * 20, "9{20}: no such recording"), ("9" * 5000, "9{5000}: no such")],
)
def test_unknown_recording(store: Store, ref: str, message: str) -> None:
    with pytest.raises(NotFoundError, match=message):
        store.recording(ref)


def test_ambiguous_name_prefix(store: Store) -> None:
    store.save_recording(_recording("/r/news1.wav", "a b c d"))
    store.save_recording(_recording("/r/news2.wav", "a b c d", h="h2"))
    with pytest.raises(NotFoundError, match="matches several recordings"):
        store.recording("news")


def test_jobs_of_a_dead_process_are_marked_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "lib.sqlite"
    code = (
        "import os, sys; sys.path.insert(0, %r);"
        "from engine.storage.store import Store; s = Store(%r); s.start_job('ingest', '/r/long.wav'); os._exit(0)"
    ) % (str(Path(__file__).resolve().parents[3]), str(db))
    subprocess.run([sys.executable, "-c", code], check=True)
    store = Store(db)
    own = store.start_job("ingest", "/r/mine.wav")  # this process is alive: left alone
    stale = store.mark_interrupted_jobs()
    assert [j["path"] for j in stale] == ["/r/long.wav"]
    statuses = {j["path"]: j["status"] for j in store.jobs()}
    assert statuses == {"/r/long.wav": "interrupted", "/r/mine.wav": "running"}
    assert own > 0


def test_a_reader_sees_committed_data_while_a_writer_is_open(tmp_path: Path) -> None:
    writer = Store(tmp_path / "lib.sqlite")
    writer.save_recording(_recording("/r/a.wav", "alpha beta gamma delta"))
    reader = Store(tmp_path / "lib.sqlite")
    with writer.atomic():
        writer.conn.execute("DELETE FROM recordings")
        assert reader.counts()["recordings"] == 1  # WAL: the reader is not blocked
    assert reader.counts()["recordings"] == 0


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"this is not a database file at all" * 100, "file is not a database")],
    ids=["not-sqlite"],
)
def test_a_file_that_is_not_an_index(tmp_path: Path, content: bytes, reason: str) -> None:
    bad = tmp_path / "notes.sqlite"
    bad.write_bytes(content)
    with pytest.raises(StorageError, match=f"^{bad}: cannot open the index: {reason}"):
        Store(bad)


def test_index_in_an_unwritable_place(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError, match="cannot open the index"):
        Store(blocker / "sub" / "lib.sqlite")


def test_events_stories_entities_and_x_duration_round_trip(store: Store) -> None:
    from engine.storage.store import EntityRow, EventRow, StoryRow

    base = _recording("/r/a.wav", "president obama spoke in chicago then the weather turned cold")
    rec = NewRecording(
        **{**base.__dict__,
           "x_duration": [0.0] * 5 + [2.5] + [0.0] * 4,
           "events": [EventRow("music", 2.4, 2.9, 0.8), EventRow("applause", 1.0, 2.0, 0.9, 3.0)],
           "stories": [StoryRow(0, 4, None), StoryRow(5, 9, 0.93)],
           "entities": [EntityRow("PERSON", "obama", 1, 1, 0.9), EntityRow("LOCATION", "chicago", 4, 4)]},
    )
    rid = store.save_recording(rec)
    assert [e["type"] for e in store.events(rid)] == ["applause", "music"]
    assert store.events(rid, types=["music"])[0]["start"] == 2.4
    assert [(s["first_word"], s["start"], s["end"]) for s in store.stories(rid)] == [(0, 0.0, 2.4), (5, 2.5, 4.9)]
    assert store.stories(rid)[1]["confidence"] == 0.93
    assert [(e["type"], e["start"]) for e in store.entities(rid)] == [("PERSON", 0.5), ("LOCATION", 2.0)]
    assert [w["x_duration"] for w in store.words(rid)][5] == 2.5
    assert {w["transcribed"] for w in store.words(rid)} == {None}  # not judged
    with store.atomic():
        store.replace_stories(rid, [StoryRow(0, 9, 1.0)])
    assert len(store.stories(rid)) == 1


def test_transcribed_flags_round_trip_and_must_match_the_words(store: Store) -> None:
    base = _recording("/r/a.wav", "one two three")
    with pytest.raises(StorageError, match=r"/r/a.wav: 2 transcribed flags for 3 words"):
        store.save_recording(NewRecording(**{**base.__dict__, "transcribed": [True, False]}))
    assert store.counts()["recordings"] == 0
    rid = store.save_recording(NewRecording(**{**base.__dict__, "transcribed": [True, False, True]}))
    assert [w["transcribed"] for w in store.words(rid)] == [1, 0, 1]


def test_an_index_from_before_the_transcribed_flag_is_migrated(tmp_path: Path) -> None:
    # An index as the previous release left it: no transcribed column, no record of migration 0003.
    old = Store(tmp_path / "old.sqlite")
    rid = old.save_recording(NewRecording(**{**_recording("/r/a.wav", "one two").__dict__, "transcribed": [1, 1]}))
    old.conn.execute("ALTER TABLE words DROP COLUMN transcribed")
    old.conn.execute("DELETE FROM migrations WHERE name = '0003_transcribed_flag'")
    old.close()
    new = Store(tmp_path / "old.sqlite")
    assert new.schema_version() == len(MIGRATIONS)
    assert [w["transcribed"] for w in new.words(rid)] == [None, None]


def test_x_duration_must_match_the_words(store: Store) -> None:
    base = _recording("/r/a.wav", "one two three")
    with pytest.raises(StorageError, match=r"/r/a.wav: 2 X-duration values for 3 words"):
        store.save_recording(NewRecording(**{**base.__dict__, "x_duration": [0.0, 0.0]}))
    assert store.counts()["recordings"] == 0


def test_work_done_in_then_commits_or_fails_with_the_transcript(store: Store) -> None:
    def index_more(rec_id: int) -> None:
        store.conn.execute("INSERT INTO events (recording_id, type, start, end) VALUES (?, 'marker', 0, 1)", [rec_id])

    rid = store.save_recording(_recording("/r/a.wav", "one two three four"), then=index_more)
    assert [e["type"] for e in store.events(rid)] == ["marker"]

    def fail(rec_id: int) -> None:
        raise StorageError("passage index full")

    with pytest.raises(StorageError, match="passage index full"):
        store.save_recording(_recording("/r/b.wav", "five six seven eight", h="h2"), then=fail)
    assert [r["name"] for r in store.recordings()] == ["a.wav"]


def test_display_forms_round_trip_and_exports_show_them(store: Store) -> None:
    from engine.export import export_transcript

    shown = ["The", "mayor,", "Ann", "Lee,", "opened", "it."]
    words = [WordRow(i * 0.5, i * 0.5 + 0.4, 0.9, t.lower().strip(",."), t) for i, t in enumerate(shown)]
    base = _recording("/r/a.wav", "x x x x x x")
    rid = store.save_recording(NewRecording(**{**base.__dict__, "words": words}))
    rows = store.words(rid)
    assert [w["text"] for w in rows] == ["the", "mayor", "ann", "lee", "opened", "it"]
    assert [w["display"] for w in rows] == ["The", "mayor,", "Ann", "Lee,", None, "it."]  # NULL where the same
    assert [s["text"] for s in store.segments(rid)] == ["the mayor ann", "lee opened it"]
    segments = store.segments(rid)
    assert export_transcript("txt", store.recording(rid), rows, segments) == "The mayor, Ann Lee, opened it.\n"
    assert '"display": "Lee,"' in export_transcript("json", store.recording(rid), rows, segments)


def test_an_index_from_before_the_display_column_is_migrated(tmp_path: Path) -> None:
    old = Store(tmp_path / "old.sqlite")
    rid = old.save_recording(_recording("/r/a.wav", "one two"))
    old.conn.execute("ALTER TABLE words DROP COLUMN display")
    old.conn.execute("DELETE FROM migrations WHERE name = '0004_word_display'")
    old.close()
    new = Store(tmp_path / "old.sqlite")
    assert new.schema_version() == len(MIGRATIONS)
    assert [(w["text"], w["display"]) for w in new.words(rid)] == [("one", None), ("two", None)]


def test_a_sound_index_is_checked_once_until_it_changes(tmp_path, monkeypatch) -> None:
    """quick_check reads the whole file: it runs again only when the file (or its WAL) has changed."""
    from engine.errors import IndexDamaged
    from engine.storage import store as store_module

    monkeypatch.setenv("EARSHOT_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[str] = []
    real = store_module.Store._quick_check

    def counting(self):  # type: ignore[no-untyped-def]
        calls.append(self.path)
        return real(self)

    monkeypatch.setattr(store_module.Store, "_quick_check", counting)
    db = tmp_path / "lib.sqlite"
    Store(db).close()  # created: checked, then changed by its migrations
    Store(db).close()  # checked once more, now remembered
    checked = len(calls)
    Store(db).close()
    Store.for_reading(db).close()
    with Store(db):  # another program has the index open: its WAL exists, empty
        Store.for_reading(db).close()
    assert len(calls) == checked, "an unchanged index was checked again"
    data = bytearray(db.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # garbage after the header, in the schema page
    db.write_bytes(bytes(data))
    with pytest.raises(IndexDamaged):
        Store(db)
    assert len(calls) == checked + 1
