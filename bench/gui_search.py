"""Search-as-you-type on a large library: query latency, and the longest UI stall while typing.

Builds (once, cached) a synthetic index of ``--hours`` hours of transcript
(word sequences drawn from the news texts in ``resources/news``, 150 words a
minute, the Store's own segmenting), with events and entity mentions, then

1. times :meth:`engine.library.LibraryReader.search` for common and rare queries,
   with and without filters (p50 / p95 / max, ms);
2. opens the main window and types queries one key at a time (60 ms apart),
   measuring the longest UI stall with :class:`app.stall.StallMeter`.

Writes ``bench/results/gui_search.json`` and ``.md``.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_search [--hours 200]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from bench.common import CACHE, REPO, built_once, use_bench_folders, write_result

QUERIES = ("the", "government", "minister said", "rain", "fuel costs", "bridge", "people were", "council")
WORDS_PER_MINUTE = 150


def build_library(db: Path, hours: float, seed: int = 0) -> None:
    """One recording per hour of synthetic transcript, written the way ingest writes (with the passage index)."""
    from engine.search import index_passages
    from engine.storage.store import EntityRow, EventRow, NewRecording, Store, WordRow

    text = (REPO / "resources" / "news" / "en.txt").read_text(encoding="utf-8").lower()
    vocab = np.array([w.strip(".,;:'\"()") for w in text.split() if w.strip(".,;:'\"()")])
    rng = np.random.default_rng(seed)
    per = WORDS_PER_MINUTE * 60
    starts = np.arange(per) * 60 / WORDS_PER_MINUTE
    with Store(db) as store:
        for r in range(max(1, round(hours))):
            tokens = vocab[rng.integers(0, len(vocab), per)]
            words = [WordRow(float(s), float(s) + 0.3, 0.9, str(t)) for s, t in zip(starts, tokens, strict=True)]
            at = rng.uniform(0, 3500, 12)
            named = rng.integers(0, per - 2, 40)
            store.save_recording(NewRecording(
                f"/bench/hour-{r:04d}.wav", f"hour-{r:04d}.wav", f"h{r}", 1, 3600.0, 16000, 1, "pcm", "wav",
                "bench", "synthetic", "en", words, [(a, min(a + 39, per - 1)) for a in range(0, per, 40)],
                events=[EventRow(("music", "applause", "laughter")[k % 3], float(t), float(t) + 5) for k, t in enumerate(at)],
                entities=[EntityRow("PERSON", ("Linda Okafor", "Peter Lindqvist")[k % 2], int(i), int(i) + 1)
                          for k, i in enumerate(named)],
            ), then=lambda rec_id: index_passages(store, rec_id))


def time_queries(db: Path) -> dict[str, dict[str, float]]:
    """Latency of every prefix a user types (what search-as-you-type may send) and of the full queries."""
    from engine.library import LibraryReader, SearchFilters
    from engine.storage.store import Store

    out = {}
    with Store(db) as store:
        reader = LibraryReader(store)
        for label, filters in (("no filter", SearchFilters()), ("event=music", SearchFilters(event_type="music")),
                               ("entity", SearchFilters(entity="Linda Okafor")), ("recording", SearchFilters(recording_id=3))):
            prefixes, full = [], []
            for q in QUERIES:
                for n in range(1, len(q) + 1):
                    t0 = time.perf_counter()
                    reader.search(q[:n], filters, limit=100)
                    (full if n == len(q) else prefixes).append(time.perf_counter() - t0)
            out[label] = {**_stats("prefix", prefixes), **_stats("full", full)}
    return out


#: The soft extents' reach (words) before the held-out choice: the previous search, timed in the same run.
PREVIOUS_REACH_WORDS = 150


def previous_search_ratio(db: Path, rounds: int = 3) -> dict[str, float]:
    """The engine's search (100 hits, no filter) as shipped and as it was before the held-out choice
    of the extents' reach, the full queries interleaved ``rounds`` times: p50 / p95 ms of each and their ratios."""
    from engine.search import ModelParams, search
    from engine.search.extents import ExtentParams
    from engine.storage.store import Store

    previous = ModelParams(extent=ExtentParams(reach_words=PREVIOUS_REACH_WORDS))
    now: list[float] = []
    before: list[float] = []
    with Store(db) as store:
        for _ in range(rounds):
            for q in QUERIES:
                for params, into in ((None, now), (previous, before)):
                    t0 = time.perf_counter()
                    search(store, q, limit=100, params=params)
                    into.append(time.perf_counter() - t0)
    out = {**_stats("shipped", now), **_stats("previous", before)}
    out["ratio_p50"] = round(out["shipped_p50_ms"] / out["previous_p50_ms"], 3)
    out["ratio_p95"] = round(out["shipped_p95_ms"] / out["previous_p95_ms"], 3)
    return out


def _stats(name: str, seconds: list[float]) -> dict[str, float]:
    ms = np.array(seconds) * 1000
    return {f"{name}_n": len(ms), f"{name}_p50_ms": round(float(np.percentile(ms, 50)), 1),
            f"{name}_p95_ms": round(float(np.percentile(ms, 95)), 1), f"{name}_max_ms": round(float(ms.max()), 1)}


def typing_stall(db: Path) -> dict[str, float]:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.stall import StallMeter

    app = QApplication.instance() or QApplication([])
    window = MainWindow(db)
    window.resize(1280, 800)
    window.show()
    window.focus_search()
    keys = [c for q in QUERIES for c in [*q, "pause", None]]  # read the answers, then clear the field
    meter = StallMeter()
    answered = {"n": 0}
    window.search_panel.searched.connect(lambda *a: answered.__setitem__("n", answered["n"] + 1))

    def press() -> None:
        if not keys:
            QTimer.singleShot(1000, app.quit)
            return
        key = keys.pop(0)
        if key == "pause":
            QTimer.singleShot(800, press)
            return
        field = window.search_panel.query
        field.setText(field.text() + key if key else "")
        QTimer.singleShot(60, press)

    QTimer.singleShot(1500, lambda: (meter.start(), press()))
    app.exec()
    meter.stop()
    window.close()
    return {"longest_stall_ms": round(meter.longest * 1000, 1), "stalls_over_50ms": len(meter.stalls),
            "answers_shown": answered["n"]}


def latency_table(result: dict) -> str:  # type: ignore[type-arg]
    """Search latency per filter, full queries and typed prefixes, ms: a markdown table."""
    lines = ["| filter | full queries p50 | p95 | max | every typed prefix p50 | p95 | max |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, r in result["search"].items():
        lines.append(f"| {label} | {r['full_p50_ms']} | {r['full_p95_ms']} | {r['full_max_ms']} | "
                     f"{r['prefix_p50_ms']} | {r['prefix_p95_ms']} | {r['prefix_max_ms']} |")
    return "\n".join(lines)


def markdown(result: dict) -> str:  # type: ignore[type-arg]
    """``bench/results/gui_search.md`` from ``gui_search.json``."""
    lines = [f"# Search on a {result['hours']:g}-hour library ({result['words']:,} words)", "",
             "Latency of :meth:`LibraryReader.search` (engine hot-spot search, 100 hits), ms:", "",
             latency_table(result)]
    c = result["previous"]
    lines += ["", f"Engine search (100 hits, no filter, full queries, interleaved) as shipped against the previous"
              f" search (soft extents reaching {PREVIOUS_REACH_WORDS} words), same run: p50 {c['shipped_p50_ms']} ms"
              f" against {c['previous_p50_ms']} ms ({c['ratio_p50']}x), p95 {c['shipped_p95_ms']} ms against"
              f" {c['previous_p95_ms']} ms ({c['ratio_p95']}x)."]
    t = result["typing"]
    lines += ["", f"Typing {len(QUERIES)} queries in the GUI (a key every 60 ms, a pause after each): longest UI "
              f"stall {t['longest_stall_ms']} ms, {t['stalls_over_50ms']} stalls over 50 ms, "
              f"{t['answers_shown']} answers shown.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hours", type=float, default=200.0)
    args = ap.parse_args(argv)
    use_bench_folders("gui-search")
    db = built_once(CACHE / f"gui-search-{args.hours:g}h.sqlite", f"a {args.hours:g}-hour synthetic library",
                    lambda path: build_library(path, args.hours))
    result = {"hours": args.hours, "words": int(args.hours * 60 * WORDS_PER_MINUTE), "search": time_queries(db),
              "previous": previous_search_ratio(db), "typing": typing_stall(db), "cpus": os.cpu_count()}
    lines = markdown(result).split("\n")
    write_result("gui_search", result, "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
