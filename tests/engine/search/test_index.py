"""index_passages: blocks, 100-token half-overlapping passages, spans, and library-wide statistics."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.errors import NotFoundError
from engine.search import index_passages, transcript_text
from engine.search.text import terms, word_terms
from engine.storage.passages import PassageIndex
from engine.storage.store import Store

from .conftest import VOCABULARY, add_recording, random_text


def expected_passages(words: list[str], docs: list[tuple[int, int]]) -> list[tuple[int, int, list[str]]]:
    """(first word, last word, terms) of every passage by the definition: windows of 100 stopped
    tokens every 50 tokens inside each document, from the document's first word (first window) or the
    window's first token, to the word before the next window's half (or the document's end)."""
    out = []
    for a, b in docs:
        toks, where = word_terms(words[a : b + 1])
        where = [w + a for w in where]
        if not toks:
            continue
        starts = list(range(0, len(toks), 50))
        block_first = [a if k == 0 else where[s] for k, s in enumerate(starts)]
        block_last = [block_first[k + 1] - 1 for k in range(len(starts) - 1)] + [b]
        pairs = [(k, k + 1) for k in range(len(starts) - 1)] or [(0, 0)]
        for k, e in pairs:
            out.append((block_first[k], block_last[e], toks[starts[k] : starts[e] + 50]))
    return out


@pytest.mark.parametrize("stories", [None, [(0, 149), (150, 400), (420, 559)]], ids=["whole-recording", "stories-with-gaps"])
def test_passages_follow_the_definition(rng, stories):
    store = Store(":memory:")
    text = random_text(rng, 560, VOCABULARY)
    rid = add_recording(store, "a.wav", text, stories=stories)
    words = text.split()
    docs = stories or [(0, 559)]
    gaps = [(0, 559)] if stories is None else [(0, 149), (150, 400), (401, 419), (420, 559)]
    want = expected_passages(words, gaps if stories else docs)
    rows = store.conn.execute(
        "SELECT first_word, last_word, char_start, char_end, story_idx FROM passages WHERE recording_id = ? ORDER BY id",
        [rid]).fetchall()
    assert [(r[0], r[1]) for r in rows] == [(a, b) for a, b, _ in want]
    full = transcript_text(store, rid)
    for (first, last, c0, c1, _), (_, _, toks) in zip(rows, want, strict=True):
        assert full[c0:c1] == " ".join(words[first : last + 1])
        assert Counter(terms(full[c0:c1])) == Counter(toks)
        assert len(toks) <= 100
    if stories:
        assert {r[4] for r in rows} == {0, 1, 2, None}  # words between stories are a document of their own


def test_library_statistics_are_exact_and_incremental(rng):
    store = Store(":memory:")
    texts = [random_text(rng, n, VOCABULARY) for n in (300, 170, 45)]
    ids = [add_recording(store, f"r{k}.wav", t) for k, t in enumerate(texts)]
    cf = Counter(t for text in texts for t in terms(text))
    df: Counter[str] = Counter()
    for text in texts:
        for _, _, toks in expected_passages(text.split(), [(0, len(text.split()) - 1)]):
            df.update(set(toks))
    got = {r[0]: (r[1], r[2]) for r in store.conn.execute("SELECT text, cf, df FROM search_terms")}
    assert got == {t: (cf[t], df[t]) for t in cf}
    totals = PassageIndex(store).corpus_totals()
    assert totals.n_tokens == sum(cf.values())
    assert totals.n_passages == store.counts()["passages"] == sum(df_n for df_n in [len(expected_passages(
        t.split(), [(0, len(t.split()) - 1)])) for t in texts])

    store.remove_recording(ids[0])  # cascades and triggers take its share back out
    cf_rest = Counter(t for text in texts[1:] for t in terms(text))
    got = {r[0]: r[1] for r in store.conn.execute("SELECT text, cf FROM search_terms WHERE cf > 0")}
    assert got == dict(cf_rest)
    for table in ("search_blocks", "search_docs", "search_recording_terms", "search_recordings", "passages"):
        assert store.conn.execute(f"SELECT count(*) FROM {table} WHERE recording_id = ?", [ids[0]]).fetchone()[0] == 0
    n_fts = store.conn.execute("SELECT count(*) FROM search_blocks_fts").fetchone()[0]
    assert n_fts == store.conn.execute("SELECT count(*) FROM search_blocks").fetchone()[0]


def test_reindexing_after_stories_replaces_everything(rng):
    store = Store(":memory:")
    text = random_text(rng, 400, VOCABULARY)
    rid = add_recording(store, "a.wav", text)
    before = store.conn.execute("SELECT cf FROM search_terms ORDER BY id").fetchall()
    with store.atomic():
        store.conn.execute("INSERT INTO stories (recording_id, idx, first_word, last_word, start, end)"
                           " VALUES (?, 0, 0, 199, 0, 80), (?, 1, 200, 399, 80, 160)", [rid, rid])
        n = index_passages(store, rid)
    assert store.conn.execute("SELECT cf FROM search_terms ORDER BY id").fetchall() == before
    assert store.conn.execute("SELECT count(*) FROM search_docs").fetchone()[0] == 2
    assert n == store.counts()["passages"]
    assert store.conn.execute("SELECT count(*) FROM passages WHERE first_word <= 199 AND last_word >= 200").fetchone()[0] == 0


def test_runs_inside_the_callers_transaction(rng):
    store = Store(":memory:")
    rid = add_recording(store, "a.wav", random_text(rng, 300, VOCABULARY))
    before = store.counts()["passages"]
    with pytest.raises(RuntimeError), store.atomic():
        index_passages(store, rid)
        store.conn.execute("DELETE FROM search_terms")
        raise RuntimeError("roll back")
    assert store.conn.execute("SELECT count(*) FROM search_terms").fetchone()[0] > 0
    assert store.counts()["passages"] == before > 1


def test_a_recording_of_stop_words_or_no_words():
    store = Store(":memory:")
    assert add_recording(store, "hum.wav", "the of and uh um the") and store.counts()["passages"] == 0
    with pytest.raises(NotFoundError):
        index_passages(store, 999)


@pytest.mark.parametrize(
    ("name", "date"),
    [("2006-06-13_0000_US_KABC.mp4", "2006-06-13"), ("news_20210704.wav", "2021-07-04"), ("news_20211304.wav", None)],
    ids=["dashed", "compact", "not-a-date"],
)
def test_broadcast_date_from_the_name(name, date):
    store = Store(":memory:")
    rid = add_recording(store, name, "council budget hospital " * 20)
    got = store.conn.execute("SELECT broadcast_date FROM search_recordings WHERE recording_id = ?", [rid]).fetchone()[0]
    ingested = store.conn.execute("SELECT date(ingested_at, 'unixepoch') FROM recordings WHERE id = ?", [rid]).fetchone()[0]
    assert got == (date or ingested)
