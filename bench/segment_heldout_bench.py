"""Held-out story segmentation, day by day: the HMM against the caption-gap rule and the peers.

Run from the repository root::

    python bench/segment_heldout_bench.py [--peer-cache FILE]

Writes ``bench/results/segment_heldout.json`` and ``bench/results/segment_heldout.md``.

Nested leave-one-day-out on the NewsScape caption days (``../shared/data/newsscape``):
each day is decoded by systems fitted on the other days only. ``train_model`` fits every
hyper-parameter, feature weight and the boundary penalty on cross-fitted folds of those
training days; the caption-gap rule's threshold T is chosen on the training days by TDT
cost. Scores are given for every held-out day separately (the issue's target is per day)
and pooled. Peers in the same run: no boundary, evenly spaced stories at the training
mean length, TextTiling (nltk), C99 (``uts``; marked absent if not installed).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, write_result
from bench.segment_bench import (
    _PEER_CACHE,
    C99_WINDOW_SENTENCES,
    c99_starts,
    cached_peer,
    nltk_scores,
    texttiling_starts,
)
from engine.evaluate.segmentation import evenly_spaced_starts
from engine.research.segment.experiments import hmm_starts, nested_leave_one_out
from engine.research.segment.fit import train_model
from engine.research.segment.gap_rule import fit_gap_threshold
from engine.segment import config
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES
from engine.segment.rules import enforce_min_length, gap_rule_starts
from engine.segment.segmenter import segment_transcript
from engine.segment.text import read_corpus

HMM = "HMM, paper's features, fitted weights"
HMM_SENT = "HMM + SENTENCE-START, fitted weights"
FLOOR = f"HMM + SENTENCE-START, story floor {config.MIN_STORY_WORDS} words"
GAP = "caption-gap rule (T on training days)"
HYBRID = f"HMM + SENTENCE-START and gap rule, story floor {config.MIN_STORY_WORDS} words"
MODEL_CACHE: Path | None = None
_MODELS: dict = {}
MEASURES = ("tdt_cost", "pk", "windowdiff")


def floored(model, transcript) -> np.ndarray:
    """HMM starts with stories under MIN_STORY_WORDS merged across their weaker boundary."""
    seg = segment_transcript(transcript, model=model)
    return enforce_min_length(seg.story_starts, len(transcript), min_words=config.MIN_STORY_WORDS,
                              strength=seg.confidence)


def trained(train, features, label: str):
    """train_model on ``train``, kept in MODEL_CACHE (keyed by the training days) between runs."""
    import hashlib

    from engine.segment.model import SegmentationModel

    key = label + ":" + "+".join(sorted(t.name for t in train))
    if key in _MODELS:
        return _MODELS[key]
    path = None if MODEL_CACHE is None else MODEL_CACHE / f"{label}-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if path is not None and path.is_file():
        model = SegmentationModel.load(path)
    else:
        model = train_model(train, features=features)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            model.save(path)
    _MODELS[key] = model
    return model


def hybrid(model, transcript, threshold: float) -> np.ndarray:
    """HMM starts and the gap rule's starts together, then the story floor (weaker boundary of a short story goes)."""
    seg = segment_transcript(transcript, model=model)
    gap = gap_rule_starts(transcript, threshold=threshold)
    starts = np.union1d(seg.story_starts, gap)
    # evidence of each start: the HMM's posterior near it, plus 1 for a pause longer than T
    from engine.segment.segmenter import boundary_confidence

    strength = boundary_confidence(seg.boundary_posterior, starts, half_window=config.CONFIDENCE_HALF_WINDOW)
    strength = strength + np.isin(starts, gap)
    return enforce_min_length(starts, len(transcript), min_words=config.MIN_STORY_WORDS, strength=strength)


def systems(have_c99: bool, thresholds: dict) -> dict:
    """Every system as a fitter: it sees the training days only and returns a segmenter."""
    def hmm(features, label, floor=False):
        def fit(train):
            model = trained(train, features, label)
            return (lambda t: floored(model, t)) if floor else (lambda t: hmm_starts(model, t))
        return fit

    def both(train):
        model = trained(train, PUNCTUATED_FEATURES, "punctuated")
        threshold = fit_gap_threshold(train)
        return lambda t: hybrid(model, t, threshold)

    def gap(train):
        threshold = fit_gap_threshold(train)

        def decode(t):
            thresholds[t.name] = threshold
            return gap_rule_starts(t, threshold=threshold)
        return decode

    def evenly(train):
        mean_len = float(np.mean(np.concatenate([t.story_lengths() for t in train])))
        return lambda t: evenly_spaced_starts(len(t), max(1, round(len(t) / mean_len)))

    out = {
        HMM: hmm(DEFAULT_FEATURES, "paper"),
        HMM_SENT: hmm(PUNCTUATED_FEATURES, "punctuated"),
        FLOOR: hmm(PUNCTUATED_FEATURES, "punctuated", floor=True),
        HYBRID: both,
        GAP: gap,
        "TextTiling (nltk)": lambda train: lambda t: cached_peer("texttiling", t, texttiling_starts),
        "no boundary": lambda train: lambda t: np.zeros(1, dtype=np.int64),
        "evenly spaced": evenly,
    }
    if have_c99:
        out["C99 (uts)"] = lambda train: lambda t: cached_peer(
            f"c99-{C99_WINDOW_SENTENCES}", t, lambda x: c99_starts(x, window_sentences=C99_WINDOW_SENTENCES))
    return out


def run(days, *, have_c99: bool) -> dict:
    thresholds: dict[str, float] = {}
    t0 = time.perf_counter()
    found = nested_leave_one_out(days, systems(have_c99, thresholds))
    print(f"nested leave-one-day-out: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    per_day = {held.name: {name: nltk_scores([held], [h]) for name, h in hyps.items()}
               for held, hyps in zip(days, found, strict=True)}
    pooled = {name: nltk_scores(list(days), [hyps[name] for hyps in found]) for name in found[0]}
    return {"per_day": per_day, "pooled": pooled, "gap_thresholds": thresholds}


def _row(name: str, s: dict) -> str:
    return (f"| {name} | {s['p_miss']:.3f} | {s['p_false_alarm']:.3f} | {s['tdt_cost']:.3f} | {s['pk']:.3f} | "
            f"{s['windowdiff']:.3f} | {s['boundaries']} |")


def markdown(results: dict) -> str:
    head = ("| system | P(miss) | P(false alarm) | C_seg (norm.) | Pk | WindowDiff | boundaries |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    lines = ["# Held-out story segmentation (nested leave-one-day-out)", "",
             f"Generated by `bench/segment_heldout_bench.py` on {results['machine']}. Every system is fitted on the "
             "other days only (HMM hyper-parameters, weights and penalty on cross-fitted folds of the training "
             "days; the gap rule's T by TDT cost on the training days). Lower is better everywhere.", ""]
    if not results["have_c99"]:
        lines += ["C99: the `uts` package is absent, so C99 is not in this run.", ""]
    lines += ["## Pooled over the held-out days", "", head]
    lines += [_row(n, s) for n, s in results["pooled"].items()]
    for day, rows in results["per_day"].items():
        lines += ["", f"## Held-out day {day} (gap rule T = {results['gap_thresholds'][day]} s)", "", head]
        lines += [_row(n, s) for n, s in rows.items()]
    lines += ["", "## Targets", "", "| system | beats every peer on C_seg, Pk, WindowDiff on every day | "
              "WindowDiff below no boundary on every day |", "| --- | --- | --- |"]
    for name, ok in results["targets"].items():
        lines.append(f"| {name} | {'yes' if ok['beats_peers'] else 'no'} | {'yes' if ok['below_no_boundary'] else 'no'} |")
    return "\n".join(lines) + "\n"


def targets(results: dict) -> dict:
    """For every HMM row: does it beat every peer on every measure on every day, and no boundary on WindowDiff?"""
    peers = [n for n in next(iter(results["per_day"].values())) if not n.startswith("HMM")]  # gap rule included
    out = {}
    for name in (HMM, HMM_SENT, FLOOR, HYBRID):
        beats = all(rows[name][m] < rows[p][m] for rows in results["per_day"].values() for p in peers
                    for m in MEASURES)
        below = all(rows[name]["windowdiff"] < rows["no boundary"]["windowdiff"]
                    for rows in results["per_day"].values())
        out[name] = {"beats_peers": beats, "below_no_boundary": below}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-cache", type=Path, default=None, metavar="FILE",
                        help="JSON file that keeps TextTiling/C99 results between runs (they are slow)")
    parser.add_argument("--model-cache", type=Path, default=None, metavar="DIR",
                        help="folder that keeps the models trained in each fold between runs")
    args = parser.parse_args(argv)
    global MODEL_CACHE
    MODEL_CACHE = args.model_cache
    if not (SHARED / "newsscape").is_dir():
        print(f"skipped: {SHARED / 'newsscape'} is absent", file=sys.stderr)
        return 0
    if args.peer_cache and args.peer_cache.is_file():
        _PEER_CACHE.update(json.loads(args.peer_cache.read_text(encoding="utf-8")))
    try:
        import uts  # noqa: F401
        have_c99 = True
    except ImportError:
        have_c99 = False
    days = read_corpus(SHARED / "newsscape")
    results = {"machine": f"{platform.machine()}, {platform.python_version()}", "have_c99": have_c99,
               **run(days, have_c99=have_c99)}
    results["targets"] = targets(results)
    if args.peer_cache:
        args.peer_cache.write_text(json.dumps(_PEER_CACHE), encoding="utf-8")
    write_result("segment_heldout", results, markdown(results), indent=2)
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
