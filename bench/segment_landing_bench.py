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
opens it, as ingest stores it. Every index is searched in the same run with the hits as ranked
(two blocks of one story, as before) and with soft extents (``engine.search.extents``: each hit
grown from its query words to the boundary evidence around it, what the product does) in every
configuration of the grid below. The
figure of merit is the ratio of R-precision (characters) on our stories to R-precision on the
true stories, with the same search.

The soft extents' parameters (reach, pause scale, sentence and query-time cohesion weights) are
chosen held out: every configuration of a small grid (``GRID``) is searched on every index, and
for each day the configuration with the best mean R-precision on our stories over the *other*
days' topics is applied to that day's topics (nested leave-one-day-out); the held-out figures pool
the four days. The configuration chosen on all four days is what ships (``engine/search/config.py``);
the table says whether the shipped defaults are that configuration.

The mixture model's context windows (``ModelParams.context_words``: a passage's document is the
words within K words of it, clipped only at stories given with the transcript, in place of its
story) are searched on every index too, for each K of ``CONTEXT_WORDS`` with the shipped soft
extents, and K is chosen the same way (nested leave-one-day-out on our stories). The held-out
figures with and without context windows sit side by side, with a paired test per topic of our
stories against no boundaries (two-tailed t-test and Wilcoxon signed-rank on R-precision).
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.segment_heldout_bench as heldout  # noqa: E402
from bench.caption_markup_bench import markup_counts  # noqa: E402
from bench.common import write_result  # noqa: E402
from bench.landing_bench import index_store, judgements, relevant_stories, run_topics  # noqa: E402
from engine.evaluate.collection import SourceRecording, Story, Topic, make_topics, newsscape_recordings  # noqa: E402
from engine.evaluate.passages import paired_t_test  # noqa: E402
from engine.search import ModelParams  # noqa: E402
from engine.search.extents import ExtentParams  # noqa: E402
from engine.segment.features import PUNCTUATED_FEATURES  # noqa: E402
from engine.segment.segmenter import segment_recognised  # noqa: E402
from engine.segment.text import Transcript, normalize_words, read_corpus  # noqa: E402

RESULTS = ROOT / "bench" / "results"
SHARED = ROOT.parent / "shared" / "data"
TRUE = "Story boundaries from the captions"
NONE = "No story boundaries"
OURS = "Story boundaries from our segmenter (held-out day models)"
#: Soft extents as they were before the held-out choice: 150 words' reach, pauses over 5 s, no
#: sentence or cohesion cue. The grid varies one thing at a time around it, and adds the
#: query-time cohesion cue (alone, or with sentence ends; the terms shared by the cores of two
#: of the best ten hits count as every core's) at a few stretch lengths, and the opening sentence
#: (a hit opens at its anchor's sentence: ``ExtentParams.opening_weight``).
BEFORE = ExtentParams(reach_words=150, story_weight=1.0, pause_weight=1.0, pause_seconds=5.0, sentence_weight=0.0,
                      opening_weight=0.0, min_words=20, pause_inside_words=0, trust_given_stories=True, shrink=True,
                      cohesion_weight=0.0, cohesion_words=20, cohesion_feedback=0)
GRID: dict[str, ExtentParams] = {
    "reach 150, pause 5 s (before)": BEFORE,
    "reach 100": replace(BEFORE, reach_words=100),
    "reach 200": replace(BEFORE, reach_words=200),
    "pause 3 s": replace(BEFORE, pause_seconds=3.0),
    "pause 8 s": replace(BEFORE, pause_seconds=8.0),
    "reach 100, opening sentence": replace(BEFORE, reach_words=100, opening_weight=1.0),
    "reach 150, opening sentence": replace(BEFORE, opening_weight=1.0),
    "cohesion 1, 20 words": replace(BEFORE, cohesion_weight=1.0, cohesion_words=20, cohesion_feedback=10),
    "cohesion 1, 40 words": replace(BEFORE, cohesion_weight=1.0, cohesion_words=40, cohesion_feedback=10),
    "cohesion 0.5 + sentence end 0.5, 20 words": replace(BEFORE, cohesion_weight=0.5, sentence_weight=0.5,
                                                         cohesion_words=20, cohesion_feedback=10),
    "cohesion 0.5 + sentence end 0.5, 40 words": replace(BEFORE, cohesion_weight=0.5, sentence_weight=0.5,
                                                         cohesion_words=40, cohesion_feedback=10),
    "cohesion 0.5 + sentence end 0.5, 60 words": replace(BEFORE, cohesion_weight=0.5, sentence_weight=0.5,
                                                         cohesion_words=60, cohesion_feedback=10),
}
CONDITIONS = (TRUE, NONE, OURS)
#: K of the context windows tried (words either side of the passage); each with the shipped extents, a
#: story given with the transcript the whole document of its passages (as shipped) or clipping their windows.
CONTEXT_WORDS = (150, 300, 600, 1200, 2400)
CONTEXT_WHOLE: dict[str, ModelParams] = {f"context {k} words": ModelParams(teaser_penalty=0.0, context_words=k)
                                         for k in CONTEXT_WORDS}
CONTEXT_CLIPPED: dict[str, ModelParams] = {
    f"context {k} words, clipped in given stories": ModelParams(teaser_penalty=0.0, context_words=k,
                                                                context_given_whole=False) for k in CONTEXT_WORDS}
CONTEXT = {**CONTEXT_WHOLE, **CONTEXT_CLIPPED}
SHIPPED = "soft extents, all-days choice"


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


def day_of(topics: list[Topic], days: list[Transcript]) -> dict[str, str]:
    """Topic id -> the caption day (file stem) its story aired on."""
    stems = [Path(d.name).stem for d in days]
    return {t.id: next(s for s in stems if t.recording.startswith(s + "-part")) for t in topics}


def nested_choice(per_topic: dict[str, dict[str, dict[str, float]]], day: dict[str, str]
                  ) -> tuple[dict[str, str], str]:
    """Per held-out day, the grid configuration with the best mean R-precision over the other days'
    topics (``per_topic[config][topic]``, on our stories); ties go to the earlier configuration.
    Also the configuration chosen on all days (what ships)."""
    def best(topic_ids: list[str]) -> str:
        scores = {c: float(np.mean([rows[t]["rprec"] for t in topic_ids if t in rows])) for c, rows in per_topic.items()}
        return max(scores, key=lambda c: (scores[c], -list(per_topic).index(c)))

    chosen = {d: best([t for t, e in day.items() if e != d]) for d in sorted(set(day.values()))}
    return chosen, best(list(day))


def pooled(per_topic: dict[str, dict[str, dict[str, Any]]], chosen: dict[str, str], day: dict[str, str]
           ) -> dict[str, float]:
    """Mean measures over every topic, each searched with the configuration chosen without its day."""
    rows = [per_topic[chosen[day[t]]][t] for t in day if t in per_topic[chosen[day[t]]]]
    return {"rprec_chars": float(np.mean([r["rprec"] for r in rows])),
            "psg_rprec_chars": float(np.mean([r["psg_rprec"] for r in rows])),
            "top_hit_in_relevant_story_play_from": float(np.mean([r["top_in_story"] for r in rows]))}


def held_out_values(per_topic: dict[str, dict[str, dict[str, Any]]], chosen: dict[str, str], day: dict[str, str],
                    measure: str = "rprec") -> dict[str, float]:
    """Topic -> the measure, each topic searched with the configuration chosen without its day."""
    return {t: float(per_topic[chosen[day[t]]][t][measure]) for t in day if t in per_topic[chosen[day[t]]]}


def per_day(per_topic: dict[str, dict[str, dict[str, Any]]], pick: dict[str, str], day: dict[str, str],
            folder: Path) -> dict[str, dict[str, Any]]:
    """Per day: what its truth marks (``caption_markup_bench.markup_counts``) and, per condition, the mean
    R-precision and top-hit share of its topics, each searched with the configuration ``pick`` gives its day."""
    out: dict[str, dict[str, Any]] = {}
    for d in sorted(set(day.values())):
        lines = (folder / f"{d}.txt3").read_text(encoding="utf-8", errors="replace").splitlines()
        ids = [t for t, dd in day.items() if dd == d]
        row: dict[str, Any] = {"marks": markup_counts(lines), "topics": len(ids)}
        for cond, runs in per_topic.items():
            values = [runs[pick[d]][t] for t in ids if t in runs[pick[d]]]
            row[cond] = {"rprec_chars": float(np.mean([v["rprec"] for v in values])),
                         "top_hit_in_relevant_story_play_from": float(np.mean([v["top_in_story"] for v in values]))}
        out[d] = row
    return out


def paired(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """Paired comparison of two runs over their common topics: means, topics better / worse, the
    two-tailed paired t-test's and the Wilcoxon signed-rank test's p-values."""
    topics = sorted(set(a) & set(b))
    x, y = np.array([a[t] for t in topics]), np.array([b[t] for t in topics])
    diff = x - y
    wilcoxon = float(stats.wilcoxon(x, y).pvalue) if np.any(diff != 0) else 1.0
    return {"topics": len(topics), "mean_a": float(x.mean()), "mean_b": float(y.mean()),
            "better": int(np.sum(diff > 0)), "worse": int(np.sum(diff < 0)),
            "t_test_p": paired_t_test(x, y), "wilcoxon_p": wilcoxon}


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Passage search on our own stories", "",
             f"{report['machine']}; {report['date']}. {report['topics']} topics over {report['recordings']} recordings"
             f" of NewsScape captions ({report['words']} words); mm model, teasers as they come. Our stories:"
             f" {report['our_stories']} (median {report['our_median_words']:.0f} words); true stories:"
             f" {report['true_stories']} (median {report['true_median_words']:.0f} words).", "",
             "## Held out (nested leave-one-day-out)", "",
             "Soft extents' configuration chosen per day on the other days' topics (best mean R-precision on our"
             " stories), applied to the day's topics, pooled. Chosen: "
             + "; ".join(f"{d}: {c}" for d, c in report["chosen"].items())
             + f". Chosen on all days (ships): {report['final']}"
             + (" (the shipped defaults are this configuration)." if report["ships_final"]
                else " (the shipped defaults are NOT this configuration).") + "", "",
             "| boundaries | search | top hit in a relevant story (play_from) | R-precision (chars) |"
             " passage R-precision |", "| --- | --- | ---: | ---: | ---: |"]
    for cond in CONDITIONS:
        for label, r in report["summary"][cond].items():
            lines.append(f"| {cond} | {label} | {100 * r['top_hit_in_relevant_story_play_from']:.1f}%"
                         f" | {r['rprec_chars']:.4f} | {r['psg_rprec_chars']:.4f} |")
    lines.append("")
    for label, ratio in report["ratios"].items():
        lines.append(f"{label}: R-precision on our stories / on the true stories {ratio['rprec']:.3f}"
                     f" (passage R-precision: {ratio['psg_rprec']:.3f}; the target is at least 0.9).")
    lines += ["", "Context windows (mixture model's document = K words either side of the passage): K chosen per day: "
              + "; ".join(f"{d}: {c}" for d, c in report["chosen_context"].items())
              + f". Chosen on all days: {report['final_context']}. Clipped in given stories, K chosen per day: "
              + "; ".join(f"{d}: {c}" for d, c in report["chosen_clipped"].items())
              + f"; on all days: {report['final_clipped']}. Grid and context windows together, chosen per day: "
              + "; ".join(f"{d}: {c}" for d, c in report["chosen_any"].items()) + ".", "",
              "## Paired tests per topic (R-precision, chars; held-out rows)", "",
              "| comparison | topics | mean A | mean B | A better | A worse | t-test p | Wilcoxon p |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, r in report["paired"].items():
        lines.append(f"| {label} | {r['topics']} | {r['mean_a']:.4f} | {r['mean_b']:.4f} | {r['better']}"
                     f" | {r['worse']} | {r['t_test_p']:.3g} | {r['wilcoxon_p']:.3g} |")
    if "per_day" in report:
        lines += ["", "## Per day, with the shipped extents", "",
                  "What each day's truth marks: its segments, commercial blocks, story starts right after a commercial"
                  " block (a programme's edge) and other story starts; a day with few of the last marks programme"
                  " blocks, not stories, and its topics' relevant span is a whole block.", "",
                  "| day | segments | commercial blocks | starts after a commercial | other starts | topics"
                  " | R-prec true / none / ours | ours / true | top hit true / none / ours |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
        for d, r in report["per_day"].items():
            m = r["marks"]
            rp = " / ".join(f"{r[c]['rprec_chars']:.3f}" for c in CONDITIONS)
            top = " / ".join(f"{100 * r[c]['top_hit_in_relevant_story_play_from']:.1f}%" for c in CONDITIONS)
            name = " ".join(d.split("_")[i] for i in (0, 3, 4))
            lines.append(f"| {name} | {m['segments']} | {m['commercials']} | {m['stories_after_commercial']}"
                         f" | {m['other_stories']} | {r['topics']} | {rp}"
                         f" | {r[OURS]['rprec_chars'] / r[TRUE]['rprec_chars']:.3f} | {top} |")
    lines += ["", "## Every configuration on every index (all topics; a fit, not held out)", "",
              "| configuration | true: R-prec | none: R-prec | ours: R-prec | ours: passage R-prec"
              " | ours / true | ms a query (ours, 100 hits) |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, rows in report["grid"].items():
        lines.append(f"| {name} | {rows[TRUE]['rprec_chars']:.4f} | {rows[NONE]['rprec_chars']:.4f}"
                     f" | {rows[OURS]['rprec_chars']:.4f} | {rows[OURS]['psg_rprec_chars']:.4f}"
                     f" | {rows[OURS]['rprec_chars'] / rows[TRUE]['rprec_chars']:.3f}"
                     f" | {rows[OURS]['search_ms_per_query']:.0f} |")
    for name, rows in report["context"].items():
        lines.append(f"| {name} (soft extents as shipped) | {rows[TRUE]['rprec_chars']:.4f}"
                     f" | {rows[NONE]['rprec_chars']:.4f} | {rows[OURS]['rprec_chars']:.4f}"
                     f" | {rows[OURS]['psg_rprec_chars']:.4f}"
                     f" | {rows[OURS]['rprec_chars'] / rows[TRUE]['rprec_chars']:.3f}"
                     f" | {rows[OURS]['search_ms_per_query']:.0f} |")
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
    day = day_of(topics, days)
    ours = with_our_stories(news, days)
    qrels, spans = judgements(news, topics, relevant)
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M"), "topics": len(topics), "recordings": len(news),
        "words": sum(len(r.words) for r in news),
        "our_stories": sum(len(r.stories) for r in ours),
        "our_median_words": float(np.median([s.last - s.first + 1 for r in ours for s in r.stories])),
        "true_stories": sum(len(r.stories) for r in news),
        "true_median_words": float(np.median([s.last - s.first + 1 for r in news for s in r.stories])),
        "grid": {name: {} for name in GRID}, "context": {name: {} for name in CONTEXT}, "passage": {},
    }
    folder = Path(tempfile.mkdtemp(prefix="earshot-segment-landing-"))
    per_topic: dict[str, dict[str, dict[str, dict[str, Any]]]] = {c: {} for c in CONDITIONS}
    for k, (cond, recs, stories) in enumerate(((TRUE, news, True), (NONE, news, False), (OURS, ours, True))):
        (folder / str(k)).mkdir()
        store = index_store(recs, with_stories=stories, folder=folder / str(k))
        row = run_topics(store, topics, qrels, spans, ModelParams(teaser_penalty=0.0, passage_extent="passage"))
        per_topic[cond]["ranked passages"] = row.pop("per_topic")
        report["passage"][cond] = row
        for name, extent in GRID.items():
            row = run_topics(store, topics, qrels, spans, ModelParams(teaser_penalty=0.0, extent=extent))
            per_topic[cond][name] = row.pop("per_topic")
            report["grid"][name][cond] = row
            print(f"{cond} | {name}: R-prec {row['rprec_chars']:.4f}, {row['search_ms_per_query']:.0f} ms", flush=True)
        for name, params in CONTEXT.items():
            row = run_topics(store, topics, qrels, spans, params)
            per_topic[cond][name] = row.pop("per_topic")
            report["context"][name][cond] = row
            print(f"{cond} | {name}: R-prec {row['rprec_chars']:.4f}, {row['search_ms_per_query']:.0f} ms", flush=True)
        store.close()
    ours_grid = {name: per_topic[OURS][name] for name in GRID}
    chosen, final = nested_choice(ours_grid, day)
    report["chosen"], report["final"] = chosen, final
    report["ships_final"] = ExtentParams() == GRID[final]
    # on our stories the two ways of treating given stories are the same search: K is chosen per way
    chosen_context, final_context = nested_choice({name: per_topic[OURS][name] for name in CONTEXT_WHOLE}, day)
    chosen_clipped, final_clipped = nested_choice({name: per_topic[OURS][name] for name in CONTEXT_CLIPPED}, day)
    chosen_any, final_any = nested_choice({name: per_topic[OURS][name] for name in (*GRID, *CONTEXT_WHOLE)}, day)
    report["chosen_context"], report["final_context"] = chosen_context, final_context
    report["chosen_clipped"], report["final_clipped"] = chosen_clipped, final_clipped
    report["chosen_any"], report["final_any"] = chosen_any, final_any
    fixed_before = {d: next(iter(GRID)) for d in chosen}
    report["summary"] = {}
    for cond in CONDITIONS:
        report["summary"][cond] = {
            "ranked passages": {k: report["passage"][cond][k] for k in
                                ("rprec_chars", "psg_rprec_chars", "top_hit_in_relevant_story_play_from")},
            "soft extents as before (fitted on all days)": pooled(per_topic[cond], fixed_before, day),
            "soft extents, held-out choice": pooled(per_topic[cond], chosen, day),
            f"{SHIPPED} (ships: {final})": pooled(per_topic[cond], {d: final for d in chosen}, day),
            "context windows, held-out K": pooled(per_topic[cond], chosen_context, day),
            f"context windows, all-days K ({final_context})": pooled(per_topic[cond], {d: final_context for d in chosen},
                                                                     day),
            "context windows clipped in given stories, held-out K": pooled(per_topic[cond], chosen_clipped, day),
            "extents' grid and context windows, held-out choice": pooled(per_topic[cond], chosen_any, day),
        }
    shipped = {d: next((n for n, e in GRID.items() if e == ExtentParams()), final) for d in chosen}
    runs = {"without context windows (extents held out)": chosen, "without context windows (shipped extents)": shipped,
            "context windows, held-out K": chosen_context,
            "context windows clipped in given stories, held-out K": chosen_clipped}
    held = {(cond, run): held_out_values(per_topic[cond], pick, day) for cond in CONDITIONS for run, pick in runs.items()}
    report["paired"] = {
        **{f"ours vs none, {run}": paired(held[(OURS, run)], held[(NONE, run)]) for run in runs},
        **{f"{short}: context windows (held-out K) vs shipped extents alone":
           paired(held[(cond, "context windows, held-out K")], held[(cond, "without context windows (shipped extents)")])
           for cond, short in ((TRUE, "true stories"), (NONE, "none"), (OURS, "ours"))},
        "true stories: context windows clipped in given stories (held-out K) vs shipped extents alone":
            paired(held[(TRUE, "context windows clipped in given stories, held-out K")],
                   held[(TRUE, "without context windows (shipped extents)")]),
    }
    report["ratios"] = {label: {"rprec": report["summary"][OURS][label]["rprec_chars"]
                                / report["summary"][TRUE][label]["rprec_chars"],
                                "psg_rprec": report["summary"][OURS][label]["psg_rprec_chars"]
                                / report["summary"][TRUE][label]["psg_rprec_chars"]}
                        for label in report["summary"][OURS]}
    report["per_day"] = per_day(per_topic, shipped, day, folder_in)
    report["per_topic"] = per_topic
    report["day_of_topic"] = day
    suffix = "-quick" if args.quick else ""
    write_result(f"segment_landing{suffix}", report, markdown(report), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
