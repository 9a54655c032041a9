"""Passage statistics for one recording: the block maths between the reads and the writes.

:func:`index_passages` cuts one recording into documents (its stories, or the whole
recording), blocks of 50 stopped tokens and 100-token half-overlapping passages (two
neighbouring blocks), and stores per block the term ids in text order, so that every
statistic a ranking model needs is a sum over blocks. Library-wide counts
(``search_terms``: collection frequency and passage document frequency) are updated
incrementally; a trigger takes a recording's share back out when its rows go. Every
SQL statement is in :class:`engine.storage.passages.PassageIndex`.

Character offsets refer to the recording's *transcript text*: its words joined by
single spaces (:func:`transcript_text`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.search import config
from engine.search.text import word_terms
from engine.storage.passages import (
    BlockRow,
    DocRow,
    PassageIndex,
    PassageRow,
    RecordingStats,
    RecordingText,
    Span,
    TermCounts,
)
from engine.storage.store import Store

_DATE_IN_NAME = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")


@dataclass(frozen=True)
class _Doc:
    story_idx: int | None
    first: int  # word positions, inclusive
    last: int


@dataclass(frozen=True)
class _Block:
    """A block before it has ids: its document (number in the list), number inside it, tokens [lo, hi)."""

    doc: int
    idx: int
    tok_lo: int
    tok_hi: int
    first: int  # word position of its first word


@dataclass(frozen=True)
class _DocBlocks:
    """A document and where its blocks are in the recording's block list."""

    doc: _Doc
    first_block: int
    n_blocks: int
    n_tokens: int


@dataclass(frozen=True)
class PassageRows:
    """Everything :class:`PassageIndex.write` stores for one recording."""

    docs: list[DocRow]
    blocks: list[BlockRow]
    passages: list[PassageRow]
    stats: RecordingStats


def index_passages(store: Store, recording_id: int) -> int:
    """(Re)build the passages and their statistics for one recording; return the passage count.

    Documents are the recording's stories when the ``stories`` table has rows
    for it (words outside every story form documents of their own, with
    ``story_idx`` NULL), else the whole recording; commercial blocks are left out, so an
    advertisement is never a hit. Runs inside the caller's
    transaction: it neither begins nor commits one.
    """
    index = PassageIndex(store)
    text = index.recording_text(recording_id)
    index.delete(recording_id)
    block_base, doc_base = index.next_ids()
    rows = passage_rows(text, block_base=block_base, doc_base=doc_base,
                        term_ids=lambda counts: index.add_terms(recording_id, counts))
    index.write(recording_id, rows.docs, rows.blocks, rows.passages, rows.stats)
    return len(rows.passages)


def reindex_stale(store: Store, *, progress: Callable[[int, int], object] | None = None) -> int:
    """Re-index the recordings indexed under older term rules than ``config.TERMS_VERSION``, each in
    its own transaction (an interrupted run keeps what it finished); return how many.

    ``progress(done, total)`` is called after each recording.
    """
    stale = PassageIndex(store).stale_recordings(config.TERMS_VERSION)
    for done, recording_id in enumerate(stale, 1):
        with store.atomic():
            index_passages(store, recording_id)
        if progress is not None:
            progress(done, len(stale))
    return len(stale)


def passage_rows(text: RecordingText, *, block_base: int, doc_base: int,
                 term_ids: Callable[[TermCounts], np.ndarray]) -> PassageRows:
    """The block maths: documents, blocks and passages of one recording, ids from the bases given.

    ``term_ids(counts)`` adds the recording's term counts to the library and returns each term's
    global id (shape (n_terms,)).
    """
    date = _broadcast_date(text.name, text.ingested_at)
    if not len(text.word_idx):
        return PassageRows([], [], [], RecordingStats(broadcast_date=date, terms_version=config.TERMS_VERSION))
    word_idx, starts, ends = text.word_idx, text.starts, text.ends
    lengths = np.fromiter(map(len, text.texts), dtype=np.int64, count=len(text.texts))
    char_at = np.concatenate([[0], np.cumsum(lengths + 1)])  # char offset of word i; last = len(text) + 1

    def span(first: int, last: int) -> Span:
        """Word positions first..last as indexes, seconds and characters (end exclusive)."""
        return Span(int(word_idx[first]), int(word_idx[last]), float(starts[first]), float(ends[last]),
                    int(char_at[first]), int(char_at[last] + lengths[last]))

    term_texts, term_word = word_terms(text.texts)
    tok_word = np.asarray(term_word, dtype=np.int64)
    docs = _documents(text.stories, word_idx)
    if text.commercials:  # an advertisement's words are in no document, no block and no statistic
        unsearched = np.zeros(len(word_idx) + 1, dtype=np.int64)
        for ad in (doc for doc in docs if doc.story_idx in text.commercials):
            unsearched[ad.first] += 1
            unsearched[ad.last + 1] -= 1
        keep = np.cumsum(unsearched)[:-1][tok_word] == 0 if len(tok_word) else np.zeros(0, dtype=bool)
        term_texts = [t for t, k in zip(term_texts, keep.tolist(), strict=True) if k]
        tok_word = tok_word[keep]
        docs = [doc for doc in docs if doc.story_idx not in text.commercials]
    vocab, tok_local = np.unique(np.asarray(term_texts, dtype=object), return_inverse=True) if term_texts else (
        np.array([], dtype=object), np.array([], dtype=np.int64))
    blocks, doc_blocks = _cut_blocks(docs, tok_word)
    ids = term_ids(_term_counts(vocab, tok_local, blocks, doc_blocks))
    tok_global = ids[tok_local].astype(np.int32) if len(tok_local) else np.array([], dtype=np.int32)

    spans = []  # (first, last) word position of each block; blocks tile their document
    for b, blk in enumerate(blocks):
        d = doc_blocks[blk.doc]
        spans.append((blk.first, d.doc.last if blk.idx == d.n_blocks - 1 else blocks[b + 1].first - 1))

    block_rows: list[BlockRow] = []
    passage_rows: list[PassageRow] = []
    rates = []
    passage_tokens = 0
    for b, blk in enumerate(blocks):
        d = doc_blocks[blk.doc]
        first, last = spans[b]
        bid = block_base + b
        s = span(first, last)
        t0, t1 = blk.tok_lo, blk.tok_hi
        block_rows.append(BlockRow(
            id=bid, doc_id=doc_base + blk.doc, idx=blk.idx, span=s, n_tokens=t1 - t0,
            tokens=tok_global[t0:t1].tobytes(), positions=word_idx[tok_word[t0:t1]].astype(np.int32).tobytes(),
            word_chars=char_at[first : last + 2].astype(np.int32).tobytes(),
            fts_text=" ".join(vocab[tok_local[t0:t1]]),
        ))
        if s.end > s.start:
            rates.append((last - first + 1) / (s.end - s.start))
        if blk.idx < d.n_blocks - 1 or d.n_blocks == 1:  # block b opens a passage: itself and the next block
            e = b + 1 if blk.idx < d.n_blocks - 1 else b
            passage_tokens += blocks[e].tok_hi - t0
            passage_rows.append(PassageRow(bid, d.doc.story_idx, span(first, spans[e][1])))

    doc_rows = [
        DocRow(doc_base + dn, d.doc.story_idx, block_base + d.first_block, d.n_blocks,
               span(d.doc.first, d.doc.last), d.n_tokens)
        for dn, d in enumerate(doc_blocks)
    ]
    stats = RecordingStats(
        n_tokens=len(tok_global), n_blocks=len(blocks), n_passages=len(passage_rows), passage_tokens=passage_tokens,
        n_docs=len(doc_blocks), words_per_second=float(np.median(rates)) if rates else 0.0, broadcast_date=date,
        terms_version=config.TERMS_VERSION,
    )
    return PassageRows(doc_rows, block_rows, passage_rows, stats)


def _cut_blocks(docs: Sequence[_Doc], tok_word: np.ndarray) -> tuple[list[_Block], list[_DocBlocks]]:
    """Blocks of ``config.BLOCK_TOKENS`` tokens tiling each document that has any token."""
    blocks: list[_Block] = []
    doc_blocks: list[_DocBlocks] = []
    for d in docs:
        lo = int(np.searchsorted(tok_word, d.first, "left"))
        hi = int(np.searchsorted(tok_word, d.last, "right"))
        if hi == lo:
            continue  # nothing but stop words: nothing to find
        n_blocks = -(-(hi - lo) // config.BLOCK_TOKENS)
        doc_blocks.append(_DocBlocks(d, len(blocks), n_blocks, hi - lo))
        for k in range(n_blocks):
            t0 = lo + k * config.BLOCK_TOKENS
            blocks.append(_Block(len(doc_blocks) - 1, k, t0, min(t0 + config.BLOCK_TOKENS, hi),
                                 d.first if k == 0 else int(tok_word[t0])))
    return blocks, doc_blocks


def _documents(stories: Sequence[tuple[int, int, int]], word_idx: np.ndarray) -> list[_Doc]:
    """Stories (idx, first word, last word) as word-position ranges, with the words outside them as
    extra documents."""
    n = len(word_idx)
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


def _term_counts(vocab: np.ndarray, tok_local: np.ndarray, blocks: Sequence[_Block],
                 doc_blocks: Sequence[_DocBlocks]) -> TermCounts:
    """Collection frequency and passage document frequency of each local term."""
    n_vocab = len(vocab)
    if n_vocab == 0:
        return TermCounts([], np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    cf = np.bincount(tok_local, minlength=n_vocab)
    # Passage document frequency: block b is in the passage it opens and in the one its predecessor opens.
    block_of_token = np.repeat(np.arange(len(blocks)), [b.tok_hi - b.tok_lo for b in blocks])
    k = np.array([b.idx for b in blocks], dtype=np.int64)
    n_in_doc = np.array([doc_blocks[b.doc].n_blocks for b in blocks], dtype=np.int64)
    opens = (k < n_in_doc - 1) | (n_in_doc == 1)
    pairs = np.unique(block_of_token * n_vocab + tok_local)
    pb, pt = pairs // n_vocab, pairs % n_vocab
    passage_of = np.concatenate([pb[opens[pb]], pb[k[pb] >= 1] - 1])
    term_of = np.concatenate([pt[opens[pb]], pt[k[pb] >= 1]])
    df = np.bincount(np.unique(passage_of * n_vocab + term_of) % n_vocab, minlength=n_vocab)
    return TermCounts([str(t) for t in vocab], cf, df)


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
    return PassageIndex(store).transcript_text(recording_id)
