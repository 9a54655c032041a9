"""Named schema migrations, applied in order; each commits with its own record.

Never edit a migration that has shipped: add a new one.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

Migration = tuple[str, Callable[[sqlite_utils.Database], None]]


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
            engine TEXT NOT NULL,            -- 'vosk' or 'pocketsphinx'
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
    db["segments"].enable_fts(["text"], fts_version="FTS5", create_triggers=True, tokenize="unicode61")
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


MIGRATIONS: list[Migration] = [
    ("0001_initial", _initial),
]
