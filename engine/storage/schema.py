"""Named schema migrations, applied in order; each commits with its own record.

Never edit a migration that has shipped: add a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a store that opens an up-to-date index applies no migration and never imports sqlite-utils
    import sqlite_utils

Migration = tuple[str, Callable[["sqlite_utils.Database"], None]]


def _initial(db: sqlite_utils.Database) -> None:
    db.execute(
        """CREATE TABLE recordings (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            size_bytes INTEGER NOT NULL,
            duration REAL NOT NULL,          -- seconds
            sample_rate INTEGER NOT NULL,    -- native rate of the file, Hz
            channels INTEGER NOT NULL,
            codec TEXT NOT NULL,
            container TEXT NOT NULL,
            engine TEXT NOT NULL,            -- 'whisper', 'vosk' or 'pocketsphinx'
            model TEXT NOT NULL,
            language TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'done',
            word_count INTEGER NOT NULL DEFAULT 0,
            ingested_at REAL NOT NULL,       -- unix time
            ingest_seconds REAL NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE INDEX recordings_hash ON recordings (content_hash)")
    db.execute(
        """CREATE TABLE words (
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            conf REAL NOT NULL,
            text TEXT NOT NULL,
            x_duration REAL,                 -- untranscribed non-silence before the word, s
            PRIMARY KEY (recording_id, idx)
        ) WITHOUT ROWID"""
    )
    db.execute(
        """CREATE TABLE segments (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            first_word INTEGER NOT NULL,
            last_word INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            text TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX segments_recording ON segments (recording_id, idx)")
    db.table("segments").enable_fts(["text"], fts_version="FTS5", create_triggers=True, tokenize="unicode61")
    db.execute(
        """CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            type TEXT NOT NULL,              -- applause, laughter, music, speech, fast, slow, ...
            start REAL NOT NULL,
            end REAL NOT NULL,
            score REAL,
            value REAL
        )"""
    )
    db.execute("CREATE INDEX events_recording ON events (recording_id, type, start)")
    db.execute(
        """CREATE TABLE stories (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            first_word INTEGER NOT NULL,
            last_word INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            confidence REAL                  -- posterior of the boundary that opens it
        )"""
    )
    db.execute("CREATE INDEX stories_recording ON stories (recording_id, idx)")
    db.execute(
        """CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            type TEXT NOT NULL,              -- PERSON, LOCATION, ORGANIZATION, ...
            text TEXT NOT NULL,
            first_word INTEGER NOT NULL,
            last_word INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            score REAL
        )"""
    )
    db.execute("CREATE INDEX entities_recording ON entities (recording_id, first_word)")
    db.execute("CREATE INDEX entities_text ON entities (type, text)")
    db.execute(
        """CREATE TABLE passages (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            story_idx INTEGER,
            first_word INTEGER NOT NULL,
            last_word INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            char_start INTEGER NOT NULL,
            char_end INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX passages_recording ON passages (recording_id, first_word)")
    db.execute(
        """CREATE TABLE jobs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,              -- 'ingest', ...
            path TEXT NOT NULL,
            status TEXT NOT NULL,            -- running, done, failed, cancelled, interrupted, skipped
            message TEXT NOT NULL DEFAULT '',
            pid INTEGER,
            started_at REAL NOT NULL,
            finished_at REAL,
            recording_id INTEGER
        )"""
    )
    db.execute("CREATE INDEX jobs_status ON jobs (status)")


def _passage_stats(db: sqlite_utils.Database) -> None:
    """Statistics for passage search (engine/search), written by ``index_passages``.

    Blocks are half-passages of 50 stopped tokens inside one story ("doc"); a
    passage is two neighbouring blocks. Every row hangs off its recording with
    ON DELETE CASCADE; triggers keep the block full-text index and the
    library-wide term counts in step when rows go.
    """
    db.execute(
        """CREATE TABLE search_terms (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL UNIQUE,
            cf INTEGER NOT NULL DEFAULT 0,   -- occurrences in the library (stopped tokens)
            df INTEGER NOT NULL DEFAULT 0    -- passages that contain it
        )"""
    )
    db.execute(
        """CREATE TABLE search_recording_terms (
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            term_id INTEGER NOT NULL,
            cf INTEGER NOT NULL,
            df INTEGER NOT NULL,
            PRIMARY KEY (recording_id, term_id)
        ) WITHOUT ROWID"""
    )
    db.execute(
        """CREATE TRIGGER search_recording_terms_ad AFTER DELETE ON search_recording_terms BEGIN
            UPDATE search_terms SET cf = cf - OLD.cf, df = df - OLD.df WHERE id = OLD.term_id;
        END"""
    )
    db.execute(
        """CREATE TABLE search_recordings (
            recording_id INTEGER PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
            n_tokens INTEGER NOT NULL,       -- stopped tokens
            n_blocks INTEGER NOT NULL,
            n_passages INTEGER NOT NULL,
            passage_tokens INTEGER NOT NULL, -- sum of passage lengths (passages overlap)
            n_docs INTEGER NOT NULL,
            words_per_second REAL NOT NULL,  -- over the time words are spoken
            broadcast_date TEXT              -- YYYY-MM-DD from the name, else the ingest day
        )"""
    )
    db.execute(
        """CREATE TABLE search_docs (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            story_idx INTEGER,               -- NULL: words outside any story
            first_block INTEGER NOT NULL,
            n_blocks INTEGER NOT NULL,
            first_word INTEGER NOT NULL,
            last_word INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            char_start INTEGER NOT NULL,
            char_end INTEGER NOT NULL,       -- exclusive
            n_tokens INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX search_docs_recording ON search_docs (recording_id)")
    db.execute(
        """CREATE TABLE search_blocks (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            doc_id INTEGER NOT NULL,
            idx INTEGER NOT NULL,            -- block number inside its doc
            first_word INTEGER NOT NULL,
            last_word INTEGER NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            char_start INTEGER NOT NULL,
            char_end INTEGER NOT NULL,       -- exclusive
            n_tokens INTEGER NOT NULL,
            tokens BLOB NOT NULL,            -- int32 term ids in text order
            positions BLOB NOT NULL,         -- int32 word index of each token
            word_chars BLOB NOT NULL         -- int32 char offset of each word, then char_end + 1
        )"""
    )
    db.execute("CREATE INDEX search_blocks_doc ON search_blocks (doc_id)")
    db.execute("CREATE INDEX search_blocks_recording ON search_blocks (recording_id, first_word)")
    db.execute("CREATE VIRTUAL TABLE search_blocks_fts USING fts5(text, tokenize='unicode61', detail='column')")
    db.execute(
        """CREATE TRIGGER search_blocks_ad AFTER DELETE ON search_blocks BEGIN
            DELETE FROM search_blocks_fts WHERE rowid = OLD.id;
        END"""
    )


def _transcribed_flag(db: sqlite_utils.Database) -> None:
    # 1: a real word; 0: a word the recogniser "heard" in music, applause or noise (its time is
    # X-duration of the next real word); NULL: not judged (recorded before this column existed).
    db.execute("ALTER TABLE words ADD COLUMN transcribed INTEGER")


def _word_display(db: sqlite_utils.Database) -> None:
    # The cased, punctuated form as the recogniser wrote it ("Dashwood," for "dashwood"); NULL when
    # it is the same as ``text``. ``text`` stays the normalised token search and the index use.
    db.execute("ALTER TABLE words ADD COLUMN display TEXT")


def _drop_segments_fts(db: sqlite_utils.Database) -> None:
    # The full-text index of transcript segments was written on every save and read by no
    # command: search reads the passage blocks' index (``search_blocks_fts``). Its triggers go
    # first; sqlite-utils' ``disable_fts`` would commit halfway through this migration.
    triggers = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'segments'"
        " AND sql LIKE '%segments_fts%'"
    ).fetchall()
    for (name,) in triggers:
        db.execute(f"DROP TRIGGER IF EXISTS [{name}]")
    db.execute("DROP TABLE IF EXISTS segments_fts")


def _search_terms_version(db: sqlite_utils.Database) -> None:
    # The rules that turned a recording's words into search terms when its passages were indexed
    # (engine.search.config.TERMS_VERSION); 1: before numbers were searched alike. A recording
    # indexed under older rules is re-indexed by ``earshot reindex``.
    db.execute("ALTER TABLE search_recordings ADD COLUMN terms_version INTEGER NOT NULL DEFAULT 1")


def _story_kind(db: sqlite_utils.Database) -> None:
    # A caption file marks commercial blocks as well as stories; they are kept, shown as commercials,
    # and left out of the passage index, so an advertisement is never a search hit.
    db.execute("ALTER TABLE stories ADD COLUMN kind TEXT NOT NULL DEFAULT 'story'")  # story | commercial


def _speakers(db: sqlite_utils.Database) -> None:
    # Who speaks when. ``label`` numbers a recording's speakers from 1 in order of first appearance
    # (shown "S1"); ``name`` is what the user calls them ("Speaker 1" until renamed). A word's speaker
    # is stored with the word (NULL: no speaker, e.g. words in music, applause or laughter), so the
    # rule that chose it runs once, at ingest, and a read is a join.
    db.execute(
        """CREATE TABLE speakers (
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            label INTEGER NOT NULL,
            name TEXT NOT NULL,
            seconds REAL NOT NULL,           -- talk time, s
            centroid BLOB,                   -- float32 unit-length CAM++ embedding, 192 values
            PRIMARY KEY (recording_id, label)
        ) WITHOUT ROWID"""
    )
    db.execute(
        """CREATE TABLE turns (
            id INTEGER PRIMARY KEY,
            recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
            speaker INTEGER NOT NULL,        -- speakers.label
            start REAL NOT NULL,
            end REAL NOT NULL
        )"""
    )
    db.execute("CREATE INDEX turns_recording ON turns (recording_id, start)")
    db.execute("ALTER TABLE words ADD COLUMN speaker INTEGER")  # speakers.label, NULL: none
    # The speaker count the user fixed for this recording; NULL: estimated from the audio.
    db.execute("ALTER TABLE recordings ADD COLUMN speakers_given INTEGER")


MIGRATIONS: list[Migration] = [
    ("0001_initial", _initial),
    ("0002_passage_stats", _passage_stats),
    ("0003_transcribed_flag", _transcribed_flag),
    ("0004_word_display", _word_display),
    ("0005_drop_segments_fts", _drop_segments_fts),
    ("0006_search_terms_version", _search_terms_version),
    ("0007_story_kind", _story_kind),
    ("0008_speakers", _speakers),
]
