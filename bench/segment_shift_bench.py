"""Stories of the NewsScape caption days when every word's time moves by a few hundredths of a second.

Run from the repository root::

    python bench/segment_shift_bench.py [--quick] [--before REV]

Writes ``bench/results/segment_shift.json`` and ``bench/results/segment_shift.md``.

Each of the four caption days (``../shared/data/newsscape``, read by ``read_corpus``) is cut as
import cuts a caption transcript (``transcript_stories``: ``segment_recognised`` with the shipped
punctuated model, its blocks, stories under 30 words merged), and again without its punctuation
(as import cuts a caption file that writes no sentence ends: the paper's model), with its word
times as they are and moved: every word's end by -0.05, -0.01, +0.01, +0.05 s (never before its
start), every start by -0.05 and +0.05 s (never after its end), and every start and end by its
own uniform jitter in ±0.05 s (seed ``JITTER_SEED``). For each condition: the number of stories, the agreement of its
boundaries with the unmoved stories (boundary F1 within ``TOLERANCE_WORDS`` words, and Pk with
the unmoved stories as reference), and Pk and WindowDiff against the truth (the captions' story
marks; k half the mean true story length).

The same run measures the code and models of ``--before`` (default ``BEFORE_COMMIT``, the
segmenter before the pause floor), taken out of git into a temporary folder and run there in a
child process. The shipped models were trained on these four days: the Pk columns say how a
shift changes the stories, not how well the segmenter does on unseen days (for that see
``bench/segment_heldout_bench.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: A child process measuring another checkout's code puts that checkout first on the path.
CODE = Path(os.environ.get("EARSHOT_SHIFT_CODE", ROOT))
sys.path.insert(0, str(CODE))

from engine.segment.stories import transcript_stories  # noqa: E402
from engine.segment.text import Transcript, read_corpus  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: The segmenter before the pause floor (gaps under 0.25 s read as none).
BEFORE_COMMIT = "256c141"
TOLERANCE_WORDS = 3
JITTER_SEED = 20061
JITTER_SECONDS = 0.05

Shift = Callable[[np.ndarray, np.ndarray, np.random.Generator], tuple[np.ndarray, np.ndarray]]


def _ends_by(seconds: float) -> Shift:
    return lambda s, e, rng: (s, np.maximum(e + seconds, s))


def _starts_by(seconds: float) -> Shift:
    return lambda s, e, rng: (np.minimum(s + seconds, e), e)


def _jitter(s: np.ndarray, e: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    s2 = s + rng.uniform(-JITTER_SECONDS, JITTER_SECONDS, s.shape)
    e2 = e + rng.uniform(-JITTER_SECONDS, JITTER_SECONDS, e.shape)
    return s2, np.maximum(e2, s2)


#: Conditions in table order; the first is the reference the others are compared with.
CONDITIONS: dict[str, Shift] = {
    "as captioned": lambda s, e, rng: (s, e),
    "ends -0.05 s": _ends_by(-0.05),
    "ends -0.01 s": _ends_by(-0.01),
    "ends +0.01 s": _ends_by(0.01),
    "ends +0.05 s": _ends_by(0.05),
    "starts -0.05 s": _starts_by(-0.05),
    "starts +0.05 s": _starts_by(0.05),
    "jitter ±0.05 s": _jitter,
}


#: What import cuts: caption text as it is (its punctuation picks the punctuated model), and the same
#: words without punctuation (the paper's model), as for a caption file that writes no sentence ends.
INPUTS: dict[str, Callable[[Transcript], Transcript]] = {
    "captions": lambda day: day,
    "captions without punctuation": lambda day: replace(day, sentence_starts=np.zeros(0, dtype=np.int64)),
}


def shifted(transcript: Transcript, condition: str, rng: np.random.Generator) -> Transcript:
    """``transcript`` with its word times (seconds, shape (n,)) moved as ``condition`` says."""
    starts, ends = CONDITIONS[condition](np.asarray(transcript.starts), np.asarray(transcript.ends), rng)
    return replace(transcript, starts=starts, ends=ends)


def stories(corpus: Path, *, quick: bool) -> dict[str, dict[str, dict[str, list[int]]]]:
    """Story starts (word indices) by input, day (by name) and condition, as this code cuts them."""
    days = read_corpus(corpus)[:1] if quick else read_corpus(corpus)
    out: dict[str, dict[str, dict[str, list[int]]]] = {}
    for source, make in INPUTS.items():
        out[source] = {}
        for day in days:
            rng = np.random.default_rng(JITTER_SEED)
            found = out[source][day.name] = {}
            for condition in CONDITIONS:
                started = time.perf_counter()
                found[condition] = transcript_stories(shifted(make(day), condition, rng)).story_starts.tolist()
                print(f"{source}, {day.name[:30]}, {condition}: {len(found[condition])} stories "
                      f"({time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)
    return out


def measure(by_input: dict[str, dict[str, dict[str, list[int]]]], corpus: Path) -> dict[str, Any]:
    """Per input, day and condition: stories, agreement with the unmoved stories, Pk / WindowDiff against the truth."""
    days = {d.name: d for d in read_corpus(corpus)}
    rows: list[dict[str, Any]] = []
    for source, found in by_input.items():
        rows += _rows(source, found, days)
    return {"days": list(next(iter(by_input.values()))), "rows": rows}


def _rows(source: str, found: dict[str, dict[str, list[int]]], days: dict[str, Transcript]) -> list[dict[str, Any]]:
    from engine.evaluate.segmentation import boundary_f1, half_mean_story_length, pk, windowdiff

    rows: list[dict[str, Any]] = []
    for name, by_condition in found.items():
        day = days[name]
        n, truth = len(day), day.story_starts
        k = half_mean_story_length(truth, n)
        reference = np.asarray(by_condition[next(iter(CONDITIONS))])
        for condition, starts in by_condition.items():
            hyp = np.asarray(starts)
            rows.append({
                "input": source, "day": name, "condition": condition, "words": n, "stories": int(hyp.size),
                "true_stories": int(truth.size),
                "f1_vs_unmoved": boundary_f1(reference, hyp, tolerance=TOLERANCE_WORDS),
                "pk_vs_unmoved": pk(reference, hyp, n, k=k),
                "pk": pk(truth, hyp, n, k=k), "windowdiff": windowdiff(truth, hyp, n, k=k),
            })
    return rows


def stories_before(rev: str, corpus: Path, *, quick: bool) -> dict[str, dict[str, dict[str, list[int]]]]:
    """:func:`stories` by the code and models of commit ``rev``, in a child process."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "engine", "models"], check=True,
                             capture_output=True).stdout
    with tempfile.TemporaryDirectory(prefix="segment-shift-") as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        out = Path(folder) / "before.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--corpus", str(corpus), "--child-out", str(out)]
        subprocess.run(command + (["--quick"] if quick else []), check=True,
                       env={**os.environ, "EARSHOT_SHIFT_CODE": folder})
        return json.loads(out.read_text(encoding="utf-8"))


def summary(rows: list[dict[str, Any]], source: str) -> dict[str, dict[str, float]]:
    """Per condition for one input: stories summed over the days, the smallest F1 with the unmoved stories, mean
    Pk and WindowDiff."""
    out: dict[str, dict[str, float]] = {}
    for condition in CONDITIONS:
        mine = [r for r in rows if r["condition"] == condition and r["input"] == source]
        out[condition] = {
            "stories": sum(r["stories"] for r in mine),
            "min_f1_vs_unmoved": min(r["f1_vs_unmoved"] for r in mine),
            "mean_pk_vs_unmoved": float(np.mean([r["pk_vs_unmoved"] for r in mine])),
            "mean_pk": float(np.mean([r["pk"] for r in mine])),
            "mean_windowdiff": float(np.mean([r["windowdiff"] for r in mine])),
        }
    return out


def markdown(result: dict[str, Any]) -> str:
    """Tables 0 and 1: before and after, per condition, over the days, for each input; table 2: now, per day."""
    lines: list[str] = []
    for source in INPUTS:
        lines += [*_summary_table(result, source), ""]
    lines += ["| Input | Day | Word times | Words | Stories | F1 with unmoved | Pk vs truth |",
              "|---|---|---|---:|---:|---:|---:|"]
    for r in result["after"]["rows"]:
        lines.append(f"| {r['input']} | {r['day'][:30]} | {r['condition']} | {r['words']} | {r['stories']} | "
                     f"{r['f1_vs_unmoved']:.3f} | {r['pk']:.3f} |")
    return "\n".join(lines) + "\n"


def _summary_table(result: dict[str, Any], source: str) -> list[str]:
    true = sum(r["true_stories"] for r in result["after"]["rows"]
               if r["condition"] == "as captioned" and r["input"] == source)
    lines = [
        f"| {source}: word times | Stories before | Stories now | Worst day's F1 with unmoved, before | now "
        "| Pk with unmoved, before | now | Pk vs truth, before | now | WindowDiff vs truth, before | now |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    before, after = summary(result["before"]["rows"], source), summary(result["after"]["rows"], source)
    for condition in CONDITIONS:
        b, a = before[condition], after[condition]
        lines.append(f"| {condition} | {b['stories']:.0f} | {a['stories']:.0f} | {b['min_f1_vs_unmoved']:.3f} "
                     f"| {a['min_f1_vs_unmoved']:.3f} | {b['mean_pk_vs_unmoved']:.3f} | {a['mean_pk_vs_unmoved']:.3f} "
                     f"| {b['mean_pk']:.3f} | {a['mean_pk']:.3f} | {b['mean_windowdiff']:.3f} "
                     f"| {a['mean_windowdiff']:.3f} |")
    lines += ["", f"{len(result['after']['days'])} caption days, {true} true stories; before: commit "
              f"{result['before_commit']}; F1 within {result['tolerance_words']} words; Pk and WindowDiff are means "
              "over the days."]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the first day only")
    parser.add_argument("--corpus", type=Path, default=SHARED / "newsscape")
    parser.add_argument("--before", default=BEFORE_COMMIT, help="commit whose segmenter is the 'before' column")
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"error: {args.corpus}: no NewsScape caption days here", file=sys.stderr)
        return 1
    if args.child_out is not None:
        args.child_out.write_text(json.dumps(stories(args.corpus, quick=args.quick)), encoding="utf-8")
        return 0
    from bench.common import write_result

    result = {"before_commit": args.before, "tolerance_words": TOLERANCE_WORDS, "jitter_seed": JITTER_SEED,
              "quick": args.quick,
              "before": measure(stories_before(args.before, args.corpus, quick=args.quick), args.corpus),
              "after": measure(stories(args.corpus, quick=args.quick), args.corpus)}
    result["summary"] = {when: {source: summary(result[when]["rows"], source) for source in INPUTS}
                         for when in ("before", "after")}
    write_result("segment_shift", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
