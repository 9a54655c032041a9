"""Passage statistics in the index: written at ingest time, read at query time.

All of passage search's SQL lives here. :func:`index_passages` cuts one
recording into documents (its stories, or the whole recording), blocks of 50
stopped tokens and 100-token half-overlapping passages (two neighbouring
blocks), and stores per block the term ids in text order, so that every
statistic a ranking model needs is a sum over blocks. Library-wide counts
(``search_terms``: collection frequency and passage document frequency) are
updated incrementally; a trigger takes a recording's share back out when its
rows go (see ``engine/storage/schema.py``, migration ``0002_passage_stats``).

Character offsets refer to the recording's *transcript text*: its words joined
by single spaces (:func:`transcript_text`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import NotFoundError
from engine.search import config
from engine.search.text import word_terms
from engine.storage.store import Store

_DATE_IN_NAME = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")


# -- ingest side ----------------------------------------------------------------


@dataclass(frozen=True)
class _Doc:
    story_idx: int | None
    first: int  # word positions, inclusive
    last: int


def index_passages(store: Store, recording_id: int) -> int:
    """(Re)build the passages and their statistics for one recording; return the passage count.

    Documents are the recording's stories when the ``stories`` table has rows
    for it (words outside every story form documents of their own, with
    ``story_idx`` NULL), else the whole recording. Runs inside the caller's
    transaction: it neither begins nor commits one.
    """
    conn = store.conn
    rec = conn.execute("SELECT id, name, ingested_at FROM recordings WHERE id = ?", [recording_id]).fetchone()
    if rec is None:
        raise NotFoundError(f"recording {recording_id}: not in the index")
    _delete_passage_rows(store, recording_id)
    rows = conn.execute(
        "SELECT idx, start, end, text FROM words WHERE recording_id = ? ORDER BY idx", [recording_id]
    ).fetchall()
    date = _broadcast_date(str(rec[1]), float(rec[2]))
    if not rows:
        _write_recording_row(store, recording_id, (0, 0, 0, 0, 0), 0.0, date)
        return 0
    word_idx_t, starts_t, ends_t, texts = zip(*rows, strict=True)
    word_idx = np.asarray(word_idx_t, dtype=np.int64)
    starts = np.asarray(starts_t, dtype=np.float64)
    ends = np.asarray(ends_t, dtype=np.float64)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    char_at = np.concatenate([[0], np.cumsum(lengths + 1)])  # char offset of word i; last = len(text) + 1

    term_texts, term_word = word_terms(texts)
    tok_word = np.asarray(term_word, dtype=np.int64)
    vocab, tok_local = np.unique(np.asarray(term_texts, dtype=object), return_inverse=True) if term_texts else (
        np.array([], dtype=object), np.array([], dtype=np.int64))
    docs = _documents(store, recording_id, word_idx)

    blocks: list[tuple[int, int, int, int, int]] = []  # (doc number, idx, token lo, token hi, first word)
    doc_rows: list[tuple[_Doc, int, int, int]] = []  # (doc, first block number, n blocks, n tokens)
    for d in docs:
        lo = int(np.searchsorted(tok_word, d.first, "left"))
        hi = int(np.searchsorted(tok_word, d.last, "right"))
        if hi == lo:
            continue  # nothing but stop words: nothing to find
        n_blocks = -(-(hi - lo) // config.BLOCK_TOKENS)
        doc_rows.append((d, len(blocks), n_blocks, hi - lo))
        for k in range(n_blocks):
            t0 = lo + k * config.BLOCK_TOKENS
            blocks.append((len(doc_rows) - 1, k, t0, min(t0 + config.BLOCK_TOKENS, hi), d.first if k == 0 else int(tok_word[t0])))

    n_blocks_total = len(blocks)
    block_base = int(conn.execute("SELECT coalesce(max(id), 0) FROM search_blocks").fetchone()[0]) + 1
    doc_base = int(conn.execute("SELECT coalesce(max(id), 0) FROM search_docs").fetchone()[0]) + 1
    term_ids = _upsert_terms(store, recording_id, vocab, tok_local, blocks, doc_rows)
    tok_global = term_ids[tok_local].astype(np.int32) if len(tok_local) else np.array([], dtype=np.int32)

    spans = []  # (first, last) word position of each block; blocks tile their document
    for b, (dn, k, _, _, first) in enumerate(blocks):
        d, _, n_in_doc, _ = doc_rows[dn]
        spans.append((first, d.last if k == n_in_doc - 1 else blocks[b + 1][4] - 1))

    block_rows = []
    fts_rows = []
    passage_rows = []
    rates = []
    passage_tokens = 0
    for b, (dn, k, t0, t1, _) in enumerate(blocks):
        d, _, n_in_doc, _ = doc_rows[dn]
        first, last = spans[b]
        bid = block_base + b
        span = _span(word_idx, starts, ends, char_at, lengths, first, last)
        block_rows.append((bid, recording_id, doc_base + dn, k, *span, t1 - t0, tok_global[t0:t1].tobytes(),
                           word_idx[tok_word[t0:t1]].astype(np.int32).tobytes(),
                           char_at[first : last + 2].astype(np.int32).tobytes()))
        fts_rows.append((bid, " ".join(vocab[tok_local[t0:t1]])))
        if span[3] > span[2]:
            rates.append((last - first + 1) / (span[3] - span[2]))
        if k < n_in_doc - 1 or n_in_doc == 1:  # block b opens a passage: itself and the next block
            e = b + 1 if k < n_in_doc - 1 else b
            passage_tokens += blocks[e][3] - t0
            passage_rows.append((bid, recording_id, d.story_idx,
                                 *_span(word_idx, starts, ends, char_at, lengths, first, spans[e][1])))

    doc_table = [
        (doc_base + dn, recording_id, d.story_idx, block_base + first_block, n_in_doc,
         *_span(word_idx, starts, ends, char_at, lengths, d.first, d.last), n_tok)
        for dn, (d, first_block, n_in_doc, n_tok) in enumerate(doc_rows)
    ]
    conn.executemany(
        "INSERT INTO search_docs (id, recording_id, story_idx, first_block, n_blocks, first_word, last_word,"
        " start, end, char_start, char_end, n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        doc_table,
    )
    conn.executemany(
        "INSERT INTO search_blocks (id, recording_id, doc_id, idx, first_word, last_word, start, end, char_start,"
        " char_end, n_tokens, tokens, positions, word_chars) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        block_rows,
    )
    conn.executemany("INSERT INTO search_blocks_fts (rowid, text) VALUES (?, ?)", fts_rows)
    conn.executemany(
        "INSERT INTO passages (id, recording_id, story_idx, first_word, last_word, start, end, char_start, char_end)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        passage_rows,
    )
    rate = float(np.median(rates)) if rates else 0.0
    counts = (len(tok_global), n_blocks_total, len(passage_rows), passage_tokens, len(doc_rows))
    _write_recording_row(store, recording_id, counts, rate, date)
    return len(passage_rows)


def _span(
    word_idx: np.ndarray, starts: np.ndarray, ends: np.ndarray, char_at: np.ndarray, lengths: np.ndarray,
    first: int, last: int,
) -> tuple[int, int, float, float, int, int]:
    """(first word, last word, start s, end s, char start, char end exclusive) of word positions first..last."""
    return (int(word_idx[first]), int(word_idx[last]), float(starts[first]), float(ends[last]),
            int(char_at[first]), int(char_at[last] + lengths[last]))


def _delete_passage_rows(store: Store, recording_id: int) -> None:
    # Triggers take the FTS rows and the library-wide term counts with them.
    for table in ("search_blocks", "search_docs", "passages", "search_recording_terms", "search_recordings"):
        store.conn.execute(f"DELETE FROM {table} WHERE recording_id = ?", [recording_id])


def _documents(store: Store, recording_id: int, word_idx: np.ndarray) -> list[_Doc]:
    """Stories as word-position ranges, with the words outside them as extra documents."""
    n = len(word_idx)
    stories = store.conn.execute(
        "SELECT idx, first_word, last_word FROM stories WHERE recording_id = ? ORDER BY first_word, idx", [recording_id]
    ).fetchall()
    docs: list[_Doc] = []
    at = 0  # first word position not yet in a document
    for idx, first_word, last_word in stories:
        first = max(int(np.searchsorted(word_idx, first_word, "left")), at)
        last = min(int(np.searchsorted(word_idx, last_word, "right")) - 1, n - 1)
        if last < first:
            continue
        if first > at:
            docs.append(_Doc(None, at, first - 1))
        docs.append(_Doc(int(idx), first, last))
        at = last + 1
    if at < n:
        docs.append(_Doc(None, at, n - 1))
    return docs


def _upsert_terms(
    store: Store,
    recording_id: int,
    vocab: np.ndarray,
    tok_local: np.ndarray,
    blocks: Sequence[tuple[int, int, int, int, int]],
    doc_rows: Sequence[tuple[_Doc, int, int, int]],
) -> np.ndarray:
    """Add this recording's term counts to the library's; return the global id of each local term."""
    if len(vocab) == 0:
        return np.array([], dtype=np.int64)
    n_vocab = len(vocab)
    cf = np.bincount(tok_local, minlength=n_vocab)
    # Passage document frequency: block b is in the passage it opens and in the one its predecessor opens.
    block_of_token = np.repeat(np.arange(len(blocks)), [t1 - t0 for _, _, t0, t1, _ in blocks])
    k = np.array([blk[1] for blk in blocks], dtype=np.int64)
    n_in_doc = np.array([doc_rows[blk[0]][2] for blk in blocks], dtype=np.int64)
    opens = (k < n_in_doc - 1) | (n_in_doc == 1)
    pairs = np.unique(block_of_token * n_vocab + tok_local)
    pb, pt = pairs // n_vocab, pairs % n_vocab
    passage_of = np.concatenate([pb[opens[pb]], pb[k[pb] >= 1] - 1])
    term_of = np.concatenate([pt[opens[pb]], pt[k[pb] >= 1]])
    df = np.bincount(np.unique(passage_of * n_vocab + term_of) % n_vocab, minlength=n_vocab)
    conn = store.conn
    texts = [str(t) for t in vocab]
    conn.executemany(
        "INSERT INTO search_terms (text, cf, df) VALUES (?, ?, ?)"
        " ON CONFLICT(text) DO UPDATE SET cf = cf + excluded.cf, df = df + excluded.df",
        zip(texts, cf.tolist(), df.tolist(), strict=True),
    )
    found = dict(
        conn.execute(
            "SELECT text, id FROM search_terms WHERE text IN (SELECT value FROM json_each(?))", [json.dumps(texts)]
        ).fetchall()
    )
    ids = np.fromiter((found[t] for t in texts), dtype=np.int64, count=n_vocab)
    conn.executemany(
        "INSERT INTO search_recording_terms (recording_id, term_id, cf, df) VALUES (?, ?, ?, ?)",
        zip([recording_id] * n_vocab, ids.tolist(), cf.tolist(), df.tolist(), strict=True),
    )
    return ids


def _write_recording_row(
    store: Store, recording_id: int, counts: tuple[int, int, int, int, int], rate: float, date: str
) -> None:
    store.conn.execute(
        "INSERT INTO search_recordings (recording_id, n_tokens, n_blocks, n_passages, passage_tokens, n_docs,"
        " words_per_second, broadcast_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [recording_id, *counts, rate, date],
    )


def _broadcast_date(name: str, ingested_at: float) -> str:
    """YYYY-MM-DD found in the recording's name, else the day it was ingested (UTC)."""
    for m in _DATE_IN_NAME.finditer(name):
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            continue
    return dt.datetime.fromtimestamp(ingested_at, dt.UTC).date().isoformat()


def transcript_text(store: Store, recording_id: int) -> str:
    """The text character offsets refer to: the recording's words joined by single spaces."""
    rows = store.conn.execute("SELECT text FROM words WHERE recording_id = ? ORDER BY idx", [recording_id]).fetchall()
    return " ".join(r[0] for r in rows)


# -- query side -----------------------------------------------------------------


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


def corpus_totals(store: Store) -> CorpusTotals:
    row = store.conn.execute(
        "SELECT coalesce(sum(n_tokens), 0), coalesce(sum(n_passages), 0), coalesce(sum(passage_tokens), 0),"
        " coalesce(sum(n_docs), 0) FROM search_recordings"
    ).fetchone()
    return CorpusTotals(*(int(v) for v in row))


def terms_by_text(store: Store, texts: Sequence[str]) -> dict[str, tuple[int, int, int]]:
    """``text -> (id, cf, df)`` for the given terms that occur in the library."""
    rows = store.conn.execute(
        "SELECT text, id, cf, df FROM search_terms WHERE text IN (SELECT value FROM json_each(?)) AND cf > 0",
        [json.dumps(list(texts))],
    ).fetchall()
    return {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}


def terms_with_prefix(store: Store, prefix: str, *, limit: int) -> list[tuple[str, int]]:
    """The ``limit`` commonest library terms starting with ``prefix``: (text, cf), commonest first.

    A range scan of the term table's text index (what an FTS5 prefix query does on its own
    vocabulary), so it costs the same for one letter as for ten.
    """
    if not prefix:
        return []
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    rows = store.conn.execute(
        "SELECT text, cf FROM search_terms WHERE text >= ? AND text < ? AND cf > 0 ORDER BY cf DESC, text LIMIT ?",
        [prefix, upper, int(limit)],
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def terms_like(store: Store, term: str, *, spread: int) -> list[tuple[str, int]]:
    """Library terms that may be a misspelling's intended word: within ``spread`` characters of
    ``term``'s length and sharing its first or its last letter. (text, cf)."""
    rows = store.conn.execute(
        "SELECT text, cf FROM search_terms WHERE cf > 0 AND length(text) BETWEEN ? AND ?"
        " AND (substr(text, 1, 1) = ? OR substr(text, -1, 1) = ?)",
        [len(term) - spread, len(term) + spread, term[:1], term[-1:]],
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def collection_frequencies(store: Store, term_ids: np.ndarray) -> np.ndarray:
    """cf of each term id (0 for unknown ids), in the order given."""
    rows = store.conn.execute(
        "SELECT id, cf FROM search_terms WHERE id IN (SELECT value FROM json_each(?))", [json.dumps(term_ids.tolist())]
    ).fetchall()
    if not rows:
        return np.zeros(len(term_ids))
    ids, cfs = (np.asarray(c) for c in zip(*rows, strict=True))
    order = np.argsort(ids)
    pos = np.clip(np.searchsorted(ids[order], term_ids), 0, len(ids) - 1)
    found = ids[order][pos] == term_ids
    return np.where(found, cfs[order][pos], 0).astype(np.float64)


@dataclass(frozen=True)
class Filters:
    """Query-side restrictions, as :class:`engine.search.SearchFilters` passes them down."""

    recording_ids: tuple[int, ...] = ()
    date_from: str | None = None
    date_to: str | None = None
    event_types: tuple[str, ...] = ()
    entity: str | None = None
    entity_type: str | None = None


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
        params += [json.dumps(list(filters.event_types)), config.EVENT_MARGIN_SECONDS, config.EVENT_MARGIN_SECONDS]
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


def fts_blocks(store: Store, match: str) -> np.ndarray:
    """Ids of every block an FTS5 MATCH expression matches (unranked: FTS5's bm25 costs a
    row lookup per match, so ranking is done on these ids in numpy)."""
    rows = store.conn.execute("SELECT rowid FROM search_blocks_fts WHERE search_blocks_fts MATCH ?", [match]).fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def block_docs(store: Store, block_ids: np.ndarray, filters: Filters | None) -> tuple[np.ndarray, np.ndarray]:
    """(block ids, their doc ids) of the blocks that pass the filters."""
    where, params = _filter_sql(filters, "b")
    rows = store.conn.execute(
        f"SELECT b.id, b.doc_id FROM json_each(?) j JOIN search_blocks b ON b.id = j.value WHERE 1{where}",
        [json.dumps(block_ids.tolist()), *params],
    ).fetchall()
    if not rows:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    ids, docs = zip(*rows, strict=True)
    return np.asarray(ids, dtype=np.int64), np.asarray(docs, dtype=np.int64)


def fts_bm25_blocks(store: Store, match: str, *, limit: int) -> list[tuple[Any, ...]]:
    """SQLite FTS5's own bm25 ranking of blocks (a baseline): (block id, recording id, first word,
    last word, start, end, char start, char end, bm25 score), best first."""
    return store.conn.execute(
        "SELECT b.id, b.recording_id, b.first_word, b.last_word, b.start, b.end, b.char_start, b.char_end,"
        " -f.rank FROM search_blocks_fts f JOIN search_blocks b ON b.id = f.rowid"
        " WHERE search_blocks_fts MATCH ? ORDER BY f.rank LIMIT ?",
        [match, limit],
    ).fetchall()


DOC_COLUMNS = ("id", "recording_id", "story_idx", "first_block", "n_blocks", "first_word", "last_word",
               "start", "end", "char_start", "char_end", "n_tokens")


def doc_rows(store: Store, doc_ids: np.ndarray) -> dict[str, np.ndarray]:
    """The documents' rows as column arrays, in the order of ``doc_ids`` (story_idx -1: none)."""
    select = ", ".join("coalesce(d.story_idx, -1)" if c == "story_idx" else "d." + c for c in DOC_COLUMNS)
    rows = store.conn.execute(
        f"SELECT {select} FROM json_each(?) j JOIN search_docs d ON d.id = j.value ORDER BY j.key",
        [json.dumps(doc_ids.tolist())],
    ).fetchall()
    cols = list(zip(*rows, strict=True)) if rows else [() for _ in DOC_COLUMNS]
    return {
        c: np.asarray(v, dtype=np.float64 if c in ("start", "end") else np.int64)
        for c, v in zip(DOC_COLUMNS, cols, strict=True)
    }


BLOCK_COLUMNS = ("id", "recording_id", "doc_id", "idx", "first_word", "last_word", "start", "end",
                 "char_start", "char_end", "n_tokens")


def block_rows(
    store: Store, doc_ids: np.ndarray, *, with_word_chars: bool = False
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """All blocks of the documents, grouped by document in the order given, and their tokens.

    Returns (block columns, token arrays): tokens have ``term`` (int64 term id),
    ``position`` (word index) and, with ``with_word_chars``, the blocks'
    ``word_chars`` offsets concatenated (``word_chars_lo`` gives each block's start).
    """
    extra = ", b.word_chars" if with_word_chars else ""
    rows = store.conn.execute(
        f"SELECT {', '.join('b.' + c for c in BLOCK_COLUMNS)}, b.tokens, b.positions{extra}"
        " FROM json_each(?) j JOIN search_blocks b ON b.doc_id = j.value ORDER BY j.key, b.idx",
        [json.dumps(doc_ids.tolist())],
    ).fetchall()
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


def word_times(store: Store, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], tuple[float, float]]:
    """``(recording id, word index) -> (start, end)`` in seconds."""
    rows = store.conn.execute(
        "SELECT w.recording_id, w.idx, w.start, w.end FROM json_each(?) j"
        " JOIN words w ON w.recording_id = json_extract(j.value, '$[0]') AND w.idx = json_extract(j.value, '$[1]')",
        [json.dumps([list(p) for p in pairs])],
    ).fetchall()
    return {(int(r[0]), int(r[1])): (float(r[2]), float(r[3])) for r in rows}


def word_texts(store: Store, ranges: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, str]]:
    """Words of each ``(recording id, first word, last word)`` range: (range number, word index, text),
    the text as the recogniser wrote it (cased, punctuated) where it differs from the token."""
    return _words_in_ranges(store, ranges, "COALESCE(w.display, w.text)")


def word_rows(store: Store, ranges: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, float, float, str]]:
    """Words of each ``(recording id, first word, last word)`` range: (range number, index, start, end, text)."""
    return _words_in_ranges(store, ranges, "w.start, w.end, w.text")


def _words_in_ranges(store: Store, ranges: Sequence[tuple[int, int, int]], columns: str) -> list[Any]:
    """(range number, word index, *columns) of the words of every range, in one query; ``columns`` is ours."""
    return store.conn.execute(
        f"SELECT j.key, w.idx, {columns} FROM json_each(?) j JOIN words w"
        " ON w.recording_id = json_extract(j.value, '$[0]')"
        " AND w.idx BETWEEN json_extract(j.value, '$[1]') AND json_extract(j.value, '$[2]')"
        " ORDER BY j.key, w.idx",
        [json.dumps([list(r) for r in ranges])],
    ).fetchall()


def events_near(store: Store, recording_ids: Sequence[int], types: Sequence[str] | None = None) -> list[tuple[Any, ...]]:
    """Events of the recordings (optionally only some types): (recording id, type, start, end, score, value)."""
    sql = ("SELECT recording_id, type, start, end, score, value FROM events"
           " WHERE recording_id IN (SELECT value FROM json_each(?))")
    params: list[Any] = [json.dumps(sorted(set(recording_ids)))]
    if types is not None:
        sql += " AND type IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(list(types)))
    return store.conn.execute(sql + " ORDER BY recording_id, start", params).fetchall()


def entities_matching(store: Store, recording_ids: Sequence[int], terms: Sequence[str]) -> list[tuple[Any, ...]]:
    """Entities in the recordings whose text contains one of the terms (case-insensitive, whole
    tokens checked by the caller): (recording id, first word, last word, type, text)."""
    if not terms:
        return []
    likes = " OR ".join(["lower(text) LIKE ? ESCAPE '\\'"] * len(terms))
    params: list[Any] = [json.dumps(sorted(set(recording_ids)))]
    params += ["%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for t in terms]
    return store.conn.execute(
        "SELECT recording_id, first_word, last_word, type, text FROM entities"
        f" WHERE recording_id IN (SELECT value FROM json_each(?)) AND ({likes})",
        params,
    ).fetchall()


def passing_blocks(store: Store, block_ids: np.ndarray, filters: Filters) -> np.ndarray:
    """Boolean mask: which of the blocks satisfy the event and entity filters."""
    where, params = _filter_sql(Filters(event_types=filters.event_types, entity=filters.entity,
                                        entity_type=filters.entity_type), "b")
    if not where:
        return np.ones(len(block_ids), dtype=bool)
    rows = store.conn.execute(
        f"SELECT b.id FROM search_blocks b WHERE b.id IN (SELECT value FROM json_each(?)){where}",
        [json.dumps(block_ids.tolist()), *params],
    ).fetchall()
    ok = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return np.isin(block_ids, ok)


def recordings_by_id(store: Store, recording_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    rows = store.conn.execute(
        "SELECT r.id, r.name, r.path, s.words_per_second, s.broadcast_date FROM recordings r"
        " LEFT JOIN search_recordings s ON s.recording_id = r.id WHERE r.id IN (SELECT value FROM json_each(?))",
        [json.dumps(sorted(set(int(i) for i in recording_ids)))],
    ).fetchall()
    return {
        int(r[0]): {"name": r[1], "path": r[2], "words_per_second": float(r[3] or 0.0), "date": r[4]} for r in rows
    }
