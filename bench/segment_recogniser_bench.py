"""Held-out story segmentation of recogniser-like text: the recogniser model against today's choice.

Run from the repository root::

    python bench/segment_recogniser_bench.py [--model-cache DIR] [--seed 7]

Every NewsScape caption day is made recogniser-like (lower case, no inner punctuation,
speaker labels and ``>>`` gone, as ``read_txt3`` gives them, with the sentence ends thinned
at random to Whisper's rate of one per 42 words: ``engine/research/segment/recogniser_like.py``)
and segmented by systems fitted on the other days only (nested leave-one-day-out):

* the recogniser model (``newsscape-recogniser``): the punctuated feature set trained on the
  training days made Whisper-like, on ingest's path (Viterbi, commercial blocks of 30 s, the
  30-word floor, as ``segment_recognised`` applies them), and with boundaries where the start
  posterior peaks above a threshold fitted on inner leave-one-day-out decodes of the training
  days (the inner models reuse the outer model's hyper-parameters, tuned on the training days alone);
* the previous choice for Whisper output: ``newsscape-punctuated`` trained on the captions as
  they are, on the same path;
* the paper's feature set (``newsscape``, today's choice for unpunctuated output) on the same input;
* the caption-gap rule (T fitted on the training days) and no boundary.

It also counts, on every held-out day, the recogniser model's boundaries at every threshold
(the operating range). Writes ``bench/results/segment_recogniser.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.segment_heldout_bench as heldout  # noqa: E402
from bench.segment_bench import nltk_scores  # noqa: E402
from engine.research.segment.combiner_fit import DecodedDay, fit_combiner  # noqa: E402
from engine.research.segment.fit import train_model  # noqa: E402
from engine.research.segment.gap_rule import fit_gap_threshold  # noqa: E402
from engine.research.segment.recogniser_like import (  # noqa: E402
    fit_posterior_threshold,
    threshold_starts,
    whisper_like,
)
from engine.segment import config  # noqa: E402
from engine.segment.combiner import BoundaryCombiner  # noqa: E402
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES  # noqa: E402
from engine.segment.model import SegmentationModel  # noqa: E402
from engine.segment.rules import gap_rule_starts  # noqa: E402
from engine.segment.segmenter import segment_recognised, segment_transcript  # noqa: E402
from engine.segment.text import Transcript, read_corpus  # noqa: E402

NEWSSCAPE = ROOT.parent / "shared" / "data" / "newsscape"
from bench.common import write_result  # noqa: E402

RESULTS = ROOT / "bench" / "results"
#: Block length (s) of the shipped punctuated model, used for today's choice.
SHIPPED_BLOCK_SECONDS = 30.0
#: Thresholds at which the operating range is counted.
RANGE = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)

NEW = "recogniser model, posterior threshold fitted on inner held-out days, floor 30"
TODAY = (f"newsscape-punctuated, Viterbi, blocks of {SHIPPED_BLOCK_SECONDS:g} s, floor 30 "
         "(the choice for Whisper before the recogniser model)")
NEW_VITERBI = "recogniser model, Viterbi, floor 30"
NEW_BLOCKS = f"recogniser model, Viterbi, blocks of {SHIPPED_BLOCK_SECONDS:g} s, floor 30 (ingest, for Whisper)"
PAPER = "newsscape (paper's features), Viterbi, floor 30 (no punctuation)"
COMBINED = "recogniser model, boundary combiner fitted on inner held-out days"


def recogniser_model(train: list[Transcript], cache: Path | None) -> SegmentationModel:
    """The recogniser model trained on ``train`` (already Whisper-like), tuned on its folds (cached)."""
    import hashlib

    key = "recogniser:" + "+".join(sorted(t.name for t in train))
    path = None if cache is None else cache / f"recogniser-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if path is not None and path.is_file():
        return SegmentationModel.load(path)
    model = train_model(train, features=PUNCTUATED_FEATURES, info={"input": "whisper-like captions"})
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        model.save(path)
    return model


def inner_decodes(train: list[Transcript], outer: SegmentationModel, cache: Path | None = None) -> list[DecodedDay]:
    """Every training day decoded by a recogniser model trained on the other training days (outer hyper-parameters)."""
    import hashlib

    decoded = []
    for inner in train:
        rest = [t for t in train if t is not inner]
        key = "recogniser-inner:" + "+".join(sorted(t.name for t in rest)) + ">" + inner.name + str(outer.hyper)
        digest = hashlib.sha1(key.encode()).hexdigest()[:16]
        post = None if cache is None else cache / f"rpost-{digest}.npy"
        vit = None if cache is None else cache / f"rvit-{digest}.npy"
        if post is not None and vit is not None and post.is_file() and vit.is_file():
            viterbi, posterior = np.load(vit), np.load(post)
        else:
            model = train_model(rest, hyper=outer.hyper, features=PUNCTUATED_FEATURES)
            seg = segment_transcript(inner, model=model)
            viterbi, posterior = seg.story_starts, seg.boundary_posterior
            if post is not None and vit is not None:
                np.save(post, posterior)
                np.save(vit, viterbi)
        decoded.append(DecodedDay(inner, viterbi, posterior))
    return decoded


def fitted_threshold(train: list[Transcript], outer: SegmentationModel, cache: Path | None = None) -> float:
    """Posterior threshold fitted on inner leave-one-day-out decodes of ``train`` (outer hyper-parameters)."""
    return fit_posterior_threshold([(d.posterior, d.transcript) for d in inner_decodes(train, outer, cache)])


def fitted_combiner(train: list[Transcript], outer: SegmentationModel, cache: Path | None = None) -> BoundaryCombiner:
    """The boundary combiner fitted on the inner decodes, against the gap rule and no boundary on each inner day."""
    peers = [heldout.inner_peers([x for x in train if x is not t], t) for t in train]
    return fit_combiner(inner_decodes(train, outer, cache), gap_seconds=fit_gap_threshold(train), peers=peers)


def floored_viterbi(model: SegmentationModel, day: Transcript) -> np.ndarray:
    """Viterbi starts of ``day`` with the 30-word floor, int64 (k,)."""
    return segment_transcript(day, model=model).merged_short(config.MIN_STORY_WORDS).story_starts


def today_choice(model: SegmentationModel, day: Transcript) -> np.ndarray:
    """``segment_recognised``'s Viterbi path with ``model``: Viterbi, blocks of 30 s, floor."""
    with_blocks = replace(model, info={**model.info, "block_seconds": SHIPPED_BLOCK_SECONDS})
    shown = list(day.words)
    for i in day.sentence_starts[1:]:
        shown[i - 1] = shown[i - 1] + "."
    return segment_recognised(day.words, shown, engine="whisper", starts=day.starts, ends=day.ends,
                              model=with_blocks).story_starts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-cache", type=Path, default=None, metavar="DIR",
                        help="folder that keeps trained models between runs (shared with segment_heldout_bench.py)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the sentence thinning")
    args = parser.parse_args(argv)
    if not NEWSSCAPE.is_dir():
        print(f"skipped: {NEWSSCAPE} is absent", file=sys.stderr)
        return 0
    heldout.MODEL_CACHE = args.model_cache
    captions = read_corpus(NEWSSCAPE)
    rng = np.random.default_rng(args.seed)
    days = [whisper_like(t, rng=rng) for t in captions]
    per_day: dict[str, dict] = {}
    hyps: dict[str, list[np.ndarray]] = {}
    for held, caption_day in zip(days, captions, strict=True):
        train = [t for t in days if t is not held]
        caption_train = [t for t in captions if t is not caption_day]
        model = recogniser_model(train, args.model_cache)
        threshold = fitted_threshold(train, model, args.model_cache)
        gap = fit_gap_threshold(train)
        combiner = fitted_combiner(train, model, args.model_cache)
        held_seg = segment_transcript(held, model=model)
        posterior = held_seg.boundary_posterior
        held_cues = DecodedDay(held, held_seg.story_starts, posterior).cues(combiner.gap_seconds)
        found = {
            NEW: threshold_starts(posterior, len(held), threshold=threshold),
            NEW_VITERBI: floored_viterbi(model, held),
            NEW_BLOCKS: today_choice(model, held),
            COMBINED: combiner.story_starts(held_cues, n_words=len(held), starts=held.starts, ends=held.ends),
            TODAY: today_choice(heldout.trained(caption_train, PUNCTUATED_FEATURES, "punctuated"), held),
            PAPER: floored_viterbi(heldout.trained(caption_train, DEFAULT_FEATURES, "paper"), held),
            f"caption-gap rule (T on training days, {gap:g} s here)": gap_rule_starts(held, threshold=gap),
            "no boundary": np.zeros(1, dtype=np.int64),
        }
        per_day[held.name] = {
            "threshold": threshold, "gap_seconds": gap, "combiner": combiner.as_dict(),
            "sentences": int(held.sentence_starts.size),
            "scores": {name: nltk_scores([held], [h]) for name, h in found.items()},
            "boundaries_vs_threshold": {f"{p:g}": int(threshold_starts(posterior, len(held), threshold=p).size - 1)
                                        for p in RANGE},
        }
        for name, h in found.items():
            hyps.setdefault(name.split(" (T on")[0], []).append(h)
        print(held.name, json.dumps({k: round(v["tdt_cost"], 3) for k, v in per_day[held.name]["scores"].items()}),
              flush=True)
    pooled = {name: nltk_scores(days, h) for name, h in hyps.items()}
    results = {"machine": f"{platform.machine()}, {platform.python_version()}", "seed": args.seed,
               "pooled": pooled, "days": per_day}
    write_result("segment_recogniser", results, markdown(results), indent=2, echo=True)
    return 0


def table(scores: dict) -> list[str]:
    """Markdown rows of one score table."""
    rows = ["| system | P(miss) | P(false alarm) | C_seg (norm.) | Pk | WindowDiff | boundaries |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, s in scores.items():
        rows.append(f"| {name} | {s['p_miss']:.3f} | {s['p_false_alarm']:.3f} | {s['tdt_cost']:.3f} | "
                    f"{s['pk']:.3f} | {s['windowdiff']:.3f} | {s['boundaries']} |")
    return rows


def markdown(results: dict) -> str:
    """The results as a markdown page."""
    lines = ["# Held-out story segmentation of recogniser-like text", "",
             f"Generated by `bench/segment_recogniser_bench.py` on {results['machine']}: the four NewsScape days "
             "made recogniser-like (lower case, no inner punctuation or markup, sentence ends thinned at random "
             f"to one per 42 words, seed {results['seed']}), nested leave-one-day-out. Lower is better everywhere.",
             "", "## Pooled over the held-out days", "", *table(results["pooled"]), ""]
    for name, day in results["days"].items():
        lines += [f"## Held-out day {name} (threshold {day['threshold']:g}, {day['sentences']} sentences)", "",
                  *table(day["scores"]), ""]
    lines += ["## Operating range: boundaries of the recogniser model against the posterior threshold", "",
              "| day | " + " | ".join(f"{p:g}" for p in RANGE) + " |", "| --- |" + " ---: |" * len(RANGE)]
    for name, day in results["days"].items():
        lines.append(f"| {name[:10]} {name[29:33]} | "
                     + " | ".join(str(day["boundaries_vs_threshold"][f"{p:g}"]) for p in RANGE) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
