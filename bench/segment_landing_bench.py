"""Passage search on Earshot's own stories against search on the true stories, in one run.

Run from the repository root::

    python bench/segment_landing_bench.py [--quick] [--model-cache DIR]

Writes ``bench/results/segment_landing.json`` and ``bench/results/segment_landing.md``.

The collection, topics and judgements are ``bench/landing_bench.py``'s (the NewsScape caption
days cut into ~30-minute recordings; relevant = the topic's story and its other airings). The
recordings are indexed three times: with the captions' story boundaries, with none, and with
the boundaries of Earshot's segmenter, held out by day: a recording of day ``d`` is cut as
ingest cuts a punctuated transcript (``segment_recognised``: SENTENCE-START from the captions'
punctuation, Viterbi, a commercial break's spots as one block, stories under 30 words merged)
by the SENTENCE-START model trained on the other days, its block length chosen on inner
leave-one-day-out decodes of those days; each story keeps the posterior of the boundary that
opens it, as ingest stores it. Every index is searched twice in the same run: hits as ranked
(two blocks of one story, as before) and with soft extents (``engine.search.extents``: each hit
grown from its query words to the boundary evidence around it, what the product does). The
figure of merit is the ratio of R-precision (characters) on our stories to R-precision on the
true stories, with the same search.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.segment_heldout_bench as heldout  # noqa: E402
from bench.landing_bench import measure, relevant_stories  # noqa: E402
from engine.evaluate.collection import SourceRecording, Story, make_topics, newsscape_recordings  # noqa: E402
from engine.segment.features import PUNCTUATED_FEATURES  # noqa: E402
from engine.segment.segmenter import segment_recognised  # noqa: E402
from engine.segment.text import Transcript, normalize_words, read_corpus  # noqa: E402

RESULTS = ROOT / "bench" / "results"
SHARED = ROOT.parent / "shared" / "data"
TRUE = "Story boundaries from the captions"
NONE = "No story boundaries"
OURS = "Story boundaries from our segmenter (held-out day models)"
#: The two searches measured on every index: the hit as ranked, and grown to the boundary evidence.
EXTENTS = {"passage": "ranked passages (before)", "soft": "soft extents (shipped)"}


def segmenter_word(token: str) -> str:
    """One caption token as the segmenter's word: normalised pieces joined ("U.S." -> "us"), never empty."""
    joined = "".join(normalize_words(token))
    return joined or (token.lower() if token.strip() else "_")


def our_stories(rec: SourceRecording, model) -> list[Story]:
    """The recording's stories as ingest finds them with the held-out model (its display words give sentences)."""
    seg = segment_recognised([segmenter_word(w) for w in rec.words], rec.words, engine=None, model=model,
                             starts=rec.starts, ends=rec.ends)
    edges = [*seg.story_starts.tolist(), len(rec.words)]
    confidence = np.nan_to_num(np.asarray(seg.confidence, dtype=np.float64), nan=1.0)
    return [Story(a, b - 1, True, float(c)) for (a, b), c in zip(itertools.pairwise(edges), confidence, strict=True)]


def with_our_stories(recordings: list[SourceRecording], days: list[Transcript]) -> list[SourceRecording]:
    """Every recording re-cut by the model held out for its day (trained on the other days, its block
    length chosen on inner leave-one-day-out decodes of those days)."""
    out = []
    for held in days:
        train = [d for d in days if d is not held]
        model = heldout.trained(train, PUNCTUATED_FEATURES, "punctuated")
        seconds = heldout.fitted_block_seconds(train, PUNCTUATED_FEATURES, "punctuated")
        model = replace(model, info={**model.info, "block_seconds": seconds})  # as the shipped models carry it
        stem = Path(held.name).stem
        out += [replace(rec, stories=our_stories(rec, model)) for rec in recordings
                if rec.name.startswith(stem + "-part")]
    order = {r.name: i for i, r in enumerate(recordings)}
    return sorted(out, key=lambda r: order[r.name])


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Passage search on our own stories", "",
             f"{report['machine']}; {report['date']}. {report['topics']} topics over {report['recordings']} recordings"
             f" of NewsScape captions ({report['words']} words); mm model, teasers as they come. Our stories:"
             f" {report['our_stories']} (median {report['our_median_words']:.0f} words); true stories:"
             f" {report['true_stories']} (median {report['true_median_words']:.0f} words).", "",
             "| boundaries | search | top hit in a relevant story (play_from) | R-precision (chars) |"
             " passage R-precision | ms a query (100 hits) |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for r in report["results"].values():
        lines.append(f"| {r['boundaries']} | {r['search']} | {100 * r['top_hit_in_relevant_story_play_from']:.1f}%"
                     f" | {r['rprec_chars']:.4f} | {r['psg_rprec_chars']:.4f} | {r['search_ms_per_query']:.0f} |")
    lines.append("")
    for search_label, ratio in report["ratios"].items():
        lines.append(f"{search_label}: R-precision on our stories / on the true stories {ratio['rprec']:.3f}"
                     f" (passage R-precision: {ratio['psg_rprec']:.3f}; the target is at least 0.9).")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the first ten recordings only")
    parser.add_argument("--model-cache", type=Path, default=None, metavar="DIR",
                        help="folder that keeps the fold models and posteriors between runs")
    args = parser.parse_args(argv)
    folder_in = SHARED / "newsscape"
    if not any(folder_in.glob("*.txt3")):
        print(f"skipped: no NewsScape captions in {folder_in}", file=sys.stderr)
        return 0
    heldout.MODEL_CACHE = args.model_cache
    news = newsscape_recordings(folder_in)
    if args.quick:
        news = news[:10]
    days = read_corpus(folder_in)
    topics = make_topics(news, prefix="N")
    relevant = relevant_stories(news, topics)
    ours = with_our_stories(news, days)
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M"), "topics": len(topics), "recordings": len(news),
        "words": sum(len(r.words) for r in news),
        "our_stories": sum(len(r.stories) for r in ours),
        "our_median_words": float(np.median([s.last - s.first + 1 for r in ours for s in r.stories])),
        "true_stories": sum(len(r.stories) for r in news),
        "true_median_words": float(np.median([s.last - s.first + 1 for r in news for s in r.stories])),
        "results": {},
    }
    folder = Path(tempfile.mkdtemp(prefix="earshot-segment-landing-"))
    for k, (label, recs, stories) in enumerate(((TRUE, news, True), (NONE, news, False), (OURS, ours, True))):
        for extent, search_label in EXTENTS.items():
            print(label, search_label, flush=True)
            (folder / f"{k}-{extent}").mkdir()
            rows = measure(recs, topics, relevant, with_stories=stories, folder=folder / f"{k}-{extent}",
                           teaser_runs=(("teasers as they come", 0.0),), passage_extent=extent)
            report["results"][f"{label}; {search_label}"] = {**rows["teasers as they come"], "boundaries": label,
                                                             "search": search_label, "passage_extent": extent}
    report["ratios"] = {}
    for search_label in EXTENTS.values():
        true = report["results"][f"{TRUE}; {search_label}"]
        own = report["results"][f"{OURS}; {search_label}"]
        report["ratios"][search_label] = {"rprec": own["rprec_chars"] / true["rprec_chars"],
                                          "psg_rprec": own["psg_rprec_chars"] / true["psg_rprec_chars"]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = "-quick" if args.quick else ""
    (RESULTS / f"segment_landing{suffix}.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (RESULTS / f"segment_landing{suffix}.md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
