"""Passage search: quality of the six models and two peers on a data-derived test collection, and
speed at 1,000 hours.

Quality: the Lee articles and NewsScape caption days as recordings (engine/evaluate/collection.py),
indexed through Store.save_recording + index_passages, once with the source's story boundaries in
the stories table and once without. Every story of >= 60 words is a topic (query: its rarest
headline words; judged: the story, sentence by sentence). Runs of 100 passages per topic from
tfidf, ql, rmp, rmd, mm, qwd, SQLite FTS5's bm25 over the index's blocks, and bm25s (PyPI) over the
same 100-token passages; every measure of section 2 in characters and in seconds, two-tailed
paired t-tests, and the paper's Figure 1 (halving passages) on the mm run.

Scale: NewsScape recordings copied with shuffled stories and 5% of words swapped until the index
holds ~9 million words (~1,000 hours of speech at 150 words a minute); build time, index size,
then query latency (p50/p95) of every model, of FTS5 bm25 alone and of bm25s, same queries, same run.

Writes bench/results/search.json and search.md.
Run: ``.venv/bin/python -m bench.search_bench [--quick] [--words 9000000] [--skip-scale]``.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import SHARED, bench_parser, machine, write_result
from engine.evaluate.collection import (
    SourceRecording,
    Topic,
    doc_id,
    index_recordings,
    judgements,
    lee_recordings,
    make_topics,
    newsscape_recordings,
    perturbed_copy,
    run_rows,
)
from engine.evaluate.passages import (
    Judgement,
    Retrieved,
    compare,
    comparison_table,
    evaluate_run,
    halve_passages,
)
from engine.search import MODELS, search
from engine.search.text import fts_match, terms
from engine.storage.passages import PassageIndex
from engine.storage.store import Store

DEPTH = 100
PEERS = ("fts5", "bm25s")


# -- quality ------------------------------------------------------------------------------------------


def passage_texts(store: Store) -> tuple[list[str], list[tuple[str, int, int, float, float]]]:
    """Every passage's stopped terms (two neighbouring blocks) and (doc, char span, seconds) for bm25s."""
    rows = store.conn.execute(
        "SELECT p.id, r.name, p.char_start, p.char_end, p.start, p.end,"
        " (SELECT group_concat(f.text, ' ') FROM search_blocks b JOIN search_blocks_fts f ON f.rowid = b.id"
        "  WHERE b.recording_id = p.recording_id AND b.first_word >= p.first_word AND b.last_word <= p.last_word)"
        " FROM passages p JOIN recordings r ON r.id = p.recording_id ORDER BY p.id"
    ).fetchall()
    return [r[6] or "" for r in rows], [(doc_id(r[1]), r[2], r[3], r[4], r[5]) for r in rows]


def trimmed(rows: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """Cut every span to what no better span covered (as search() does), dropping empty ones."""
    seen: dict[str, list[tuple[float, float]]] = {}
    out = []
    for doc, a, b in rows:
        pieces = [(a, b)]
        for c, d in seen.get(doc, []):
            pieces = [p for x, y in pieces for p in ((x, min(y, c)), (max(x, d), y)) if p[1] > p[0]]
        out += [(doc, x, y) for x, y in pieces]
        seen.setdefault(doc, []).append((a, b))
    return out


def peer_runs(store: Store, topics: Sequence[Topic]) -> dict[str, dict[str, dict[str, list[Retrieved]]]]:
    """fts5 (bm25 over blocks) and bm25s (over passages) runs, in both units."""
    import bm25s

    out: dict[str, dict[str, dict[str, list[Retrieved]]]] = {p: {"chars": {}, "seconds": {}} for p in PEERS}
    for t in topics:
        rows = PassageIndex(store).fts_bm25_blocks(fts_match(dict.fromkeys(terms(t.query))), limit=DEPTH)
        names = dict(store.conn.execute("SELECT id, name FROM recordings").fetchall())
        out["fts5"]["chars"][t.id] = [Retrieved(t.id, doc_id(names[r[1]]), r[6], r[7] - r[6], k + 1, r[8])
                                      for k, r in enumerate(rows)]
        out["fts5"]["seconds"][t.id] = [Retrieved(t.id, doc_id(names[r[1]]), r[4], r[5] - r[4], k + 1, r[8])
                                        for k, r in enumerate(rows)]
    texts, spans = passage_texts(store)
    retriever = bm25s.BM25()
    retriever.index([s.split() for s in texts], show_progress=False)
    for t in topics:
        q = terms(t.query)
        if not q:
            continue
        docs, scores = retriever.retrieve([q], k=min(DEPTH * 2, len(texts)), show_progress=False)
        hits = [(int(d), float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
        for units, (lo, hi) in (("chars", (1, 2)), ("seconds", (3, 4))):
            kept = trimmed([(spans[d][0], spans[d][lo], spans[d][hi]) for d, _ in hits])[:DEPTH]
            out["bm25s"][units][t.id] = [Retrieved(t.id, doc, a, b - a, k + 1, 0.0) for k, (doc, a, b) in enumerate(kept)]
    return out


def quality(recordings: list[SourceRecording], topics: list[Topic], *, with_stories: bool, folder: Path) -> dict[str, Any]:
    db = folder / f"collection-{'stories' if with_stories else 'plain'}.sqlite"
    db.unlink(missing_ok=True)
    store = Store(db)
    t0 = time.perf_counter()
    index_recordings(store, recordings, with_stories=with_stories)
    build = time.perf_counter() - t0
    qrels: dict[str, dict[str, list[Judgement]]] = {"chars": {}, "seconds": {}}
    for units in qrels:
        for j in judgements(topics, recordings, units=units):
            qrels[units].setdefault(j.topic, []).append(j)
    runs: dict[str, dict[str, dict[str, list[Retrieved]]]] = {}
    latency = {}
    for model in MODELS:
        runs[model] = {"chars": {}, "seconds": {}}
        t0 = time.perf_counter()
        for t in topics:
            hits = search(store, t.query, model=model, limit=DEPTH, hotspot_weight=0, snippets=False)
            for units in ("chars", "seconds"):
                runs[model][units][t.id] = run_rows(t.id, hits, units=units)
        latency[model] = (time.perf_counter() - t0) / len(topics)
        print(f"  {model}: {1000 * latency[model]:.1f} ms a query", flush=True)
    runs.update(peer_runs(store, topics))
    result: dict[str, Any] = {"build_seconds": build, "ms_per_query": {m: 1000 * v for m, v in latency.items()},
                              "units": {}}
    for units in ("chars", "seconds"):
        evs = [evaluate_run(runs[name][units], qrels[units], units=units, name=name) for name in runs]
        c = compare(evs)
        result["units"][units] = {
            "topics": len(c.topics), "means": c.means,
            "p_values": {m: {f"{a} vs {b}": p for (a, b), p in ps.items()} for m, ps in c.p_values.items()},
            "tables": {m: comparison_table(c, m) for m in c.measures},
        }
    series = []
    run = runs["mm"]["chars"]
    for _ in range(6):
        series.append(evaluate_run(run, qrels["chars"]).means())
        run = halve_passages(run)
    result["figure1"] = series
    store.close()
    return result


# -- scale ------------------------------------------------------------------------------------------------


def build_scale_index(sources: list[SourceRecording], *, words: int, db: Path) -> dict[str, Any]:
    """Index perturbed copies of ``sources`` into a new ``db`` until it holds ``words`` words; its figures."""
    rng = np.random.default_rng(20060613)
    vocabulary = sorted({w for r in sources for w in r.words})
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    store = Store(db)
    total_words, copies, hours = 0, 0, 0.0
    index_seconds = 0.0
    t0 = time.perf_counter()
    while total_words < words:
        for rec in sources:
            copy = perturbed_copy(rec, name=f"copy{copies:03d}-{rec.name}", rng=rng, vocabulary=vocabulary)
            t1 = time.perf_counter()
            index_recordings(store, [copy], with_stories=True)
            index_seconds += time.perf_counter() - t1
            total_words += len(copy.words)
            hours += float(copy.ends[-1]) / 3600
            if total_words >= words:
                break
        copies += 1
        print(f"  {total_words:,} words indexed, {time.perf_counter() - t0:.0f} s", flush=True)
    build = time.perf_counter() - t0
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    sizes = dict(store.conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    ours = sum(v for k, v in sizes.items() if k.startswith(("search_", "passages", "sqlite_autoindex_search")))
    result: dict[str, Any] = {
        "words": total_words, "recordings": store.counts()["recordings"], "passages": store.counts()["passages"],
        "caption_hours": hours, "speech_hours_at_150_wpm": total_words / 150 / 60,
        "build_seconds": build, "save_and_index_seconds": index_seconds,
        "file_mb": os.path.getsize(db) / 1e6, "search_tables_mb": ours / 1e6,
        "table_mb": {k: v / 1e6 for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])[:14]},
    }
    store.close()
    return result


def scale(sources: list[SourceRecording], queries: list[str], *, words: int, folder: Path) -> dict[str, Any]:
    db = folder / "scale.sqlite"
    result = build_scale_index(sources, words=words, db=db)
    result["latency_ms"] = {}
    build = result["build_seconds"]
    print(f"  built in {build:.0f} s, {result['file_mb']:.0f} MB", flush=True)
    store = Store(db)
    for model in MODELS:
        for q in queries[:5]:
            search(store, q, model=model)  # warm: page cache
        times = []
        for q in queries:
            t1 = time.perf_counter()
            search(store, q, model=model, limit=20)
            times.append(1000 * (time.perf_counter() - t1))
        result["latency_ms"][model] = _percentiles(times)
        print(f"  {model}: {result['latency_ms'][model]}", flush=True)
    times = []
    for q in queries:
        t1 = time.perf_counter()
        PassageIndex(store).fts_bm25_blocks(fts_match(dict.fromkeys(terms(q))), limit=20)
        times.append(1000 * (time.perf_counter() - t1))
    result["latency_ms"]["fts5 bm25 (blocks)"] = _percentiles(times)
    result["bm25s"] = _bm25s_scale(store, queries)
    store.close()
    return result


def _bm25s_scale(store: Store, queries: list[str]) -> dict[str, Any]:
    import bm25s

    texts, _ = passage_texts(store)
    t0 = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index([s.split() for s in texts], show_progress=False)
    build = time.perf_counter() - t0
    times = []
    for q in queries:
        t1 = time.perf_counter()
        toks = terms(q)
        if toks:
            retriever.retrieve([toks], k=20, show_progress=False)
        times.append(1000 * (time.perf_counter() - t1))
    out = {"index_seconds_in_memory": build, **_percentiles(times)}
    print(f"  bm25s: {out}", flush=True)
    return out


def _percentiles(times: list[float]) -> dict[str, float]:
    a = np.asarray(times)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)), "mean": float(a.mean()),
            "max": float(a.max()), "n": len(a)}


# -- report -----------------------------------------------------------------------------------------------


def markdown(report: dict[str, Any]) -> str:
    out = ["# Passage search figures", "", f"{report['machine']}, {report['date']}; bm25s {report['bm25s_version']}.", ""]
    for cond, q in report["quality"].items():
        out += [f"## Test collection, {cond}", "",
                f"{q['units']['chars']['topics']} topics; index built in {q['build_seconds']:.0f} s; "
                "100 passages a topic; p: two-tailed paired t-test against each run with a lower mean, "
                "(+x%) where p < 0.05.", ""]
        for units in ("chars", "seconds"):
            u = q["units"][units]
            measures = list(u["means"])
            out += [f"### Means, {units}", "", "| run | " + " | ".join(measures) + " |",
                    "|" + " --- |" * (len(measures) + 1)]
            runs = list(u["means"][measures[0]])
            for r in runs:
                out.append(f"| {r} | " + " | ".join(f"{u['means'][m][r]:.4f}" for m in measures) + " |")
            out.append("")
            keys = ["rprec", "cap"] if units == "seconds" else [m for m in measures if m != "psg_rprec"]
            for m in keys:
                out += [f"{m} ({units}):", "", u["tables"][m], ""]
        out += ["Figure 1 (mm run, passages halved 0-5 times):", "", "| halvings | psg_rprec | rprec | cap |",
                "| --- | --- | --- | --- |"]
        out += [f"| {k} | {s['psg_rprec']:.4f} | {s['rprec']:.4f} | {s['cap']:.4f} |" for k, s in enumerate(q["figure1"])]
        out.append("")
    if "scale" in report:
        s = report["scale"]
        out += ["## Scale", "",
                f"{s['words']:,} words in {s['recordings']:,} recordings, {s['passages']:,} passages "
                f"({s['speech_hours_at_150_wpm']:.0f} hours at 150 words a minute; {s['caption_hours']:.0f} hours "
                "of caption time). "
                f"Build through save_recording + stories + index_passages: {s['build_seconds']:.0f} s. "
                f"Index file {s['file_mb']:.0f} MB, of which passage-search tables {s['search_tables_mb']:.0f} MB.", "",
                "| ranker | p50 ms | p95 ms | mean ms | max ms |", "| --- | --- | --- | --- | --- |"]
        for name, v in s["latency_ms"].items():
            out.append(f"| {name} | {v['p50']:.1f} | {v['p95']:.1f} | {v['mean']:.1f} | {v['max']:.1f} |")
        b = s["bm25s"]
        out.append(f"| bm25s (in memory; index built in {b['index_seconds_in_memory']:.0f} s) | {b['p50']:.1f} | "
                   f"{b['p95']:.1f} | {b['mean']:.1f} | {b['max']:.1f} |")
        out += ["", "Largest tables (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in s["table_mb"].items()), ""]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = bench_parser(__doc__, "a slice of the collection, 300k words at scale")
    parser.add_argument("--words", type=int, default=9_000_000)
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args(argv)
    import bm25s

    lee = lee_recordings(SHARED / "lee")
    news = newsscape_recordings(SHARED / "newsscape")
    if args.quick:
        lee, news = lee[:8], news[:10]
    recordings = lee + news
    topics = make_topics(lee, prefix="L") + make_topics(news, prefix="N")
    report: dict[str, Any] = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M"), "bm25s_version": bm25s.__version__, "quality": {},
    }
    folder = Path(tempfile.mkdtemp(prefix="earshot-search-bench-"))
    if not args.skip_quality:
        for with_stories, label in ((True, "stories from the sources"), (False, "no stories (recording = document)")):
            print(f"quality, {label}", flush=True)
            report["quality"][label] = quality(recordings, topics, with_stories=with_stories, folder=folder)
    if not args.skip_scale:
        print("scale", flush=True)
        news_topics = [t for t in topics if t.id.startswith("N")]
        queries = [t.query for t in news_topics] + [" ".join(t.query.split()[:2]) for t in news_topics[:80]]
        report["scale"] = scale(news, queries, words=300_000 if args.quick else args.words, folder=folder)
    suffix = "-quick" if args.quick else ""
    write_result(f"search{suffix}", report, markdown(report), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
