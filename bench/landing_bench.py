"""Search that lands on the words, and teasers kept below the stories they announce.

Collection: the NewsScape caption days in ../shared/data/newsscape (several channels of the same
days, so most stories air more than once, next to teasers, promos and other stories sharing their
words), cut into ~30-minute recordings and indexed through Store.save_recording + index_passages,
once with the captions' story boundaries and once without. Topics: every story of >= 60 words,
queried by its rarest headline words (engine.evaluate.collection.make_topics). Relevant: the topic's
story and every other story whose term counts have cosine >= RELEVANT_COSINE with it (its other
airings); every other story holding a query word is a near miss.

For the mm model, with the teaser handling off (penalty 0) and on (config.TEASER_PENALTY):
* delay from where a hit starts playing to the first matched word heard, median over topics' top
  hits, for the passage start (the old behaviour, the baseline) and for play_from;
* share of top hits that start inside a relevant story (passage start and play_from): the first
  word heard from there (the first word ending after it) is one of a relevant story's words, so the
  silence before a story's first word counts as the story's, and the last word of the story before
  does not;
* R-precision in characters (engine.evaluate.passages) against the relevant stories.
No parameter is fitted on this collection (the teaser cues and weights are fixed in
engine/search/config.py), so every figure is held out.

Writes bench/results/landing.json and landing.md.
Run: ``.venv/bin/python -m bench.landing_bench [--quick]``.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
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
    make_topics,
    newsscape_recordings,
    run_rows,
)
from engine.evaluate.passages import Judgement, evaluate_run
from engine.search import ModelParams, search
from engine.search import config as search_config
from engine.search.text import terms
from engine.storage.store import Store

DEPTH = 100
RELEVANT_COSINE = 0.5


def relevant_stories(recordings: Sequence[SourceRecording], topics: Sequence[Topic]
                     ) -> dict[str, list[tuple[str, int, int]]]:
    """Per topic: (recording name, first word, last word) of every story relevant to it."""
    stories = [(rec, s, Counter(terms(" ".join(rec.words[s.first : s.last + 1]))))
               for rec in recordings for s in rec.stories if s.is_story]
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, (_, _, c) in enumerate(stories):
        for t, n in c.items():
            rows.append(i)
            cols.append(vocab.setdefault(t, len(vocab)))
            vals.append(float(n))
    m = np.zeros((len(stories), len(vocab)))
    m[rows, cols] = vals
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    where = {(rec.name, s.first): i for i, (rec, s, _) in enumerate(stories)}
    out = {}
    for t in topics:
        i = where[(t.recording, t.story.first)]
        sim = m @ m[i]
        out[t.id] = [(stories[j][0].name, stories[j][1].first, stories[j][1].last)
                     for j in np.flatnonzero(sim >= RELEVANT_COSINE)]
    return out


TEASER_RUNS = (("teasers as they come", 0.0), ("teasers down-weighted", search_config.TEASER_PENALTY))


def judgements(recordings: Sequence[SourceRecording], topics: Sequence[Topic],
               relevant: dict[str, list[tuple[str, int, int]]]
               ) -> tuple[dict[str, list[Judgement]], dict[str, list[tuple[str, float, float]]]]:
    """Per topic: the relevant stories as character judgements, and as (recording, start s, end s), the
    start being where the word before the story ends (a time from which the first word heard is the
    story's)."""
    by_name = {r.name: r for r in recordings}
    qrels: dict[str, list[Judgement]] = {}
    spans: dict[str, list[tuple[str, float, float]]] = {}
    for t in topics:
        for name, a, b in relevant[t.id]:
            rec = by_name[name]
            chars = rec.char_offsets()
            qrels.setdefault(t.id, []).append(
                Judgement(t.id, doc_id(name), float(chars[a]), float(chars[b] + len(rec.words[b]) - chars[a])))
            start = min(rec.ends[a - 1], rec.starts[a]) if a > 0 else rec.starts[a]
            spans.setdefault(t.id, []).append((name, float(start), float(rec.ends[b])))
    return qrels, spans


def run_topics(store: Store, topics: Sequence[Topic], qrels: dict[str, list[Judgement]],
               spans: dict[str, list[tuple[str, float, float]]], params: ModelParams, *, name: str = "run"
               ) -> dict[str, Any]:
    """Search every topic and judge it: per-topic R-precision (chars), passage R-precision and whether
    the top hit starts / plays from inside a relevant story, their means, and search milliseconds a query."""
    run, delay_start, delay_play, inside_start, inside_play = {}, [], [], [], []
    searching = 0.0
    for t in topics:
        clock = time.perf_counter()
        hits = search(store, t.query, limit=DEPTH, hotspot_weight=0, params=params, snippets=False)
        searching += time.perf_counter() - clock
        run[t.id] = run_rows(t.id, hits, units="chars")
        if not hits:
            inside_start.append(False)
            inside_play.append(False)
            continue
        top = hits[0]
        if top.matches:
            delay_start.append(top.matches[0].start - top.start)
            # the first matched word heard when playing from play_from (the densest run's first)
            heard = next((w for w in top.matches if w.start >= top.play_from), top.matches[-1])
            delay_play.append(heard.start - top.play_from)
        ok = [(a, b) for n, a, b in spans[t.id] if n == top.name]
        inside_start.append(any(a <= top.start <= b for a, b in ok))
        inside_play.append(any(a <= top.play_from <= b for a, b in ok))
    ev = evaluate_run(run, qrels, units="chars", name=name)
    means = ev.means()
    return {
        "median_delay_passage_start_s": float(np.median(delay_start)) if delay_start else float("nan"),
        "median_delay_play_from_s": float(np.median(delay_play)) if delay_play else float("nan"),
        "top_hit_in_relevant_story_passage_start": float(np.mean(inside_start)),
        "top_hit_in_relevant_story_play_from": float(np.mean(inside_play)),
        "rprec_chars": means["rprec"], "psg_rprec_chars": means["psg_rprec"],
        "search_ms_per_query": 1000 * searching / max(len(topics), 1),
        "per_topic": {t.id: {"rprec": ev.per_topic[t.id]["rprec"], "psg_rprec": ev.per_topic[t.id]["psg_rprec"],
                             "top_in_story": bool(inside_play[k])}
                      for k, t in enumerate(topics) if t.id in ev.per_topic},
    }


def index_store(recordings: list[SourceRecording], *, with_stories: bool, folder: Path) -> Store:
    """A fresh index of the recordings, with their stories or none."""
    db = folder / f"landing-{'stories' if with_stories else 'plain'}.sqlite"
    db.unlink(missing_ok=True)
    store = Store(db)
    index_recordings(store, recordings, with_stories=with_stories)
    return store


def measure(recordings: list[SourceRecording], topics: list[Topic], relevant: dict[str, list[tuple[str, int, int]]],
            *, with_stories: bool, folder: Path, teaser_runs: Sequence[tuple[str, float]] = TEASER_RUNS,
            passage_extent: str = search_config.PASSAGE_EXTENT) -> dict[str, Any]:
    """Index the recordings (with their stories or none) and measure landing and R-precision per teaser run."""
    store = index_store(recordings, with_stories=with_stories, folder=folder)
    qrels, spans = judgements(recordings, topics, relevant)
    out: dict[str, Any] = {}
    for label, penalty in teaser_runs:
        params = ModelParams(teaser_penalty=penalty, passage_extent=passage_extent)
        out[label] = run_topics(store, topics, qrels, spans, params, name=label)
        out[label].pop("per_topic")
        print(f"  {label}: {out[label]}", flush=True)
    store.close()
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Landing on the words, and teasers", "",
             f"{report['machine']}; {report['date']}. {report['topics']} topics over {report['recordings']}"
             f" recordings ({report['words']} words) of NewsScape captions; a median"
             f" {report['relevant_median']:.0f} relevant stories a topic (cosine >= {RELEVANT_COSINE}); mm model,"
             " text only. Baseline: the passage start (where hits used to play from) and the teasers as they"
             " come.", ""]
    for boundaries, rows in report["results"].items():
        lines += [f"## {boundaries}", "",
                  "| run | median delay to 1st matched word, passage start (s) | same, play_from (s)"
                  " | top hit in a relevant story, passage start | same, play_from | R-precision (chars)"
                  " | passage R-precision |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for label, r in rows.items():
            lines.append(f"| {label} | {r['median_delay_passage_start_s']:.2f} | {r['median_delay_play_from_s']:.2f}"
                         f" | {100 * r['top_hit_in_relevant_story_passage_start']:.1f}%"
                         f" | {100 * r['top_hit_in_relevant_story_play_from']:.1f}%"
                         f" | {r['rprec_chars']:.4f} | {r['psg_rprec_chars']:.4f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = bench_parser(__doc__, "the first ten recordings only")
    args = parser.parse_args(argv)
    folder_in = SHARED / "newsscape"
    if not any(folder_in.glob("*.txt3")):
        print(f"skipped: no NewsScape captions in {folder_in}")
        return 0
    news = newsscape_recordings(folder_in)
    if args.quick:
        news = news[:10]
    topics = make_topics(news, prefix="N")
    relevant = relevant_stories(news, topics)
    report: dict[str, Any] = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M"), "topics": len(topics), "recordings": len(news),
        "words": sum(len(r.words) for r in news),
        "relevant_median": float(np.median([len(v) for v in relevant.values()])), "results": {},
    }
    folder = Path(tempfile.mkdtemp(prefix="earshot-landing-bench-"))
    for with_stories, label in ((True, "Story boundaries from the captions"), (False, "No story boundaries")):
        print(label, flush=True)
        report["results"][label] = measure(news, topics, relevant, with_stories=with_stories, folder=folder)
    suffix = "-quick" if args.quick else ""
    write_result(f"landing{suffix}", report, markdown(report), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
