"""Held-out story segmentation, day by day: the HMM against the caption-gap rule and the peers.

Run from the repository root::

    python bench/segment_heldout_bench.py [--peer-cache FILE] [--model-cache DIR]

Writes ``bench/results/segment_heldout.json`` and ``bench/results/segment_heldout.md``.

Nested leave-one-day-out on the NewsScape caption days (``../shared/data/newsscape``):
each day is decoded by systems fitted on the other days only. ``train_model`` fits every
hyper-parameter, feature weight and the boundary penalty on cross-fitted folds of those
training days; the caption-gap rule's threshold T is chosen on the training days by TDT
cost. The block length of ingest's path and the boundary rule over the posterior
(``engine.segment.boundaries``) are chosen on inner leave-one-day-out decodes: each training
day decoded by a model trained on the other training days. Scores are given for every
held-out day separately (the target is per day) and pooled, with the share of hypothesised
boundaries inside a true commercial block. Peers in the same run: no boundary, evenly
spaced stories at the training mean length, TextTiling (nltk), C99 (``uts``; marked absent
if not installed). One row places the true number of boundaries (it reads the truth, so it is
a ceiling for the rule's evidence, not a system).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.common import SHARED, write_result
from bench.segment_bench import (
    _PEER_CACHE,
    C99_WINDOW_SENTENCES,
    c99_starts,
    cached_peer,
    nltk_scores,
    texttiling_starts,
)
from engine.evaluate.segmentation import evenly_spaced_starts, score_documents
from engine.research.segment.boundary_fit import fit_block_seconds, fit_boundary_rule, viterbi_with_blocks
from engine.research.segment.combiner_fit import DecodedDay, fit_combiner, oracle_sweep
from engine.research.segment.experiments import hmm_starts, nested_leave_one_out
from engine.research.segment.fit import train_model
from engine.research.segment.gap_rule import fit_gap_threshold
from engine.segment import config
from engine.segment.boundaries import BoundaryRule
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES
from engine.segment.rules import enforce_min_length, gap_rule_starts
from engine.segment.segmenter import segment_transcript
from engine.segment.text import Transcript, read_commercial_blocks, read_corpus

HMM = "HMM, paper's features, fitted weights"
HMM_SENT = "HMM + SENTENCE-START, fitted weights"
FLOOR = f"HMM + SENTENCE-START, story floor {config.MIN_STORY_WORDS} words"
GAP = "caption-gap rule (T on training days)"
HYBRID = f"HMM + SENTENCE-START and gap rule, story floor {config.MIN_STORY_WORDS} words"
BLOCKS = (f"HMM + SENTENCE-START, commercial blocks as one segment (length from inner held-out days), "
          f"story floor {config.MIN_STORY_WORDS} words")
RULE = "HMM + SENTENCE-START posterior, pauses and blocks (rule fitted on inner held-out days)"
COMBINER = ("HMM + SENTENCE-START posterior, pauses, cohesion and blocks, logistic combiner "
            "(fitted on inner held-out days)")
ORACLE = "HMM + SENTENCE-START rule at the true number of boundaries (oracle count, uses the truth)"
HMM_ROWS = (HMM, HMM_SENT, FLOOR, BLOCKS, HYBRID, RULE, COMBINER)
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


_POSTERIORS: dict = {}


def held_out_decode(train, features, label: str, transcript: Transcript) -> tuple[np.ndarray, np.ndarray]:
    """Viterbi starts and start posterior of ``transcript`` under the model trained on ``train`` (cached)."""
    import hashlib

    key = label + ":" + "+".join(sorted(t.name for t in train)) + ">" + transcript.name
    if key not in _POSTERIORS:
        digest = hashlib.sha1(key.encode()).hexdigest()[:16]
        post = None if MODEL_CACHE is None else MODEL_CACHE / f"post-{digest}.npy"
        vit = None if MODEL_CACHE is None else MODEL_CACHE / f"vit-{digest}.npy"
        if post is not None and vit is not None and post.is_file() and vit.is_file():
            _POSTERIORS[key] = (np.load(vit), np.load(post))
        else:
            seg = segment_transcript(transcript, model=trained(train, features, label))
            _POSTERIORS[key] = (seg.story_starts, seg.boundary_posterior)
            if post is not None and vit is not None:
                np.save(vit, seg.story_starts)
                np.save(post, seg.boundary_posterior)
    return _POSTERIORS[key]


def held_out_posterior(train, features, label: str, transcript: Transcript) -> np.ndarray:
    """Start posterior of ``transcript``'s words under the model trained on ``train``."""
    return held_out_decode(train, features, label, transcript)[1]


def fitted_block_seconds(train, features, label: str) -> float:
    """Block length for the Viterbi stories, chosen on inner leave-one-day-out decodes of the training days."""
    decoded = [(*held_out_decode([t for t in train if t is not inner], features, label, inner), inner)
               for inner in train]
    return fit_block_seconds(decoded)


_RULES: dict = {}


def fitted_rule(train, features, label: str) -> BoundaryRule:
    """The boundary rule chosen on inner leave-one-day-out decodes of the training days alone.

    Each training day is decoded by the model trained on the other training days, and the rule
    must beat, on that day, the gap rule (T fitted on the other training days) and no boundary.
    """
    import hashlib

    key = label + ":" + "+".join(sorted(t.name for t in train))
    path = None if MODEL_CACHE is None else MODEL_CACHE / f"rule-{hashlib.sha1(key.encode()).hexdigest()[:16]}.json"
    if key not in _RULES and path is not None and path.is_file():
        _RULES[key] = BoundaryRule.from_dict(json.loads(path.read_text(encoding="utf-8")))
    if key not in _RULES:
        decoded = [(held_out_posterior([t for t in train if t is not inner], features, label, inner), inner)
                   for inner in train]
        _RULES[key] = fit_boundary_rule(decoded, peers=[inner_peers([t for t in train if t is not inner], inner)
                                                        for _, inner in decoded])
        if path is not None:
            path.write_text(json.dumps(_RULES[key].as_dict()), encoding="utf-8")
    return _RULES[key]


def inner_peers(train, day: Transcript) -> np.ndarray:
    """C_seg, Pk, WindowDiff on ``day`` of the gap rule (T fitted on ``train``) and of no boundary, (2, 3)."""
    out = []
    for starts in (gap_rule_starts(day, threshold=fit_gap_threshold(train)), np.zeros(1, dtype=np.int64)):
        s = score_documents([day.story_starts], [starts], [len(day)])
        out.append([s.tdt_cost, s.pk, s.windowdiff])
    return np.asarray(out)


def fitted_combiner(train, features, label: str):
    """The combiner chosen on inner leave-one-day-out decodes of the training days, and the gap rule's T there."""
    threshold = fit_gap_threshold(train)
    inner = [DecodedDay(t, *held_out_decode([x for x in train if x is not t], features, label, t)) for t in train]
    peers = [inner_peers([x for x in train if x is not t], t) for t in train]
    return fit_combiner(inner, gap_seconds=threshold, peers=peers)


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


def systems(have_c99: bool, thresholds: dict, rules: dict | None = None, oracles: dict | None = None,
            weights: dict | None = None) -> dict:
    """Every system as a fitter: it sees the training days only and returns a segmenter.

    ``oracles`` and ``weights`` collect, per held-out day, the combiner's oracle sweep (which
    reads the truth) and its fitted weights.
    """
    oracles = {} if oracles is None else oracles
    weights = {} if weights is None else weights
    def hmm(features, label, floor=False):
        def fit(train):
            model = trained(train, features, label)
            return (lambda t: floored(model, t)) if floor else (lambda t: hmm_starts(model, t))
        return fit

    def both(train):
        model = trained(train, PUNCTUATED_FEATURES, "punctuated")
        threshold = fit_gap_threshold(train)
        return lambda t: hybrid(model, t, threshold)

    def with_rule(features, label, row):
        def fit(train):
            rule = fitted_rule(train, features, label)

            def decode(t):
                if rules is not None:
                    rules.setdefault(row, {})[t.name] = rule.as_dict()
                return rule.on_transcript(held_out_posterior(train, features, label, t), t)
            return decode
        return fit

    def blocks(train):
        seconds = fitted_block_seconds(train, PUNCTUATED_FEATURES, "punctuated")

        def decode(t):
            if rules is not None:
                rules.setdefault(BLOCKS, {})[t.name] = {"block_seconds": seconds}
            viterbi, posterior = held_out_decode(train, PUNCTUATED_FEATURES, "punctuated", t)
            return viterbi_with_blocks(viterbi, posterior, t, block_seconds=seconds)
        return decode

    def combined(train):
        combiner = fitted_combiner(train, PUNCTUATED_FEATURES, "punctuated")

        def decode(t):
            day = DecodedDay(t, *held_out_decode(train, PUNCTUATED_FEATURES, "punctuated", t))
            found = combiner.story_starts(day.cues(combiner.gap_seconds), n_words=len(t), starts=t.starts,
                                          ends=t.ends)
            if rules is not None:
                rules.setdefault(COMBINER, {})[t.name] = {
                    "threshold": combiner.threshold, "min_words": combiner.min_words,
                    "block_seconds": combiner.block_seconds, "gap_seconds": combiner.gap_seconds}
                # the gap rule as the held-out day's bench scores it, and no boundary
                peers = inner_peers(train, t)
                oracles[t.name] = {**oracle_sweep(combiner, day, peers), "gap_rule": peers[0].tolist(),
                                   "no_boundary": peers[1].tolist()}
                weights[t.name] = dict(zip(("intercept", *combiner.cue_names), combiner.weights, strict=True))
            return found
        return decode

    def oracle(train):
        rule = fitted_rule(train, PUNCTUATED_FEATURES, "punctuated")

        def decode(t):
            posterior, want = held_out_posterior(train, PUNCTUATED_FEATURES, "punctuated", t), len(t.story_starts) - 1
            lo, hi = 0.0, 4.0  # evidence thresholds: more boundaries at lo than at hi
            for _ in range(30):
                mid = 0.5 * (lo + hi)
                count = len(replace(rule, threshold=mid).on_transcript(posterior, t)) - 1
                lo, hi = (mid, hi) if count > want else (lo, mid)
            return replace(rule, threshold=hi).on_transcript(posterior, t)
        return decode

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
        BLOCKS: blocks,
        RULE: with_rule(PUNCTUATED_FEATURES, "punctuated", RULE),
        COMBINER: combined,
        ORACLE: oracle,
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
    rules: dict[str, dict] = {}
    oracles: dict[str, dict] = {}
    weights: dict[str, dict] = {}
    t0 = time.perf_counter()
    found = nested_leave_one_out(days, systems(have_c99, thresholds, rules, oracles, weights))
    print(f"nested leave-one-day-out: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    per_day = {held.name: {name: nltk_scores([held], [h]) for name, h in hyps.items()}
               for held, hyps in zip(days, found, strict=True)}
    pooled = {name: nltk_scores(list(days), [hyps[name] for hyps in found]) for name in found[0]}
    inside = {held.name: {name: share_inside_commercials(h, held) for name, h in hyps.items()}
              for held, hyps in zip(days, found, strict=True)}
    return {"per_day": per_day, "pooled": pooled, "gap_thresholds": thresholds, "rules": rules,
            "inside_commercials": inside, "combiner_oracle": oracles, "combiner_weights": weights}


def share_inside_commercials(starts: np.ndarray, transcript: Transcript) -> float:
    """Share of hypothesised boundaries (word 0 aside) strictly inside a commercial block of the truth."""
    path = SHARED / "newsscape" / transcript.name
    blocks = read_commercial_blocks(path) if path.is_file() else np.zeros((0, 2), dtype=np.int64)
    b = np.asarray(starts)[np.asarray(starts) > 0]
    if b.size == 0:
        return 0.0
    inside = ((b[:, None] > blocks[None, :, 0]) & (b[:, None] < blocks[None, :, 1])).any(axis=1)
    return float(inside.mean())



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
    days = list(results["per_day"])
    lines += ["", "## Share of hypothesised boundaries inside a true commercial block", "",
              "| system | " + " | ".join(f"day {i + 1}" for i in range(len(days))) + " |",
              "| --- |" + " ---: |" * len(days)]
    for name in results["pooled"]:
        lines.append(f"| {name} | " + " | ".join(f"{results['inside_commercials'][d][name]:.3f}" for d in days) + " |")
    lines += ["", "## Boundary rules chosen on the training days of each fold", ""]
    for row, by_day in results["rules"].items():
        for day, rule in by_day.items():
            lines.append(f"- {row}, held-out {day}: " + ", ".join(f"{k} {v:g}" for k, v in rule.items()))
    lines += ["", "## Combiner: best C_seg any setting reaches with Pk and WindowDiff at or below the gap rule's "
              "and no boundary's", "",
              "Oracle sweep: it reads the held-out day's truth, so it shows what the combiner's cues and weights "
              "can reach at all, not a system. Thresholds 0.02-0.98 in steps of 0.02, minimum story length "
              "30/60/100/150 words, blocks 0/30/60 s; weights as fitted on the training days.", "",
              "| day | setting found | threshold | min words | blocks (s) | C_seg | Pk | WindowDiff | "
              "C_seg below the gap rule's | gap rule C_seg / Pk / WD | no boundary WD |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |"]
    for i, day in enumerate(days):
        o = results["combiner_oracle"].get(day, {})
        if not o:
            continue
        gap = " / ".join(f"{x:.3f}" for x in o["gap_rule"])
        if o["reachable"]:
            lines.append(f"| {i + 1} | yes | {o['threshold']:g} | {o['min_words']} | {o['block_seconds']:g} | "
                         f"{o['c_seg']:.3f} | {o['pk']:.3f} | {o['windowdiff']:.3f} | "
                         f"{'yes' if o['beats_first_peer'] else 'no'} | {gap} | {o['no_boundary'][2]:.3f} |")
        else:
            lines.append(f"| {i + 1} | no | | | | | | | no | {gap} | {o['no_boundary'][2]:.3f} |")
    lines += ["", "## Targets", "", "| system | beats every peer on C_seg, Pk, WindowDiff on every day | "
              "WindowDiff below no boundary on every day |", "| --- | --- | --- |"]
    for name, ok in results["targets"].items():
        lines.append(f"| {name} | {'yes' if ok['beats_peers'] else 'no'} | {'yes' if ok['below_no_boundary'] else 'no'} |")
    return "\n".join(lines) + "\n"


def targets(results: dict) -> dict:
    """For every HMM row: does it beat every peer on every measure on every day, and no boundary on WindowDiff?"""
    peers = [n for n in next(iter(results["per_day"].values())) if not n.startswith("HMM")]  # gap rule included
    out = {}
    for name in HMM_ROWS:
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
