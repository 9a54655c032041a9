"""A speaker change as a story cue, held out: the boundary combiner with and without ``speaker_change``.

Run from the repository root::

    python -m bench.segment_speaker_cue_bench [--model-cache DIR] [--seeds N]

Writes ``bench/results/segment_speaker_cue.json`` and ``.md``.

Nested leave-one-day-out on the four NewsScape caption days (``../shared/data/newsscape``),
the protocol of ``bench/segment_heldout_bench.py`` (whose held-out decodes and peers it reuses):
each held-out day is decoded by the HMM trained on the other three days, and the combiner is
fitted on inner leave-one-day-out decodes of those three days only: with the cues of the
shipped combiner, with ``speaker_change`` added, and with the turn lengths added too
(``engine.segment.combiner.SPEAKER_CUES``). Speaker changes are the caption rows'
``>>`` and ``>>>`` marks, read alike as "another speaker starts here"; as ``>>>`` also opens
every true segment on three of the days (``bench/caption_markup_bench.py``), rows that keep only
``>>`` stand for what a diarizer can know (a lower bound: they lose the real speaker changes a
captioner marked ``>>>``); the rows with ``>>>`` flatter the cue. Rows with
noised turns stand for diarized ones: on the held-out day only (the combiner is fitted on the
caption marks, as the shipped one would be), a share of the changes is dropped and as many
false changes as that share of the true count are added at random words (seeded), at rates
near the held-out DER of ``bench/results/speakers.json`` (about 0.09) and near its harder
broadcasts (about 0.3). Peers in the same run: the caption-gap rule and no boundary.
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

import bench.segment_heldout_bench as heldout
from bench.common import SHARED, write_result
from bench.segment_bench import nltk_scores
from engine.research.segment.combiner_fit import DecodedDay, fit_combiner
from engine.research.segment.gap_rule import fit_gap_threshold
from engine.segment.combiner import CUE_NAMES, SPEAKER_CUE_NAMES, TURN_CUE_NAMES
from engine.segment.features import PUNCTUATED_FEATURES
from engine.segment.rules import gap_rule_starts
from engine.segment.text import Transcript, normalize_words, read_corpus, txt3_rows

#: A hypothesised start within this many words of a true one counts as found.
TOLERANCE_WORDS = 10
#: (share of true changes dropped, false changes added as a share of the true count) per noised row.
NOISE = ((0.1, 0.1), (0.3, 0.3))
NO_CUE = "combiner without speaker cues (shipped cues)"
#: Speaker rows: (turns read from, cues added to the shipped ones).
SOURCES = {"both": ">> and >>>", "single": ">> only (>>> dropped)"}
CUE_SETS = {"change": (SPEAKER_CUE_NAMES, "speaker_change"),
            "turns": (TURN_CUE_NAMES, "speaker_change and turn lengths")}
GAP = "caption-gap rule (T on training days)"
NONE = "no boundary"
LABEL = "punctuated"


def speaker_label(source: str, cues: str) -> str:
    return f"with {CUE_SETS[cues][1]}, turns from {SOURCES[source]}"


def noisy_label(source: str, cues: str, drop: float, add: float) -> str:
    return f"{speaker_label(source, cues)}, noised: {drop:.0%} dropped, {add:.0%} false added"


def triple_chevrons(path: Path) -> np.ndarray:
    """Word indices of a caption file's ``>>>`` marks, counted as :func:`read_txt3` counts words, int64."""
    out: list[int] = []
    count = 0
    for row in txt3_rows(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        if not row.is_caption:
            continue
        out.extend(count + len(normalize_words(row.text[:m.start()])) for m in re.finditer(">{3,}", row.text))
        count += len(normalize_words(row.text))
    return np.asarray(out, dtype=np.int64)


def noised(changes: np.ndarray, n_words: int, *, drop: float, add: float, rng: np.random.Generator) -> np.ndarray:
    """``changes`` with a share ``drop`` removed and ``add`` x their count false ones at random words."""
    kept = changes[rng.random(changes.size) >= drop]
    false = rng.integers(1, n_words, round(add * changes.size))
    return np.unique(np.concatenate([kept, false])).astype(np.int64)


def start_recall_precision(truth: np.ndarray, found: np.ndarray, tolerance: int = TOLERANCE_WORDS) -> tuple[
        int, int, int]:
    """True starts found within ``tolerance`` words, true starts and hypothesised starts (word 0 aside)."""
    ref, hyp = truth[truth > 0], found[found > 0]
    if ref.size == 0 or hyp.size == 0:
        return 0, int(ref.size), int(hyp.size)
    hit = int((np.abs(ref[:, None] - hyp[None, :]).min(axis=1) <= tolerance).sum())
    return hit, int(ref.size), int(hyp.size)


def scores(days: list[Transcript], found: list[np.ndarray]) -> dict:
    out = nltk_scores(days, found)
    counts = np.sum([start_recall_precision(t.story_starts, f) for t, f in zip(days, found, strict=True)], axis=0)
    hit, ref, hyp = (int(x) for x in counts)
    hyp_hit = sum(int((np.abs(f[f > 0][:, None] - t.story_starts[t.story_starts > 0][None, :]).min(axis=1)
                       <= TOLERANCE_WORDS).sum()) if (f > 0).any() and (t.story_starts > 0).any() else 0
                  for t, f in zip(days, found, strict=True))
    out["start_recall"] = hit / ref if ref else 0.0
    out["start_precision"] = hyp_hit / hyp if hyp else 0.0
    return out


def fitted(train: list[Transcript], cue_names) -> object:
    """The combiner fitted on inner leave-one-day-out decodes of ``train`` (their turns as given)."""
    inner = [DecodedDay(t, *heldout.held_out_decode([x for x in train if x is not t], PUNCTUATED_FEATURES, LABEL,
                                                     t)) for t in train]
    peers = [heldout.inner_peers([x for x in train if x is not t], t) for t in train]
    return fit_combiner(inner, gap_seconds=fit_gap_threshold(train), peers=peers, cue_names=cue_names)


def decode(combiner, train: list[Transcript], day: Transcript) -> np.ndarray:
    vit, post = heldout.held_out_decode(train, PUNCTUATED_FEATURES, LABEL, day)
    cues = DecodedDay(day, vit, post).cues(combiner.gap_seconds)
    return combiner.story_starts(cues, n_words=len(day), starts=day.starts, ends=day.ends)


def run(days: list[Transcript], singles: list[Transcript], *, seeds: int) -> dict:
    """Per held-out day and pooled scores of every row, and the fitted speaker weights."""
    rows: dict[str, list] = {}
    weights: dict[str, dict] = {}
    for i, held in enumerate(days):
        train = [d for d in days if d is not held]
        plain = fitted([replace(t, speaker_changes=None) for t in train], CUE_NAMES)
        rows.setdefault(NO_CUE, []).append(decode(plain, train, replace(held, speaker_changes=None)))
        weights[held.name] = {"without": {"threshold": plain.threshold, "min_words": plain.min_words}}
        for source, corpus in (("both", days), ("single", singles)):
            own = corpus[i]
            truth = own.speaker_changes if own.speaker_changes is not None else np.zeros(0, dtype=np.int64)
            for cues, (names, _) in CUE_SETS.items():
                combiner = fitted([d for j, d in enumerate(corpus) if j != i], names)
                rows.setdefault(speaker_label(source, cues), []).append(decode(combiner, train, own))
                weights[held.name][speaker_label(source, cues)] = {
                    **dict(zip(names[len(CUE_NAMES):], combiner.weights[len(CUE_NAMES) + 1:], strict=True)),
                    "threshold": combiner.threshold, "min_words": combiner.min_words}
                for drop, add in NOISE:
                    found = [decode(combiner, train, replace(own, speaker_changes=noised(
                        truth, len(held), drop=drop, add=add, rng=np.random.default_rng(seed))))
                        for seed in range(seeds)]
                    rows.setdefault(noisy_label(source, cues, drop, add), []).append(found)
        rows.setdefault(GAP, []).append(gap_rule_starts(held, threshold=fit_gap_threshold(train)))
        rows.setdefault(NONE, []).append(np.zeros(1, dtype=np.int64))
        print(f"held out {held.name}", file=sys.stderr, flush=True)
    per_day: dict[str, dict] = {d.name: {} for d in days}
    pooled: dict[str, dict] = {}
    for name, found in rows.items():
        if isinstance(found[0], list):  # noised rows: scores averaged over the seeds
            runs = [[f[s] for f in found] for s in range(seeds)]
            pooled[name] = _mean([scores(days, r) for r in runs])
            for k, d in enumerate(days):
                per_day[d.name][name] = _mean([scores([d], [r[k]]) for r in runs])
        else:
            pooled[name] = scores(days, found)
            for d, f in zip(days, found, strict=True):
                per_day[d.name][name] = scores([d], [f])
    return {"per_day": per_day, "pooled": pooled, "weights": weights}


def _mean(results: list[dict]) -> dict:
    return {k: float(np.mean([r[k] for r in results])) for k in results[0]}


def day_marks(days: list[Transcript], singles: list[Transcript]) -> dict:
    """Per day: true starts, speaker changes, and the share of true starts with a change within 3 words."""
    out = {}
    for d, s in zip(days, singles, strict=True):
        starts = d.story_starts[d.story_starts > 0]
        row = {"words": len(d), "true_starts": int(starts.size)}
        for key, t in (("changes", d), ("changes_single", s)):
            c = t.speaker_changes if t.speaker_changes is not None else np.zeros(0, dtype=np.int64)
            row[key] = int(c.size)
            near = np.abs(starts[:, None] - c[None, :]).min(axis=1) <= 3 if c.size and starts.size else np.zeros(0)
            row[f"starts_near_{key}"] = float(np.mean(near)) if starts.size else 0.0
        out[d.name] = row
    return out


def markdown(results: dict) -> str:
    head = ("| system | C_seg | Pk | WindowDiff | start recall | start precision | boundaries |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")

    def row(name: str, s: dict) -> str:
        return (f"| {name} | {s['tdt_cost']:.3f} | {s['pk']:.3f} | {s['windowdiff']:.3f} | "
                f"{s['start_recall']:.3f} | {s['start_precision']:.3f} | {s['boundaries']:.0f} |")

    lines = ["## Pooled over the held-out days", "", head, *[row(n, s) for n, s in results["pooled"].items()]]
    days = list(results["per_day"])
    lines += ["", "## C_seg / Pk / WindowDiff per held-out day", "",
              "| system | " + " | ".join(f"day {i + 1}" for i in range(len(days))) + " |",
              "| --- |" + " ---: |" * len(days)]
    for name in results["pooled"]:
        cells = [results["per_day"][d][name] for d in days]
        lines.append(f"| {name} | " + " | ".join(f"{c['tdt_cost']:.3f} / {c['pk']:.3f} / {c['windowdiff']:.3f}"
                                                 for c in cells) + " |")
    for i, (day, rows) in enumerate(results["per_day"].items()):
        lines += ["", f"## Held-out day {i + 1} ({day[:10]})", "", head, *[row(n, s) for n, s in rows.items()]]
    lines += ["", "## What each day marks", "",
              "| day | words | true starts | speaker changes (>> and >>>) | true starts with one within 3 words | "
              "changes from >> only | true starts with one within 3 words |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for i, m in enumerate(results["marks"].values()):
        lines.append(f"| {i + 1} | {m['words']} | {m['true_starts']} | {m['changes']} | {m['starts_near_changes']:.3f} | "
                     f"{m['changes_single']} | {m['starts_near_changes_single']:.3f} |")
    lines += ["", "## Fitted speaker weights (standardised) and settings, per held-out day", "",
              "| day | row | weights | threshold | min words |", "| --- | --- | --- | ---: | ---: |"]
    for i, by_row in enumerate(results["weights"].values()):
        for name, w in by_row.items():
            shown = ", ".join(f"{k} {v:.3f}" for k, v in w.items() if k not in ("threshold", "min_words"))
            lines.append(f"| {i + 1} | {name} | {shown or '-'} | {w['threshold']:g} | {w['min_words']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-cache", type=Path, default=None, metavar="DIR",
                        help="folder that keeps the models trained in each fold between runs")
    parser.add_argument("--seeds", type=int, default=5, help="random draws of each noised row (default 5)")
    args = parser.parse_args(argv)
    heldout.MODEL_CACHE = args.model_cache
    folder = SHARED / "newsscape"
    if not folder.is_dir():
        print(f"skipped: {folder} is absent", file=sys.stderr)
        return 0
    days = read_corpus(folder)
    singles = []
    for d in days:
        triple = triple_chevrons(folder / d.name)
        changes = d.speaker_changes if d.speaker_changes is not None else np.zeros(0, dtype=np.int64)
        singles.append(replace(d, speaker_changes=np.setdiff1d(changes, triple)))
    results = {"machine": f"{platform.machine()}, {platform.python_version()}", "tolerance_words": TOLERANCE_WORDS,
               "noise": [list(n) for n in NOISE], "seeds": args.seeds, "marks": day_marks(days, singles),
               **run(days, singles, seeds=args.seeds)}
    write_result("segment_speaker_cue", results, markdown(results), indent=2)
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
