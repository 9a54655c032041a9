"""A command-line search's CPU cost on a 1,000-hour index, start to answer, against in-process search.

The index is search_bench's scale index (NewsScape days copied with shuffled stories and 5% of
words swapped until it holds ``--words`` words, ~1,000 hours at 150 words a minute), built once
into the bench cache. Every query runs as ``main.py --db INDEX search QUERY`` in a fresh process;
its CPU (user + system, from the kernel's accounting of the child) is what a user's shell pays.
In the same run: the CPU of the interpreter starting and stopping (``python -c pass``), the
floor no command gets under, and the same queries searched in-process (warm; wall ms, and CPU ms, which
other work on the machine does not inflate), the part that is the search itself.

Writes bench/results/cli_search.json and cli_search.md.
Run: ``.venv/bin/python -m bench.cli_search_bench [--quick] [--words 9000000] [--queries 20]``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.common import CACHE, REPO, SHARED, bench_parser, built_once, machine, write_result
from bench.search_bench import build_scale_index
from engine.evaluate.collection import make_topics, newsscape_recordings
from engine.search import search
from engine.storage.store import Store

#: The target: a command-line search answers in under this much CPU, seconds.
TARGET_CPU_SECONDS = 0.5


def child_cpu(argv: Sequence[str]) -> float:
    """CPU seconds (user + system) that the command ``argv`` used; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=REPO,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summary(values: Sequence[float]) -> dict[str, float]:
    a = np.asarray(values, dtype=np.float64)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)), "max": float(a.max()), "n": len(a)}


def markdown(report: dict[str, Any]) -> str:
    cli, start, inproc = report["cli_cpu_s"], report["interpreter_cpu_s"], report["in_process_ms"]
    inproc_cpu = report.get("in_process_cpu_ms")
    return "\n".join([
        "# Command-line search CPU", "",
        f"{report['machine']}, {report['date']}. Index: {report['index']['words']:,} words, "
        f"{report['index']['recordings']:,} recordings, {report['index']['file_mb']:.0f} MB; "
        f"{cli['n']} queries, each in a fresh process.", "",
        "| measured | p50 | p95 | max |", "| --- | ---: | ---: | ---: |",
        f"| `main.py search` CPU, s | {cli['p50']:.2f} | {cli['p95']:.2f} | {cli['max']:.2f} |",
        f"| interpreter start and stop (`python -c pass`) CPU, s | {start['p50']:.2f} | {start['p95']:.2f} | "
        f"{start['max']:.2f} |",
        f"| the same queries in-process, wall ms | {inproc['p50']:.0f} | {inproc['p95']:.0f} | {inproc['max']:.0f} |",
        *([f"| the same queries in-process, CPU ms | {inproc_cpu['p50']:.0f} | {inproc_cpu['p95']:.0f} | "
           f"{inproc_cpu['max']:.0f} |"] if inproc_cpu else []),
        "", f"Target: under {TARGET_CPU_SECONDS} s of CPU per command-line search; "
        f"p95 is {cli['p95'] / TARGET_CPU_SECONDS:.2f} of it.", "",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    parser = bench_parser(__doc__, "a 300,000-word index and 5 queries")
    parser.add_argument("--words", type=int, default=9_000_000)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args(argv)
    words = 300_000 if args.quick else args.words
    n_queries = 5 if args.quick else args.queries
    news = newsscape_recordings(SHARED / "newsscape")
    queries = [t.query for t in make_topics(news, prefix="N")][:n_queries]
    db = CACHE / f"search-scale-{words}.sqlite"
    index: dict[str, Any] = {}
    built_once(db, f"a {words:,}-word index", lambda path: index.update(build_scale_index(news, words=words, db=path)))
    store = Store(db)
    index = index or {"words": store.counts()["words"], "recordings": store.counts()["recordings"],
                      "file_mb": os.path.getsize(db) / 1e6}
    for q in queries:
        search(store, q, limit=20)  # warm the page cache as the command-line runs will find it
    in_process, in_process_cpu = [], []
    for q in queries:
        t0, c0 = time.perf_counter(), time.process_time()
        search(store, q, limit=20)
        in_process.append(1000 * (time.perf_counter() - t0))
        in_process_cpu.append(1000 * (time.process_time() - c0))
    store.close()
    cli, start = [], []
    for q in queries:
        start.append(child_cpu([sys.executable, "-c", "pass"]))
        cli.append(child_cpu([sys.executable, str(REPO / "main.py"), "--db", str(db), "search", q]))
        print(f"  {q!r}: {cli[-1]:.2f} s CPU", flush=True)
    report = {
        "machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"), "index": index, "queries": queries,
        "cli_cpu_s": summary(cli), "interpreter_cpu_s": summary(start), "in_process_ms": summary(in_process),
        "in_process_cpu_ms": summary(in_process_cpu),
        "target_cpu_s": TARGET_CPU_SECONDS,
    }
    write_result("cli_search-quick" if args.quick else "cli_search", report, markdown(report), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
