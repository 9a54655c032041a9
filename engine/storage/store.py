"""The library index: one SQLite file, one class that owns it.

All SQL is parameterised. Writes that belong together go through
:meth:`Store.atomic`. Schema changes are named migrations recorded in
``migrations``; each commits together with its own record. WAL mode lets the
GUI read while an ingest writes. One :class:`Store` per thread.
"""

from __future__ import annotations

import array
import contextlib
import functools
import inspect
import json
import math
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import (
    IndexDamaged,
    IndexFull,
    IndexReadOnly,
    IndexTooNew,
    NotAnIndex,
    NotFoundError,
    StorageError,
)
from engine.numtext import whole_number
from engine.paths import cache_dir
from engine.storage.schema import MIGRATIONS

if TYPE_CHECKING:
    import sqlite_utils

SCHEMA_VERSION = len(MIGRATIONS)
#: ``PRAGMA application_id`` of an Earshot index: "Ears" in ASCII, so ``file`` and other tools can tell it apart.
APPLICATION_ID = 0x45617273


@dataclass(frozen=True)
class WordRow:
    """One recognised word, times in seconds from the start of the recording.

    ``text`` is the normalised token; ``display`` the cased, punctuated form
    (empty: the same as ``text``).
    """

    start: float
    end: float
    conf: float
    text: str
    display: str = ""


@dataclass(frozen=True)
class EventRow:
    """A hot spot found in the audio: type, start and end in seconds, score, value."""

    type: str
    start: float
    end: float
    score: float | None = None
    value: float | None = None


@dataclass(frozen=True)
class StoryRow:
    """A story: its first and last word (inclusive), the boundary's posterior, and its kind:
    ``"story"``, or ``"commercial"`` for a block of advertisements a caption file marks (kept out of search)."""

    first_word: int
    last_word: int
    confidence: float | None = None
    kind: str = "story"


@dataclass(frozen=True)
class EntityRow:
    """A named-entity mention over words ``first_word..last_word`` (inclusive)."""

    type: str
    text: str
    first_word: int
    last_word: int
    score: float | None = None


@dataclass(frozen=True)
class SpeakerRow:
    """One speaker of a recording: ``label`` (1, 2, ... by first appearance), talk time in seconds,
    the centroid embedding (float32 bytes, or None) and a name (empty: "Speaker <label>")."""

    label: int
    seconds: float
    centroid: bytes | None = None
    name: str = ""


@dataclass(frozen=True)
class TurnRow:
    """Speaker ``speaker`` (a :class:`SpeakerRow` label) talks from ``start`` to ``end`` seconds."""

    speaker: int
    start: float
    end: float


@dataclass(frozen=True)
class SpeakerTurns:
    """A recording's speakers, their turns and each word's speaker label (None: no speaker; shape (words,)),
    and the speaker count the user fixed (None: estimated)."""

    speakers: Sequence[SpeakerRow] = ()
    turns: Sequence[TurnRow] = ()
    word_speakers: Sequence[int | None] | None = None
    given: int | None = None


#: The longest speaker name a rename accepts, in characters (a name shows in lane tooltips and paragraph heads).
SPEAKER_NAME_MAX = 60


def default_speaker_name(label: int) -> str:
    """The name a speaker has until renamed: "Speaker 2" for label 2."""
    return f"Speaker {label}"


@dataclass(frozen=True)
class NewRecording:
    """Everything one finished ingest writes about a recording."""

    path: str
    name: str
    content_hash: str
    size_bytes: int
    duration: float
    sample_rate: int
    channels: int
    codec: str
    container: str
    engine: str
    model: str
    language: str
    words: Sequence[WordRow]
    #: Transcript segments as (first word index, last word index inclusive).
    segments: Sequence[tuple[int, int]]
    ingest_seconds: float = 0.0
    #: Untranscribed non-silent audio before each word, seconds; shape (len(words),).
    x_duration: Sequence[float] | None = None
    #: Per word: a real word (True) or one "heard" in music, applause or noise (False); shape (len(words),).
    transcribed: Sequence[bool] | None = None
    events: Sequence[EventRow] = ()
    stories: Sequence[StoryRow] = ()
    entities: Sequence[EntityRow] = ()
    speakers: SpeakerTurns = SpeakerTurns()


#: Where the stamps of index files last found sound are kept (in the cache folder).
CHECKED_FILE = "index-checks.json"


def _file_stamp(path: str) -> tuple[str, str] | None:
    """(resolved path, "size:mtime_ns" of the file and of its WAL), or None for memory or a missing file.

    An empty WAL holds no pages and is left out: a program that merely has the index open (the app, another
    search) creates one, and the index is then its main file alone, as before.
    """
    if path == ":memory:":
        return None
    try:
        parts = []
        for name in (path, path + "-wal"):
            with contextlib.suppress(FileNotFoundError):
                st = os.stat(name)
                if st.st_size or name == path:
                    parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        return (str(Path(path).resolve()), "/".join(parts)) if parts else None
    except OSError:
        return None


def _checked_stamps() -> dict[str, str]:
    try:
        data = json.loads((cache_dir() / CHECKED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember_checked(path: str, stamp: str) -> None:
    """Best effort: a full disk or a read-only cache folder only means checking again next time."""
    with contextlib.suppress(OSError):
        stamps = {p: s for p, s in _checked_stamps().items() if os.path.exists(p)}  # forget deleted indexes
        stamps[path] = stamp
        target = cache_dir() / CHECKED_FILE
        part = target.with_name(f"{target.name}.{os.getpid()}.part")
        part.write_text(json.dumps(stamps), encoding="utf-8")
        os.replace(part, target)

_Class = TypeVar("_Class", bound=type)


def converts_sqlite_errors(cls: _Class) -> _Class:
    """Class decorator: an ``sqlite3.Error`` out of any public method becomes the project's storage error.

    The storage boundary converts once: writes inside :meth:`Store.atomic` are converted there
    ("cannot write the index"); everything else a public method raises is a failed read. The
    instance needs a ``path`` attribute naming the file.
    """
    for name, fn in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(fn) or name == "atomic":
            continue
        setattr(cls, name, _converting(fn))
    return cls


def _converting(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc, "cannot read the index") from None
    return method


@converts_sqlite_errors
class Store:
    """Owner of one index file.

    Parameters
    ----------
    path : the SQLite file; created with its folder if missing.
        ``":memory:"`` gives a private in-memory index (tests).
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._savepoints = 0  # depth of nested atomic() blocks
        try:
            if readonly:
                self._conn = _prepared(_connect_read_only(self.path))
                self._check_integrity()
                self._check_identity(writing=False)
                return
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                if Path(self.path).exists() and not os.access(self.path, os.W_OK):
                    raise IndexReadOnly(f"{self.path}: {READ_ONLY}")
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=True)
            conn.execute("PRAGMA busy_timeout = 30000")
            self._conn = _prepared(conn)
            self._check_integrity()
            self._check_identity(writing=True)  # before WAL mode or a migration changes the file
            if self.path != ":memory:" and self.journal_mode() != "wal":
                self.db.enable_wal()
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            self._stamp_identity()
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc, "cannot open the index") from None
        except OSError as exc:
            raise StorageError(f"{self.path}: cannot open the index: {exc.strerror or exc}") from None

    @classmethod
    def for_reading(cls, path: str | Path) -> Store:
        """Open for reading: read-write when possible, else read-only (full disk, read-only file or media)."""
        try:
            return cls(path)
        except (IndexReadOnly, IndexFull):
            return cls(path, readonly=True)

    def _check_integrity(self) -> None:
        """Refuse a damaged file before anything reads from or writes into it (``PRAGMA quick_check``).

        The check reads the whole file (about 0.8 s for a 60 MB index), so a file found sound is
        remembered by the size and modification time of it and its WAL; it is checked again only
        when either has changed since.
        """
        stamp = _file_stamp(self.path)
        if stamp is not None and _checked_stamps().get(stamp[0]) == stamp[1]:
            return
        problems = self._quick_check()
        if problems != ["ok"]:
            raise IndexDamaged(f"{self.path}: {DAMAGED}: {'; '.join(problems)}")
        if stamp is not None:
            _remember_checked(*stamp)

    def _check_identity(self, *, writing: bool) -> None:
        """Refuse another program's database, and writes to an index a newer Earshot wrote.

        An index carries ``APPLICATION_ID`` and its schema version as ``user_version``; one made
        before those were stamped is known by its ``migrations`` table. An empty file is a new index.
        """
        app_id = int(self.conn.execute("PRAGMA application_id").fetchone()[0])
        tables = {str(r[0]) for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        applied = self._applied_migrations() if "migrations" in tables else []
        # A lone migrations table: a first open stopped before its first migration committed.
        if app_id != APPLICATION_ID and (app_id != 0 or (tables - {"migrations"} and MIGRATIONS[0][0] not in applied)):
            raise NotAnIndex(f"{self.path}: {NOT_AN_INDEX}")
        version = max(int(self.conn.execute("PRAGMA user_version").fetchone()[0]), len(applied))
        if writing and (version > SCHEMA_VERSION or not set(applied) <= {name for name, _ in MIGRATIONS}):
            raise IndexTooNew(f"{self.path}: {TOO_NEW.format(version=version, known=SCHEMA_VERSION)}")

    def _has_table(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).fetchone() is not None

    def _applied_migrations(self) -> list[str]:
        return [str(r[0]) for r in self.conn.execute("SELECT name FROM migrations")]

    def _stamp_identity(self) -> None:
        if int(self.conn.execute("PRAGMA user_version").fetchone()[0]) == SCHEMA_VERSION:
            return
        with self.atomic():
            self.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _quick_check(self) -> list[str]:
        return [str(r[0]) for r in self.conn.execute("PRAGMA quick_check(3)").fetchall()]

    # -- plumbing -----------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        return self._conn

    @functools.cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection, for migrations and writes; made on first use, since
        importing sqlite-utils (and its plugins) costs a command-line search a tenth of a second of CPU."""
        import sqlite_utils

        return sqlite_utils.Database(self._conn)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows of a SELECT as dicts keyed by column name (reads need no sqlite-utils)."""
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def atomic(self) -> Iterator[sqlite_utils.Database]:
        """A write transaction: everything inside commits together or not at all.

        Nests: inside another ``atomic()`` it is a SAVEPOINT, so an inner failure rolls
        back the inner part only and the outer transaction goes on.
        """
        if self.conn.in_transaction:
            with self._savepoint():
                yield self.db
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc) from None
        try:
            yield self.db
            self.conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise storage_error(self.path, exc) from None
            raise

    @contextlib.contextmanager
    def _savepoint(self) -> Iterator[None]:
        self._savepoints += 1
        name = f"atomic_{self._savepoints}"
        try:
            self.conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute(f"ROLLBACK TO {name}")
                    self.conn.execute(f"RELEASE {name}")
                raise
            self.conn.execute(f"RELEASE {name}")
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc) from None
        finally:
            self._savepoints -= 1

    def _migrate(self) -> None:
        """Apply the migrations the file lacks, each under the write lock; an index that has them all is
        only read (a search opening it takes no lock and writes nothing)."""
        if self._has_table("migrations") and {name for name, _ in MIGRATIONS} <= set(self._applied_migrations()):
            return
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        for name, apply in MIGRATIONS:
            # Check inside the write lock: another process may be migrating the same file.
            with self.atomic() as db:
                if self.conn.execute("SELECT 1 FROM migrations WHERE name = ?", [name]).fetchone():
                    continue
                apply(db)
                db.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", [name, time.time()])

    def schema_version(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM migrations").fetchone()[0])

    def journal_mode(self) -> str:
        return str(self.conn.execute("PRAGMA journal_mode").fetchone()[0])

    # -- jobs ---------------------------------------------------------------

    def start_job(self, kind: str, path: str) -> int:
        """Record that a long task began; returns its id."""
        with self.atomic():
            cur = self.conn.execute(
                "INSERT INTO jobs (kind, path, status, started_at, pid) VALUES (?, ?, 'running', ?, ?)",
                [kind, db_text(path), time.time(), os.getpid()],
            )
        return int(cur.lastrowid or 0)

    def finish_job(self, job_id: int, status: str, message: str = "", recording_id: int | None = None) -> None:
        with self.atomic():
            self.conn.execute(
                "UPDATE jobs SET status = ?, message = ?, finished_at = ?, recording_id = ? WHERE id = ?",
                [status, db_text(message), time.time(), recording_id, job_id],
            )

    def mark_interrupted_jobs(self, pid_alive: Callable[[int], bool] | None = None) -> list[dict[str, Any]]:
        """Mark jobs left 'running' by a killed process as 'interrupted'; return them.

        Only jobs whose owning process is gone are touched: ``pid_alive(pid)``
        decides (default: a job is stale if its process no longer exists).
        """
        alive = pid_alive or _pid_alive
        rows = self._rows("SELECT * FROM jobs WHERE status = 'running'")
        stale = [r for r in rows if not alive(int(r.get("pid") or 0))]
        for r in stale:
            r["still_indexed"] = self.recording_by_path(str(r["path"])) is not None
        if not stale or self.readonly:
            return stale
        with self.atomic():
            for r in stale:
                self.conn.execute(
                    "UPDATE jobs SET status = 'interrupted', finished_at = ?, "
                    "message = 'the program stopped before this file finished' WHERE id = ?",
                    [time.time(), r["id"]],
                )
        return stale

    @staticmethod
    def interrupted_note(job: dict[str, Any]) -> str:
        """What became of a job :meth:`mark_interrupted_jobs` returned, in one sentence."""
        if job.get("still_indexed"):
            return f"an earlier ingest of {job['path']} was interrupted; its previous transcript is still indexed"
        return f"an earlier ingest of {job['path']} was interrupted; it was not indexed"

    def jobs(self, *, status: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        sql = "SELECT * FROM jobs"
        params: list[Any] = []
        if status:
            sql += " WHERE status = ?"
            params.append(status)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(limit)
        return self._rows(sql, params)

    def latest_ingest_jobs(self) -> list[dict[str, Any]]:
        """The newest ingest job of each path: path, status, message, ended (unix time it ended or began)."""
        return self._rows(
            "SELECT path, status, message, coalesce(finished_at, started_at) AS ended FROM jobs"
            " WHERE id IN (SELECT max(id) FROM jobs WHERE kind = 'ingest' GROUP BY path)"
        )

    def forget_ingest_jobs(self, path: str, statuses: Sequence[str]) -> None:
        """Delete a path's ingest job rows in the given states (e.g. failed ones the user dismissed)."""
        with self.atomic():
            self.conn.execute(
                "DELETE FROM jobs WHERE kind = 'ingest' AND path = ? AND status IN (SELECT value FROM json_each(?))",
                [db_text(path), json.dumps(list(statuses))],
            )

    # -- recordings ---------------------------------------------------------

    def recording_by_path(self, path: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM recordings WHERE path = ?", [db_text(path)])
        return dict(rows[0]) if rows else None

    def recording_by_hash(self, content_hash: str) -> dict[str, Any] | None:
        """The first recording indexed with this content, or None."""
        rows = self._rows("SELECT * FROM recordings WHERE content_hash = ? ORDER BY id LIMIT 1", [content_hash])
        return dict(rows[0]) if rows else None

    def move_recording(self, rec_id: int, path: str) -> None:
        """Point a recording at the file's new place (renamed or moved, same content)."""
        with self.atomic():
            self.conn.execute("UPDATE recordings SET path = ?, name = ? WHERE id = ?",
                              [db_text(path), db_text(Path(path).name), rec_id])

    def recording(self, ref: str | int) -> dict[str, Any]:
        """A recording by id, by path, or by a unique name prefix."""
        text = str(ref)
        if (rec_id := whole_number(text)) is not None:
            rows = self._rows("SELECT * FROM recordings WHERE id = ?", [rec_id])
        else:
            rows = self._rows("SELECT * FROM recordings WHERE path = ?", [db_text(str(Path(text).absolute()))])
            text = db_text(text)
            if not rows:
                rows = self._rows("SELECT * FROM recordings WHERE name = ?", [text])
            if not rows:
                rows = self._rows("SELECT * FROM recordings WHERE name LIKE ? ESCAPE '\\'", [_like_prefix(text)])
        if not rows:
            raise NotFoundError(f"{text}: no such recording in the index (see 'earshot list')")
        if len(rows) > 1:
            ids = ", ".join(str(r["id"]) for r in rows[:10])
            raise NotFoundError(f"{text}: matches several recordings (ids {ids}); give the id")
        return dict(rows[0])

    def recordings(self, *, order_by: str = "id") -> list[dict[str, Any]]:
        if order_by not in {"id", "name", "duration", "ingested_at"}:
            raise StorageError(f"cannot order recordings by {order_by!r}")
        return self._rows(f"SELECT * FROM recordings ORDER BY {order_by}")

    def save_recording(self, rec: NewRecording, *, then: Callable[[int], object] | None = None) -> int:
        """Write a finished transcript; replaces any recording at the same path.

        Recording, words, transcript segments, events, stories and entities go in
        one transaction, together with whatever ``then(recording_id)`` writes
        (e.g. the passage index): a reader sees the old transcript or the new
        one, never a mixture or a part.
        """
        with self.atomic():
            old = self.recording_by_path(rec.path)
            if old is not None:
                self._delete_recording_rows(int(old["id"]))
            cur = self.conn.execute(
                "INSERT INTO recordings (path, name, content_hash, size_bytes, duration, sample_rate, channels,"
                " codec, container, engine, model, language, status, word_count, ingested_at, ingest_seconds)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, ?)",
                [
                    db_text(rec.path), db_text(rec.name), rec.content_hash, rec.size_bytes, rec.duration, rec.sample_rate,
                    rec.channels, rec.codec, rec.container, rec.engine, rec.model, rec.language,
                    len(rec.words), time.time(), rec.ingest_seconds,
                ],
            )
            rec_id = int(cur.lastrowid or 0)
            xd = rec.x_duration if rec.x_duration is not None else [None] * len(rec.words)
            if len(xd) != len(rec.words):
                raise StorageError(f"{rec.path}: {len(xd)} X-duration values for {len(rec.words)} words")
            real = rec.transcribed if rec.transcribed is not None else [None] * len(rec.words)
            if len(real) != len(rec.words):
                raise StorageError(f"{rec.path}: {len(real)} transcribed flags for {len(rec.words)} words")
            self.conn.executemany(
                "INSERT INTO words (recording_id, idx, start, end, conf, text, x_duration, transcribed, display)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ((rec_id, i, w.start, w.end, w.conf, w.text, None if x is None else float(x),
                  None if r is None else int(bool(r)), w.display if w.display and w.display != w.text else None)
                 for i, (w, x, r) in enumerate(zip(rec.words, xd, real, strict=True))),
            )
            self._insert_events(rec_id, rec.events)
            self._insert_stories(rec_id, rec.words, rec.stories)
            self._insert_entities(rec_id, rec.words, rec.entities)
            self._write_speakers(rec_id, len(rec.words), rec.speakers)
            self.conn.executemany(
                "INSERT INTO segments (recording_id, idx, first_word, last_word, start, end, text)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    (rec_id, k, a, b, rec.words[a].start, rec.words[b].end,
                     " ".join(w.text for w in rec.words[a : b + 1]))
                    for k, (a, b) in enumerate(rec.segments)
                ),
            )
            if then is not None:
                then(rec_id)
        return rec_id

    def _insert_events(self, rec_id: int, events: Sequence[EventRow]) -> None:
        self.conn.executemany(
            "INSERT INTO events (recording_id, type, start, end, score, value) VALUES (?, ?, ?, ?, ?, ?)",
            ((rec_id, e.type, e.start, e.end, e.score, e.value) for e in events),
        )

    def _insert_stories(self, rec_id: int, words: Sequence[WordRow], stories: Sequence[StoryRow]) -> None:
        self.conn.executemany(
            "INSERT INTO stories (recording_id, idx, first_word, last_word, start, end, confidence, kind)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ((rec_id, k, s.first_word, s.last_word, words[s.first_word].start, words[s.last_word].end, s.confidence,
              s.kind) for k, s in enumerate(stories)),
        )

    def _insert_entities(self, rec_id: int, words: Sequence[WordRow], entities: Sequence[EntityRow]) -> None:
        self.conn.executemany(
            "INSERT INTO entities (recording_id, type, text, first_word, last_word, start, end, score)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ((rec_id, e.type, e.text, e.first_word, e.last_word, words[e.first_word].start, words[e.last_word].end,
              e.score) for e in entities),
        )

    def _write_speakers(self, rec_id: int, n_words: int, found: SpeakerTurns) -> None:
        labels = {sp.label for sp in found.speakers}
        if len(labels) != len(found.speakers) or any(label < 1 for label in labels):
            raise StorageError(f"recording {rec_id}: speaker labels must be distinct and >= 1")
        if any(t.speaker not in labels for t in found.turns):
            raise StorageError(f"recording {rec_id}: a turn names a speaker the recording does not have")
        per_word = found.word_speakers if found.word_speakers is not None else [None] * n_words
        if len(per_word) != n_words or any(k is not None and k not in labels for k in per_word):
            raise StorageError(f"recording {rec_id}: {len(per_word)} word speakers for {n_words} words, or an unknown label")
        self.conn.execute("DELETE FROM speakers WHERE recording_id = ?", [rec_id])
        self.conn.execute("DELETE FROM turns WHERE recording_id = ?", [rec_id])
        self.conn.executemany(
            "INSERT INTO speakers (recording_id, label, name, seconds, centroid) VALUES (?, ?, ?, ?, ?)",
            ((rec_id, sp.label, db_text(sp.name) or default_speaker_name(sp.label), sp.seconds, sp.centroid)
             for sp in found.speakers),
        )
        self.conn.executemany("INSERT INTO turns (recording_id, speaker, start, end) VALUES (?, ?, ?, ?)",
                              ((rec_id, t.speaker, t.start, t.end) for t in found.turns))
        self.conn.executemany("UPDATE words SET speaker = ? WHERE recording_id = ? AND idx = ?",
                              ((k, rec_id, i) for i, k in enumerate(per_word) if k is not None))
        self.conn.execute("UPDATE recordings SET speakers_given = ? WHERE id = ?", [found.given, rec_id])

    def replace_speakers(self, rec_id: int, found: SpeakerTurns) -> None:
        """Swap a recording's speakers, turns and word speakers for ``found`` (names start afresh), in one transaction."""
        with self.atomic():
            n_words = int(self.conn.execute("SELECT count(*) FROM words WHERE recording_id = ?", [rec_id]).fetchone()[0])
            self.conn.execute("UPDATE words SET speaker = NULL WHERE recording_id = ?", [rec_id])
            self._write_speakers(rec_id, n_words, found)

    def speakers(self, rec_id: int) -> list[dict[str, Any]]:
        """A recording's speakers by label: label, name, seconds (talk time), turns (count), words (count)."""
        return self._rows(
            "SELECT s.label, s.name, s.seconds,"
            " (SELECT count(*) FROM turns t WHERE t.recording_id = s.recording_id AND t.speaker = s.label) AS turns,"
            " (SELECT count(*) FROM words w WHERE w.recording_id = s.recording_id AND w.speaker = s.label) AS words"
            " FROM speakers s WHERE s.recording_id = ? ORDER BY s.label", [rec_id])

    def speaker_centroids(self, rec_id: int) -> dict[int, bytes]:
        """Each speaker's stored centroid embedding (float32 bytes) by label; speakers without one are left out."""
        return {int(r["label"]): bytes(r["centroid"]) for r in self._rows(
            "SELECT label, centroid FROM speakers WHERE recording_id = ? AND centroid IS NOT NULL", [rec_id])}

    def speaker_profiles(self, *, exclude_recording: int | None = None) -> list[dict[str, Any]]:
        """Every speaker with a centroid in the library, but those of ``exclude_recording``: recording_id,
        title (the recording's name), path, label, name, seconds (talk time), first (start of the first turn,
        seconds; None without turns) and centroid (float32 bytes); by recording id, then label."""
        return self._rows(
            "SELECT s.recording_id, r.name AS title, r.path, s.label, s.name, s.seconds, s.centroid,"
            " (SELECT min(t.start) FROM turns t WHERE t.recording_id = s.recording_id AND t.speaker = s.label) AS first"
            " FROM speakers s JOIN recordings r ON r.id = s.recording_id"
            " WHERE s.centroid IS NOT NULL AND s.recording_id IS NOT ?"
            " ORDER BY s.recording_id, s.label", [exclude_recording])

    def turns(self, rec_id: int) -> list[dict[str, Any]]:
        """A recording's turns in time order: speaker (label), name, start, end (seconds)."""
        return self._rows(
            "SELECT t.speaker, s.name, t.start, t.end FROM turns t JOIN speakers s"
            " ON s.recording_id = t.recording_id AND s.label = t.speaker"
            " WHERE t.recording_id = ? ORDER BY t.start, t.speaker", [rec_id])

    def speaker_label(self, rec_id: int, ref: str) -> int:
        """The label of the speaker ``ref`` names: "S2", "2" or its current name (case-insensitive).

        Raises ``NotFoundError`` naming the recording's speakers when none matches.
        """
        rows = self.speakers(rec_id)
        text = ref.strip()
        number = whole_number(text[1:] if text[:1] in "sS" and text[1:].isdecimal() else text)
        for row in rows:
            if (number is not None and number == row["label"]) or row["name"].casefold() == text.casefold():
                return int(row["label"])
        known = ", ".join(f"S{r['label']} ({r['name']})" for r in rows) or "none: run 'earshot speakers REC --count N'"
        raise NotFoundError(f"{ref}: no such speaker in recording {rec_id} (speakers: {known})")

    def rename_speaker(self, rec_id: int, label: int, name: str) -> None:
        """Give speaker ``label`` of a recording the ``name`` (one line of text, not empty)."""
        clean = " ".join(name.split())
        if not clean:
            raise StorageError("a speaker's name cannot be empty")
        if len(clean) > SPEAKER_NAME_MAX:
            raise StorageError(f"a speaker's name is at most {SPEAKER_NAME_MAX} characters (this one has {len(clean)})")
        with self.atomic():
            self.conn.execute("UPDATE speakers SET name = ? WHERE recording_id = ? AND label = ?",
                              [db_text(clean), rec_id, label])

    def merge_speakers(self, rec_id: int, keep: int, drop: int) -> None:
        """Make speaker ``drop`` part of speaker ``keep``: turns, words, talk time and voice profile
        (the two centroids averaged by talk time); ``drop`` is gone."""
        if keep == drop:
            raise StorageError(f"S{keep}: cannot merge a speaker with itself")
        rows = {int(r["label"]): r for r in self._rows(
            "SELECT label, seconds, centroid FROM speakers WHERE recording_id = ? AND label IN (?, ?)",
            [rec_id, keep, drop])}
        voice = _merged_centroid(*((rows[k]["centroid"], float(rows[k]["seconds"])) if k in rows else (None, 0.0)
                                   for k in (keep, drop)))
        with self.atomic():
            self.conn.execute("UPDATE speakers SET centroid = ? WHERE recording_id = ? AND label = ?",
                              [voice, rec_id, keep])
            self.conn.execute("UPDATE turns SET speaker = ? WHERE recording_id = ? AND speaker = ?", [keep, rec_id, drop])
            self.conn.execute("UPDATE words SET speaker = ? WHERE recording_id = ? AND speaker = ?", [keep, rec_id, drop])
            self.conn.execute(
                "UPDATE speakers SET seconds = seconds + (SELECT seconds FROM speakers WHERE recording_id = ?"
                " AND label = ?) WHERE recording_id = ? AND label = ?", [rec_id, drop, rec_id, keep])
            self.conn.execute("DELETE FROM speakers WHERE recording_id = ? AND label = ?", [rec_id, drop])

    def speaker_names(self, limit: int = 500) -> list[str]:
        """The library's speaker names, most talk time first (one entry per name, case as first stored)."""
        return [r["name"] for r in self._rows(
            "SELECT min(name) AS name, sum(seconds) AS total FROM speakers GROUP BY lower(name)"
            " ORDER BY total DESC, name LIMIT ?", [limit])]

    def speaker_name_of_words(self, rec_id: int, first_word: int, last_word: int) -> str:
        """The name of the first speaker among words ``first_word``..``last_word`` of a recording; "" for none."""
        row = self.conn.execute(
            "SELECT s.name FROM words w JOIN speakers s ON s.recording_id = w.recording_id AND s.label = w.speaker"
            " WHERE w.recording_id = ? AND w.idx BETWEEN ? AND ? AND w.speaker IS NOT NULL ORDER BY w.idx LIMIT 1",
            [rec_id, first_word, last_word]).fetchone()
        return str(row[0]) if row is not None else ""

    def recordings_with_speaker(self, name: str) -> list[int]:
        """Ids of the recordings that have a speaker called ``name`` (case-insensitive)."""
        return [int(r[0]) for r in self.conn.execute(
            "SELECT DISTINCT recording_id FROM speakers WHERE lower(name) = lower(?)", [name])]

    def speaker_talks_in(self, rec_id: int, name: str, start: float, end: float) -> bool:
        """True when speaker ``name`` (case-insensitive) has a turn overlapping ``start``..``end`` seconds."""
        return self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM turns t JOIN speakers s ON s.recording_id = t.recording_id"
            " AND s.label = t.speaker WHERE t.recording_id = ? AND lower(s.name) = lower(?) AND t.start < ?"
            " AND t.end > ?)", [rec_id, name, end, start]).fetchone()[0] == 1

    def replace_stories(self, rec_id: int, stories: Sequence[StoryRow]) -> None:
        """Swap a recording's stories (e.g. after re-running segmentation); caller holds atomic()."""
        words = [WordRow(w["start"], w["end"], w["conf"], w["text"], w["display"] or "") for w in self.words(rec_id)]
        self.conn.execute("DELETE FROM stories WHERE recording_id = ?", [rec_id])
        self._insert_stories(rec_id, words, stories)

    def events(self, rec_id: int, *, types: Sequence[str] | None = None) -> list[dict[str, Any]]:
        sql = "SELECT type, start, end, score, value FROM events WHERE recording_id = ?"
        params: list[Any] = [rec_id]
        if types:
            sql += f" AND type IN ({', '.join('?' * len(types))})"
            params += list(types)
        return self._rows(sql + " ORDER BY start, type", params)

    def stories(self, rec_id: int) -> list[dict[str, Any]]:
        return self._rows(
            "SELECT idx, first_word, last_word, start, end, confidence, kind FROM stories WHERE recording_id = ?"
            " ORDER BY idx",
            [rec_id])

    def entities(self, rec_id: int) -> list[dict[str, Any]]:
        return self._rows(
            "SELECT type, text, first_word, last_word, start, end, score FROM entities WHERE recording_id = ?"
            " ORDER BY first_word", [rec_id])

    def event_types(self) -> list[str]:
        """Every event type in the library, sorted."""
        return [r["type"] for r in self._rows("SELECT DISTINCT type FROM events ORDER BY type")]

    def entity_names(self, limit: int = 500) -> list[str]:
        """The ``limit`` most mentioned entity names, most frequent first."""
        sql = "SELECT text, count(*) AS n FROM entities GROUP BY text ORDER BY n DESC, text LIMIT ?"
        return [r["text"] for r in self._rows(sql, [limit])]

    def remove_recording(self, ref: str | int) -> dict[str, Any]:
        rec = self.recording(ref)
        with self.atomic():
            self._delete_recording_rows(int(rec["id"]))
        return rec

    def _delete_recording_rows(self, rec_id: int) -> None:
        # Child rows go through ON DELETE CASCADE; passage FTS rows through triggers.
        self.conn.execute("DELETE FROM recordings WHERE id = ?", [rec_id])

    def words(self, rec_id: int) -> list[dict[str, Any]]:
        """Every word of a recording in order; ``display`` is NULL where it equals ``text``;
        ``speaker`` is the label of its speaker (NULL: none)."""
        return [
            dict(r)
            for r in self._rows(
                "SELECT idx, start, end, conf, text, x_duration, transcribed, display, speaker FROM words"
                " WHERE recording_id = ? ORDER BY idx",
                [rec_id],
            )
        ]

    def words_between(self, rec_id: int, start: float, end: float) -> list[dict[str, Any]]:
        """The words of a recording that start between ``start`` and ``end`` seconds, in order, as
        :meth:`words` gives them (a few rows, not the whole transcript)."""
        return self._rows(
            "SELECT idx, start, end, conf, text, x_duration, transcribed, display, speaker FROM words"
            " WHERE recording_id = ? AND start BETWEEN ? AND ? ORDER BY idx", [rec_id, start, end])

    def segments(self, rec_id: int) -> list[dict[str, Any]]:
        return [
            dict(r)
            for r in self._rows("SELECT * FROM segments WHERE recording_id = ? ORDER BY idx", [rec_id])
        ]

    def filtered_spans(self, *, event_type: str | None = None, entity: str | None = None,
                       recording_id: int | None = None, speaker: str | None = None,
                       limit: int = 100) -> list[dict[str, Any]]:
        """What a search filter alone picks out, in recording-name and time order, at most ``limit``.

        An ``entity`` (case-insensitive): its mentions (near an ``event_type`` event, if one is given);
        else an ``event_type``: its events; else a ``speaker`` (a name, case-insensitive): the turns of the
        speakers so called; else a ``recording_id`` alone: the recording's stories. Each
        row: recording_id, name, path, start, end (s), kind, label, first_word, last_word (-1: none).
        """
        where = " AND x.recording_id = ?" if recording_id is not None else ""
        params: list[Any] = [recording_id] if recording_id is not None else []
        if entity:
            near = ""
            if event_type:
                near = (" AND EXISTS (SELECT 1 FROM events e WHERE e.recording_id = x.recording_id AND e.type = ?"
                        " AND e.start <= x.end AND e.end >= x.start)")
            sql = ("SELECT x.recording_id, r.name, r.path, x.start, x.end, x.type AS kind, x.text AS label,"
                   " x.first_word, x.last_word FROM entities x JOIN recordings r ON r.id = x.recording_id"
                   f" WHERE lower(x.text) = lower(?){where}{near}")
            params = [entity, *params, *([event_type] if event_type else [])]
        elif event_type:
            sql = ("SELECT x.recording_id, r.name, r.path, x.start, x.end, x.type AS kind, x.type AS label,"
                   " -1 AS first_word, -1 AS last_word FROM events x JOIN recordings r ON r.id = x.recording_id"
                   f" WHERE x.type = ?{where}")
            params = [event_type, *params]
        elif speaker:
            word = ("(SELECT {f}(w.idx) FROM words w WHERE w.recording_id = x.recording_id AND w.speaker = x.speaker"
                    " AND w.start >= x.start AND w.start < x.end)")
            sql = ("SELECT x.recording_id, r.name, r.path, x.start, x.end, 'speaker' AS kind, s.name AS label,"
                   f" coalesce({word.format(f='min')}, -1) AS first_word, coalesce({word.format(f='max')}, -1) AS last_word"
                   " FROM turns x JOIN speakers s ON s.recording_id = x.recording_id AND s.label = x.speaker"
                   f" JOIN recordings r ON r.id = x.recording_id WHERE lower(s.name) = lower(?){where}")
            params = [speaker, *params]
        elif recording_id is not None:
            sql = ("SELECT x.recording_id, r.name, r.path, x.start, x.end, 'story' AS kind,"
                   " 'Story ' || (x.idx + 1) AS label, x.first_word, x.last_word"
                   f" FROM stories x JOIN recordings r ON r.id = x.recording_id WHERE 1 = 1{where}")
        else:
            return []
        return self._rows(sql + " ORDER BY r.name, x.start LIMIT ?", [*params, limit])

    def counts(self) -> dict[str, int]:
        tables = ("recordings", "words", "segments", "events", "stories", "entities", "speakers", "turns", "passages",
                  "jobs")
        return {t: int(self.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables}


#: What a user is told to do about each kind of storage fault.
READ_ONLY = "the index is read-only (the file, its folder or its disk does not allow writing); it can be read but not changed"
FULL = "the disk holding the index is full; free some space and run the command again"
NOT_AN_INDEX = ("not an Earshot index (a database of another program); it was left as it was;"
                " give --db a new file name or an Earshot index")
TOO_NEW = ("written by a newer version of Earshot (schema {version}; this version knows {known});"
           " it can be read but not changed: update Earshot to change it")
DAMAGED = ("the index is damaged; move the file away (or restore a backup) and ingest the recordings again,"
           " or try 'sqlite3 FILE .recover'")


def storage_error(path: str, exc: sqlite3.Error, doing: str = "cannot write the index") -> StorageError:
    """The project's error for an SQLite failure: one line naming the file, the fault and what to do."""
    text = str(exc)
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "disk is full" in text or ("disk I/O error" in text and _disk_full(path)):
        return IndexFull(f"{path}: {doing}: {FULL}")
    if code == sqlite3.SQLITE_READONLY or "readonly" in text or "read-only" in text:
        return IndexReadOnly(f"{path}: {doing}: {READ_ONLY}")
    if code == sqlite3.SQLITE_CORRUPT or "malformed" in text:
        return IndexDamaged(f"{path}: {DAMAGED} ({text})")
    return StorageError(f"{path}: {doing}: {text}")


def _disk_full(path: str) -> bool:
    """True when the folder holding ``path`` has (almost) no free space left."""
    try:
        return shutil.disk_usage(Path(path).absolute().parent).free < 64 * 1024
    except OSError:
        return False


def db_text(text: str) -> str:
    """``text`` as SQLite can store it: a file name's undecodable bytes (surrogates) become ``\\xNN``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def _prepared(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``conn`` with the settings sqlite-utils gives a connection it wraps (recursive triggers), so
    statements behave alike before and after :attr:`Store.db` is first used."""
    conn.execute("PRAGMA recursive_triggers = ON")
    return conn


def _connect_read_only(path: str) -> sqlite3.Connection:
    """A read-only connection; an ``immutable`` one when even the WAL side files cannot be made."""
    uri = Path(path).absolute().as_uri()
    if not Path(path).is_file():
        raise StorageError(f"{path}: cannot open the index: no such file")
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=30.0)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None, timeout=30.0)


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _merged_centroid(kept: tuple[bytes | None, float], dropped: tuple[bytes | None, float]) -> bytes | None:
    """The voice profile of two speakers made one: their float32 unit centroids averaged with their talk
    times (seconds) as weights and made unit length again; one alone when the other has none."""
    (a, wa), (b, wb) = kept, dropped
    if a is None or b is None or len(a) != len(b):
        return a if a is not None else b
    mean = [wa * x + wb * y for x, y in zip(array.array("f", a), array.array("f", b), strict=True)]
    norm = math.sqrt(sum(v * v for v in mean))
    return array.array("f", [v / norm for v in mean]).tobytes() if norm > 0 else a
