"""The passage index's rows: every SQL statement passage search writes at ingest and reads at query time.

:class:`PassageIndex` sits beside :class:`~engine.storage.store.Store` on the same
connection. The block maths that decides what the rows hold lives in
``engine/search/passage_blocks.py``; this module only stores and fetches typed
records (see ``engine/storage/schema.py``, migration ``0002_passage_stats``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import NotFoundError
from engine.storage.store import Store, converts_sqlite_errors

# -- records --------------------------------------------------------------------


@dataclass(frozen=True)
class RecordingText:
    """What the block maths reads about one recording: its name, ingest time and words in order."""

    recording_id: int
    name: str
    ingested_at: float  # unix time
    word_idx: np.ndarray  # shape (n_words,), int64
    starts: np.ndarray  # shape (n_words,), seconds
    ends: np.ndarray  # shape (n_words,), seconds
    texts: tuple[str, ...]
    #: (story idx, first word index, last word index) ordered by first word.
    stories: tuple[tuple[int, int, int], ...]
    #: Idx of the stories that are commercial blocks (their words are not searched).
    commercials: frozenset[int] = frozenset()


@dataclass(frozen=True)
class WordRun:
    """Words of one recording in index order: indexes (n,), start and end seconds (n,), characters
    of the text that character offsets count (n,), and the display text (cased and punctuated where
    the recogniser was; empty when not asked for)."""

    idx: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    lengths: np.ndarray
    display: tuple[str, ...]


@dataclass(frozen=True)
class Span:
    """Words ``first_word..last_word`` (indexes, inclusive), seconds and transcript characters."""

    first_word: int
    last_word: int
    start: float
    end: float
    char_start: int
    char_end: int  # exclusive


@dataclass(frozen=True)
class DocRow:
    """A document (a story, or words outside every story) of the passage index."""

    id: int
    story_idx: int | None
    first_block: int
    n_blocks: int
    span: Span
    n_tokens: int


@dataclass(frozen=True)
class BlockRow:
    """A block of stopped tokens inside one document, with its tokens as int32 bytes."""

    id: int
    doc_id: int
    idx: int
    span: Span
    n_tokens: int
    tokens: bytes  # int32 term ids in text order
    positions: bytes  # int32 word index of each token
    word_chars: bytes  # int32 char offset of each word, then char_end + 1
    fts_text: str  # the block's terms, for the full-text index


@dataclass(frozen=True)
class PassageRow:
    """A passage: the block that opens it and the next one."""

    id: int
    story_idx: int | None
    span: Span


@dataclass(frozen=True)
class RecordingStats:
    """Per-recording sizes the ranking models sum over the library."""

    n_tokens: int = 0
    n_blocks: int = 0
    n_passages: int = 0
    passage_tokens: int = 0
    n_docs: int = 0
    words_per_second: float = 0.0
    broadcast_date: str = ""
    terms_version: int = 1  # the term rules the passages were made with (engine.search.config.TERMS_VERSION)


@dataclass(frozen=True)
class TermCounts:
    """One recording's term counts: ``texts[i]`` occurs ``cf[i]`` times in ``df[i]`` passages."""

    texts: Sequence[str]
    cf: np.ndarray  # shape (n_terms,), int64
    df: np.ndarray  # shape (n_terms,), int64


@dataclass(frozen=True)
class CorpusTotals:
    """Library-wide sizes, summed over recordings at query time."""

    n_tokens: int
    n_passages: int
    passage_tokens: int
    n_docs: int

    @property
    def mean_passage_length(self) -> float:
        return self.passage_tokens / self.n_passages if self.n_passages else 0.0


@dataclass(frozen=True)
class Filters:
    """Query-side restrictions, as :class:`engine.search.SearchFilters` passes them down."""

    recording_ids: tuple[int, ...] = ()
    date_from: str | None = None
    date_to: str | None = None
    event_types: tuple[str, ...] = ()
    entity: str | None = None
    entity_type: str | None = None
    #: An event this close (seconds) to a block counts as in it.
    event_margin: float = 0.0


DOC_COLUMNS = ("id", "recording_id", "story_idx", "first_block", "n_blocks", "first_word", "last_word",
               "start", "end", "char_start", "char_end", "n_tokens")
BLOCK_COLUMNS = ("id", "recording_id", "doc_id", "idx", "first_word", "last_word", "start", "end",
                 "char_start", "char_end", "n_tokens")

#: Tables holding one recording's passage rows; triggers take the FTS rows and term counts with them.
_PASSAGE_TABLES = ("search_blocks", "search_docs", "passages", "search_recording_terms", "search_recordings")
#: A search document's story (``d``: search_docs), joined as ``s``, and whether it is a story that came with
#: the transcript (caption markers: no posterior stored).
_DOC_STORY = "LEFT JOIN stories s ON s.recording_id = d.recording_id AND s.idx = d.story_idx"
_GIVEN_STORY = "(s.idx IS NOT NULL AND s.confidence IS NULL)"


def _span_values(s: Span) -> tuple[int, int, float, float, int, int]:
    return (s.first_word, s.last_word, s.start, s.end, s.char_start, s.char_end)


@converts_sqlite_errors
class PassageIndex:
    """The passage statistics of one index file, on its :class:`Store`'s connection.

    Writes run inside the caller's ``store.atomic()``: none begins or commits a transaction.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.path
        self.conn = store.conn

    # -- ingest side: reads -----------------------------------------------------------

    def recording_text(self, recording_id: int) -> RecordingText:
        """The recording's name, ingest time, words and stories; NotFoundError when it is not indexed."""
        rec = self.conn.execute("SELECT id, name, ingested_at FROM recordings WHERE id = ?", [recording_id]).fetchone()
        if rec is None:
            raise NotFoundError(f"recording {recording_id}: not in the index")
        rows = self.conn.execute(
            "SELECT idx, start, end, text FROM words WHERE recording_id = ? ORDER BY idx", [recording_id]
        ).fetchall()
        stories = self.conn.execute(
            "SELECT idx, first_word, last_word, kind FROM stories WHERE recording_id = ? ORDER BY first_word, idx",
            [recording_id],
        ).fetchall()
        cols: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [(), (), (), ()]
        return RecordingText(
            recording_id=recording_id, name=str(rec[1]), ingested_at=float(rec[2]),
            word_idx=np.asarray(cols[0], dtype=np.int64), starts=np.asarray(cols[1], dtype=np.float64),
            ends=np.asarray(cols[2], dtype=np.float64), texts=tuple(str(t) for t in cols[3]),
            stories=tuple((int(i), int(a), int(b)) for i, a, b, _ in stories),
            commercials=frozenset(int(i) for i, _, _, kind in stories if kind == "commercial"),
        )

    def next_ids(self) -> tuple[int, int]:
        """(first free block id, first free document id)."""
        block = int(self.conn.execute("SELECT coalesce(max(id), 0) FROM search_blocks").fetchone()[0]) + 1
        doc = int(self.conn.execute("SELECT coalesce(max(id), 0) FROM search_docs").fetchone()[0]) + 1
        return block, doc

    def transcript_text(self, recording_id: int) -> str:
        """The text character offsets refer to: the recording's words joined by single spaces."""
        rows = self.conn.execute("SELECT text FROM words WHERE recording_id = ? ORDER BY idx", [recording_id]).fetchall()
        return " ".join(r[0] for r in rows)

    def block_count(self, recording_id: int) -> int:
        """Blocks indexed for the recording (0 for an index made before passage search existed)."""
        if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'search_blocks'").fetchone():
            return 0
        return int(self.conn.execute(
            "SELECT count(*) FROM search_blocks WHERE recording_id = ?", [recording_id]).fetchone()[0])

    # -- ingest side: writes ----------------------------------------------------------

    def stale_recordings(self, terms_version: int) -> list[int]:
        """Ids of the recordings whose passages were indexed under term rules older than ``terms_version``."""
        rows = self.conn.execute("SELECT recording_id FROM search_recordings WHERE terms_version < ? ORDER BY"
                                 " recording_id", [terms_version]).fetchall()
        return [int(r[0]) for r in rows]

    def delete(self, recording_id: int) -> None:
        """Take one recording's passage rows (and its share of the library's term counts) out."""
        for table in _PASSAGE_TABLES:
            self.conn.execute(f"DELETE FROM {table} WHERE recording_id = ?", [recording_id])

    def add_terms(self, recording_id: int, counts: TermCounts) -> np.ndarray:
        """Add a recording's term counts to the library's; return each term's global id, shape (n_terms,)."""
        if not counts.texts:
            return np.array([], dtype=np.int64)
        texts = [str(t) for t in counts.texts]
        self.conn.executemany(
            "INSERT INTO search_terms (text, cf, df) VALUES (?, ?, ?)"
            " ON CONFLICT(text) DO UPDATE SET cf = cf + excluded.cf, df = df + excluded.df",
            zip(texts, counts.cf.tolist(), counts.df.tolist(), strict=True),
        )
        found = dict(self.conn.execute(
            "SELECT text, id FROM search_terms WHERE text IN (SELECT value FROM json_each(?))", [json.dumps(texts)]
        ).fetchall())
        ids = np.fromiter((found[t] for t in texts), dtype=np.int64, count=len(texts))
        self.conn.executemany(
            "INSERT INTO search_recording_terms (recording_id, term_id, cf, df) VALUES (?, ?, ?, ?)",
            zip([recording_id] * len(texts), ids.tolist(), counts.cf.tolist(), counts.df.tolist(), strict=True),
        )
        return ids

    def write(self, recording_id: int, docs: Iterable[DocRow], blocks: Iterable[BlockRow],
              passages: Iterable[PassageRow], stats: RecordingStats) -> None:
        """Store one recording's documents, blocks (and their full-text rows), passages and sizes."""
        self.conn.executemany(
            "INSERT INTO search_docs (id, recording_id, story_idx, first_block, n_blocks, first_word, last_word,"
            " start, end, char_start, char_end, n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((d.id, recording_id, d.story_idx, d.first_block, d.n_blocks, *_span_values(d.span), d.n_tokens)
             for d in docs),
        )
        blocks = list(blocks)
        self.conn.executemany(
            "INSERT INTO search_blocks (id, recording_id, doc_id, idx, first_word, last_word, start, end, char_start,"
            " char_end, n_tokens, tokens, positions, word_chars) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((b.id, recording_id, b.doc_id, b.idx, *_span_values(b.span), b.n_tokens, b.tokens, b.positions,
              b.word_chars) for b in blocks),
        )
        self.conn.executemany("INSERT INTO search_blocks_fts (rowid, text) VALUES (?, ?)",
                              ((b.id, b.fts_text) for b in blocks))
        self.conn.executemany(
            "INSERT INTO passages (id, recording_id, story_idx, first_word, last_word, start, end, char_start,"
            " char_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((p.id, recording_id, p.story_idx, *_span_values(p.span)) for p in passages),
        )
        self.conn.execute(
            "INSERT INTO search_recordings (recording_id, n_tokens, n_blocks, n_passages, passage_tokens, n_docs,"
            " words_per_second, broadcast_date, terms_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [recording_id, stats.n_tokens, stats.n_blocks, stats.n_passages, stats.passage_tokens, stats.n_docs,
             stats.words_per_second, stats.broadcast_date, stats.terms_version],
        )

    # -- query side -------------------------------------------------------------------

    def corpus_totals(self) -> CorpusTotals:
        row = self.conn.execute(
            "SELECT coalesce(sum(n_tokens), 0), coalesce(sum(n_passages), 0), coalesce(sum(passage_tokens), 0),"
            " coalesce(sum(n_docs), 0) FROM search_recordings"
        ).fetchone()
        return CorpusTotals(*(int(v) for v in row))

    def terms_by_text(self, texts: Sequence[str]) -> dict[str, tuple[int, int, int]]:
        """``text -> (id, cf, df)`` for the given terms that occur in the library."""
        rows = self.conn.execute(
            "SELECT text, id, cf, df FROM search_terms WHERE text IN (SELECT value FROM json_each(?)) AND cf > 0",
            [json.dumps(list(texts))],
        ).fetchall()
        return {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}

    def terms_with_prefix(self, prefix: str, *, limit: int) -> list[tuple[str, int]]:
        """The ``limit`` commonest library terms starting with ``prefix``: (text, cf), commonest first.

        A range scan of the term table's text index (what an FTS5 prefix query does on its own
        vocabulary), so it costs the same for one letter as for ten.
        """
        if not prefix:
            return []
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        rows = self.conn.execute(
            "SELECT text, cf FROM search_terms WHERE text >= ? AND text < ? AND cf > 0 ORDER BY cf DESC, text LIMIT ?",
            [prefix, upper, int(limit)],
        ).fetchall()
        return [(str(r[0]), int(r[1])) for r in rows]

    def terms_like(self, term: str, *, spread: int) -> list[tuple[str, int]]:
        """Library terms that may be a misspelling's intended word: within ``spread`` characters of
        ``term``'s length and sharing its first or its last letter. (text, cf)."""
        rows = self.conn.execute(
            "SELECT text, cf FROM search_terms WHERE cf > 0 AND length(text) BETWEEN ? AND ?"
            " AND (substr(text, 1, 1) = ? OR substr(text, -1, 1) = ?)",
            [len(term) - spread, len(term) + spread, term[:1], term[-1:]],
        ).fetchall()
        return [(str(r[0]), int(r[1])) for r in rows]

    def collection_frequencies(self, term_ids: np.ndarray) -> np.ndarray:
        """cf of each term id (0 for unknown ids), in the order given; shape (n,)."""
        rows = self.conn.execute(
            "SELECT id, cf FROM search_terms WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(term_ids.tolist())],
        ).fetchall()
        if not rows:
            return np.zeros(len(term_ids))
        ids, cfs = (np.asarray(c) for c in zip(*rows, strict=True))
        order = np.argsort(ids)
        pos = np.clip(np.searchsorted(ids[order], term_ids), 0, len(ids) - 1)
        found = ids[order][pos] == term_ids
        return np.where(found, cfs[order][pos], 0).astype(np.float64)

    def fts_blocks(self, match: str) -> np.ndarray:
        """Ids of every block an FTS5 MATCH expression matches (unranked: FTS5's bm25 costs a
        row lookup per match, so ranking is done on these ids in numpy)."""
        rows = self.conn.execute(
            "SELECT rowid FROM search_blocks_fts WHERE search_blocks_fts MATCH ?", [match]).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def block_docs(self, block_ids: np.ndarray, filters: Filters | None) -> tuple[np.ndarray, np.ndarray]:
        """(block ids, their doc ids) of the blocks that pass the filters."""
        where, params = _filter_sql(filters, "b")
        rows = self.conn.execute(
            f"SELECT b.id, b.doc_id FROM json_each(?) j JOIN search_blocks b ON b.id = j.value WHERE 1{where}",
            [json.dumps(block_ids.tolist()), *params],
        ).fetchall()
        if not rows:
            return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
        ids, docs = zip(*rows, strict=True)
        return np.asarray(ids, dtype=np.int64), np.asarray(docs, dtype=np.int64)

    def block_places(self, block_ids: np.ndarray, filters: Filters | None) -> dict[str, np.ndarray]:
        """Where the blocks that pass the filters lie: column arrays ``id``, ``doc_id``, ``recording_id``,
        ``first_word``, ``last_word`` (word indexes), their document's ``doc_first_word`` and
        ``doc_last_word``, and ``given`` (1 when the document is a story that came with the transcript:
        no posterior stored), in no particular order."""
        where, params = _filter_sql(filters, "b")
        rows = self.conn.execute(
            "SELECT b.id, b.doc_id, b.recording_id, b.first_word, b.last_word, d.first_word, d.last_word,"
            f" {_GIVEN_STORY}"
            " FROM json_each(?) j JOIN search_blocks b ON b.id = j.value JOIN search_docs d ON d.id = b.doc_id"
            f" {_DOC_STORY} WHERE 1{where}",
            [json.dumps(block_ids.tolist()), *params],
        ).fetchall()
        names = ("id", "doc_id", "recording_id", "first_word", "last_word", "doc_first_word", "doc_last_word", "given")
        cols = list(zip(*rows, strict=True)) if rows else [() for _ in names]
        return {c: np.asarray(v, dtype=np.int64) for c, v in zip(names, cols, strict=True)}

    def given_docs(self, doc_ids: np.ndarray) -> np.ndarray:
        """Boolean mask, shape (n,): which of the documents are stories that came with the transcript
        (caption markers: no posterior stored), in the order of ``doc_ids``."""
        rows = self.conn.execute(
            f"SELECT d.id FROM json_each(?) j JOIN search_docs d ON d.id = j.value {_DOC_STORY} WHERE {_GIVEN_STORY}",
            [json.dumps(doc_ids.tolist())],
        ).fetchall()
        return np.isin(doc_ids, np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))

    def fts_bm25_blocks(self, match: str, *, limit: int) -> list[tuple[Any, ...]]:
        """SQLite FTS5's own bm25 ranking of blocks (a baseline): (block id, recording id, first word,
        last word, start, end, char start, char end, bm25 score), best first."""
        return self.conn.execute(
            "SELECT b.id, b.recording_id, b.first_word, b.last_word, b.start, b.end, b.char_start, b.char_end,"
            " -f.rank FROM search_blocks_fts f JOIN search_blocks b ON b.id = f.rowid"
            " WHERE search_blocks_fts MATCH ? ORDER BY f.rank LIMIT ?",
            [match, limit],
        ).fetchall()

    def doc_rows(self, doc_ids: np.ndarray) -> dict[str, np.ndarray]:
        """The documents' rows as column arrays, in the order of ``doc_ids`` (story_idx -1: none)."""
        select = ", ".join("coalesce(d.story_idx, -1)" if c == "story_idx" else "d." + c for c in DOC_COLUMNS)
        rows = self.conn.execute(
            f"SELECT {select} FROM json_each(?) j JOIN search_docs d ON d.id = j.value ORDER BY j.key",
            [json.dumps(doc_ids.tolist())],
        ).fetchall()
        cols = list(zip(*rows, strict=True)) if rows else [() for _ in DOC_COLUMNS]
        return {
            c: np.asarray(v, dtype=np.float64 if c in ("start", "end") else np.int64)
            for c, v in zip(DOC_COLUMNS, cols, strict=True)
        }

    def block_rows(
        self, doc_ids: np.ndarray, *, with_word_chars: bool = False
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """All blocks of the documents, grouped by document in the order given, and their tokens.

        Returns (block columns, token arrays): tokens have ``term`` (int64 term id),
        ``position`` (word index) and, with ``with_word_chars``, the blocks'
        ``word_chars`` offsets concatenated (``word_chars_lo`` gives each block's start).
        """
        extra = ", b.word_chars" if with_word_chars else ""
        rows = self.conn.execute(
            f"SELECT {', '.join('b.' + c for c in BLOCK_COLUMNS)}, b.tokens, b.positions{extra}"
            " FROM json_each(?) j JOIN search_blocks b ON b.doc_id = j.value ORDER BY j.key, b.idx",
            [json.dumps(doc_ids.tolist())],
        ).fetchall()
        return _block_arrays(rows, with_word_chars)

    def blocks_in_ranges(
        self, ranges: Sequence[tuple[int, int, int]], *, with_word_chars: bool = False
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The blocks whose first word lies in one of the ``(recording id, first word, last word)`` ranges
        (disjoint), ordered by recording and word, and their tokens; columns as :meth:`block_rows`."""
        extra = ", b.word_chars" if with_word_chars else ""
        rows = self.conn.execute(
            f"SELECT {', '.join('b.' + c for c in BLOCK_COLUMNS)}, b.tokens, b.positions{extra}"
            " FROM json_each(?) j JOIN search_blocks b ON b.recording_id = json_extract(j.value, '$[0]')"
            " AND b.first_word BETWEEN json_extract(j.value, '$[1]') AND json_extract(j.value, '$[2]')"
            " ORDER BY b.recording_id, b.first_word",
            [json.dumps([[int(v) for v in r] for r in ranges])],
        ).fetchall()
        return _block_arrays(rows, with_word_chars)

    def word_times(self, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], tuple[float, float]]:
        """``(recording id, word index) -> (start, end)`` in seconds."""
        rows = self.conn.execute(
            "SELECT w.recording_id, w.idx, w.start, w.end FROM json_each(?) j JOIN words w"
            " ON w.recording_id = json_extract(j.value, '$[0]') AND w.idx = json_extract(j.value, '$[1]')",
            [json.dumps([list(p) for p in pairs])],
        ).fetchall()
        return {(int(r[0]), int(r[1])): (float(r[2]), float(r[3])) for r in rows}

    def word_texts(self, ranges: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, str]]:
        """Words of each ``(recording id, first word, last word)`` range: (range number, word index, text),
        the text as the recogniser wrote it (cased, punctuated) where it differs from the token."""
        return self._words_in_ranges(ranges, "COALESCE(w.display, w.text)")

    def word_rows(self, ranges: Sequence[tuple[int, int, int]], *, display: bool = False
                  ) -> list[tuple[int, int, float, float, str]]:
        """Words of each ``(recording id, first word, last word)`` range: (range number, index, start, end,
        text), the text as shown (with its punctuation) with ``display``."""
        return self._words_in_ranges(ranges, "w.start, w.end, " + ("COALESCE(w.display, w.text)" if display
                                                                   else "w.text"))

    def word_runs(self, ranges: Sequence[tuple[int, int, int]], *, with_display: bool = False
                  ) -> dict[int, list[WordRun]]:
        """The words of the ``(recording id, first word, last word)`` ranges, read by primary key:
        per recording, one run for each group of overlapping or touching ranges, in word order
        (display texts only ``with_display``, else empty)."""
        display = "COALESCE(w.display, w.text)" if with_display else "''"
        merged: list[tuple[int, int, int]] = []
        for rec, lo, hi in sorted((int(r), int(a), int(b)) for r, a, b in ranges):
            if merged and merged[-1][0] == rec and lo <= merged[-1][2] + 1:
                merged[-1] = (rec, merged[-1][1], max(merged[-1][2], hi))
            else:
                merged.append((rec, lo, hi))
        out: dict[int, list[WordRun]] = {}
        rows = self._words_in_ranges(merged, f"w.start, w.end, length(w.text), {display}")
        for key, group in itertools.groupby(rows, key=lambda row: row[0]):
            cols: list[Sequence[Any]] = list(zip(*group, strict=True))
            out.setdefault(merged[key][0], []).append(WordRun(
                np.asarray(cols[1], dtype=np.int64), np.asarray(cols[2], dtype=np.float64),
                np.asarray(cols[3], dtype=np.float64), np.asarray(cols[4], dtype=np.int64),
                tuple(cols[5]) if with_display else ()))
        return out

    def doc_extents(self, recording_ids: Sequence[int]) -> list[tuple[int, int, int, bool, float | None]]:
        """(recording id, first word, last word, is a story, confidence) of every search document of the
        recordings: where the index cut them, and the posterior of the story boundary that opens each
        (None where no segmenter gave one: stories given with the transcript, or words outside stories)."""
        return [(int(r), int(a), int(b), bool(k), None if c is None else float(c)) for r, a, b, k, c in self.conn.execute(
            "SELECT d.recording_id, d.first_word, d.last_word, d.story_idx IS NOT NULL, s.confidence"
            " FROM json_each(?) j"
            " JOIN search_docs d ON d.recording_id = j.value"
            " LEFT JOIN stories s ON s.recording_id = d.recording_id AND s.idx = d.story_idx"
            " ORDER BY d.recording_id, d.first_word", [json.dumps([int(r) for r in recording_ids])]).fetchall()]

    def _words_in_ranges(self, ranges: Sequence[tuple[int, int, int]], columns: str) -> list[Any]:
        """(range number, word index, *columns) of the words of every range, in one query; ``columns`` is ours."""
        return self.conn.execute(
            f"SELECT j.key, w.idx, {columns} FROM json_each(?) j JOIN words w"
            " ON w.recording_id = json_extract(j.value, '$[0]')"
            " AND w.idx BETWEEN json_extract(j.value, '$[1]') AND json_extract(j.value, '$[2]')"
            " ORDER BY j.key, w.idx",
            [json.dumps([list(r) for r in ranges])],
        ).fetchall()

    def events_near(self, recording_ids: Sequence[int], types: Sequence[str] | None = None) -> list[tuple[Any, ...]]:
        """Events of the recordings (optionally only some types): (recording id, type, start, end, score, value)."""
        sql = ("SELECT recording_id, type, start, end, score, value FROM events"
               " WHERE recording_id IN (SELECT value FROM json_each(?))")
        params: list[Any] = [json.dumps(sorted(set(recording_ids)))]
        if types is not None:
            sql += " AND type IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(types)))
        return self.conn.execute(sql + " ORDER BY recording_id, start", params).fetchall()

    def entities_matching(self, recording_ids: Sequence[int], terms: Sequence[str]) -> list[tuple[Any, ...]]:
        """Entities in the recordings whose text contains one of the terms (case-insensitive, whole
        tokens checked by the caller): (recording id, first word, last word, type, text)."""
        if not terms:
            return []
        likes = " OR ".join(["lower(text) LIKE ? ESCAPE '\\'"] * len(terms))
        params: list[Any] = [json.dumps(sorted(set(recording_ids)))]
        params += ["%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for t in terms]
        return self.conn.execute(
            "SELECT recording_id, first_word, last_word, type, text FROM entities"
            f" WHERE recording_id IN (SELECT value FROM json_each(?)) AND ({likes})",
            params,
        ).fetchall()

    def passing_blocks(self, block_ids: np.ndarray, filters: Filters) -> np.ndarray:
        """Boolean mask, shape (n,): which of the blocks satisfy the event and entity filters."""
        where, params = _filter_sql(Filters(event_types=filters.event_types, entity=filters.entity,
                                            entity_type=filters.entity_type, event_margin=filters.event_margin), "b")
        if not where:
            return np.ones(len(block_ids), dtype=bool)
        rows = self.conn.execute(
            f"SELECT b.id FROM search_blocks b WHERE b.id IN (SELECT value FROM json_each(?)){where}",
            [json.dumps(block_ids.tolist()), *params],
        ).fetchall()
        ok = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return np.isin(block_ids, ok)

    def recordings_by_id(self, recording_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT r.id, r.name, r.path, s.words_per_second, s.broadcast_date FROM recordings r"
            " LEFT JOIN search_recordings s ON s.recording_id = r.id WHERE r.id IN (SELECT value FROM json_each(?))",
            [json.dumps(sorted(set(int(i) for i in recording_ids)))],
        ).fetchall()
        return {
            int(r[0]): {"name": r[1], "path": r[2], "words_per_second": float(r[3] or 0.0), "date": r[4]}
            for r in rows
        }


def _block_arrays(rows: Sequence[Sequence[Any]], with_word_chars: bool
                  ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Block rows (``BLOCK_COLUMNS``, tokens, positions[, word_chars]) as column arrays and token arrays."""
    n_cols = len(BLOCK_COLUMNS)
    if not rows:
        empty = {c: np.array([], dtype=np.float64 if c in ("start", "end") else np.int64) for c in BLOCK_COLUMNS}
        return empty, {"term": np.array([], dtype=np.int64), "position": np.array([], dtype=np.int64)}
    cols = list(zip(*rows, strict=True))
    blocks = {
        c: np.asarray(cols[i], dtype=np.float64 if c in ("start", "end") else np.int64)
        for i, c in enumerate(BLOCK_COLUMNS)
    }
    tokens = {
        "term": np.frombuffer(b"".join(cols[n_cols]), dtype=np.int32).astype(np.int64),
        "position": np.frombuffer(b"".join(cols[n_cols + 1]), dtype=np.int32).astype(np.int64),
    }
    if with_word_chars:
        chars = cols[n_cols + 2]
        lens = np.fromiter(map(len, chars), dtype=np.int64, count=len(chars)) // 4
        tokens["word_chars"] = np.frombuffer(b"".join(chars), dtype=np.int32).astype(np.int64)
        blocks["word_chars_lo"] = np.concatenate([[0], np.cumsum(lens)[:-1]])
    return blocks, tokens


def _filter_sql(filters: Filters | None, block: str) -> tuple[str, list[Any]]:
    """WHERE clauses (each starting with AND) restricting blocks aliased ``block``."""
    if filters is None:
        return "", []
    sql = ""
    params: list[Any] = []
    if filters.recording_ids:
        sql += f" AND {block}.recording_id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(list(filters.recording_ids)))
    if filters.date_from or filters.date_to:
        sql += (f" AND {block}.recording_id IN (SELECT recording_id FROM search_recordings"
                " WHERE broadcast_date >= ? AND broadcast_date <= ?)")
        params += [filters.date_from or "0000-00-00", filters.date_to or "9999-99-99"]
    if filters.event_types:
        sql += (f" AND EXISTS (SELECT 1 FROM events e WHERE e.recording_id = {block}.recording_id"
                " AND e.type IN (SELECT value FROM json_each(?))"
                f" AND e.start <= {block}.end + ? AND e.end >= {block}.start - ?)")
        params += [json.dumps(list(filters.event_types)), filters.event_margin, filters.event_margin]
    if filters.entity or filters.entity_type:
        sql += (f" AND EXISTS (SELECT 1 FROM entities n WHERE n.recording_id = {block}.recording_id"
                f" AND n.first_word <= {block}.last_word AND n.last_word >= {block}.first_word")
        if filters.entity:
            sql += " AND lower(n.text) = lower(?)"
            params.append(filters.entity)
        if filters.entity_type:
            sql += " AND n.type = ?"
            params.append(filters.entity_type)
        sql += ")"
    return sql, params
