"""How far the stories move when the word times move: the caption path of import on the NewsScape days.

Run from the repository root::

    python -m bench.segment_jitter_bench [--model LABEL=MODEL ...] [--quick]

Writes ``bench/results/segment_jitter.json`` and ``bench/results/segment_jitter.md``.

Every day is cut as import and ``segment run`` cut a transcript that marks no stories
(``engine.segment.stories.transcript_stories``: the HMM, blocks, short stories merged) with the
caption times and with the times moved (``engine.research.segment.timing.standard_moves``: every
end, every start or both moved by 0.01 s and 0.05 s either way, and every time moved on its own by
up to 0.05 s, three seeds). For each move it records the number of stories, whether the story starts
are identical to those of the caption times, and the share of starts with one within 1 word.

1. *Shipped models* (``--model``, default the shipped caption model): they were trained on these
   four days, so this part measures stability, not accuracy.
2. *Held out*: X-DURATION as raw times (floor 0, as before the floor) and to the millisecond with
   ``config.X_DURATION_FLOOR_SECONDS``; each day is cut by a model trained on the other three days
   (``train_model``: hyper-parameters and weights fitted on their folds; bin edges halfway between
   training values in both; the block length is the shipped model's 30 s, fitted on all four days),
   and scored against the day's true stories with the caption times and with the moved times.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import SHARED, write_result
from engine.evaluate.segmentation import score_documents
from engine.research.segment.fit import train_model
from engine.research.segment.timing import TimingMove, moved_transcript, standard_moves, starts_matched
from engine.segment import config
from engine.segment.features import PUNCTUATED_FEATURES, XDuration
from engine.segment.loader import load_model
from engine.segment.model import SegmentationModel
from engine.segment.stories import transcript_stories
from engine.segment.text import Transcript, read_corpus
from models.segmentation import PUNCTUATED_MODEL_NAME

CAPTION = TimingMove("caption times")
#: Block length (s) of the held-out models: the shipped caption model's.
HELD_OUT_BLOCK_SECONDS = 30.0
MEASURES = ("tdt_cost", "pk", "windowdiff")


def stability(model: SegmentationModel, days: list[Transcript], moves: list[TimingMove]) -> list[dict[str, Any]]:
    """For every move and day: stories, identical starts, share matched within 0 and 1 word, and scores."""
    rows = []
    for day in days:
        base = transcript_stories(day, model=model).story_starts
        for move in (CAPTION, *moves):
            found = base if move is CAPTION else transcript_stories(moved_transcript(day, move),
                                                                    model=model).story_starts
            scores = score_documents([day.story_starts], [found], [len(day)])
            rows.append({
                "day": day.name, "move": move.name, "largest_seconds": move.largest, "jitter": bool(move.jitter),
                "stories": int(found.size), "identical": bool(np.array_equal(found, base)),
                "matched_exact": min(starts_matched(base, found, within=0), starts_matched(found, base, within=0)),
                "matched_1_word": min(starts_matched(base, found, within=1), starts_matched(found, base, within=1)),
                **{m: float(getattr(scores, m)) for m in MEASURES},
            })
    return rows


def held_out_models(days: list[Transcript], floor: float) -> list[SegmentationModel]:
    """One model per day, trained on the other days with X-DURATION floored at ``floor`` seconds."""
    features = tuple(replace(f, floor_seconds=floor) if isinstance(f, XDuration) else f for f in PUNCTUATED_FEATURES)
    models = []
    for held in days:
        print(f"training without {held.name} (X-DURATION floor {floor} s)", flush=True)
        model = train_model([d for d in days if d is not held], features=features, info={"held_out": held.name})
        model.info["block_seconds"] = HELD_OUT_BLOCK_SECONDS
        models.append(model)
    return models


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Stories per day with caption times; over the uniform moves and over the jittered ones: cases with
    identical starts, the smallest share matched within 1 word, the fewest and most stories per day."""
    days = list(dict.fromkeys(r["day"] for r in rows))
    caption = {r["day"]: r["stories"] for r in rows if r["move"] == CAPTION.name}
    out: dict[str, Any] = {"caption_stories": [caption[d] for d in days]}
    for kind, jittered in (("uniform", False), ("jitter", True)):
        moved = [r for r in rows if r["move"] != CAPTION.name and r["jitter"] == jittered]
        out[kind] = {
            "cases": len(moved), "identical": sum(r["identical"] for r in moved),
            "matched_1_word_min": min(r["matched_1_word"] for r in moved),
            "stories_min": [min(r["stories"] for r in moved if r["day"] == d) for d in days],
            "stories_max": [max(r["stories"] for r in moved if r["day"] == d) for d in days],
        }
    return out


def held_out_scores(rows: list[dict[str, Any]], move: str) -> dict[str, Any]:
    """C_seg, Pk, WindowDiff and stories of every day under ``move``, and the means of the measures over days."""
    picked = [r for r in rows if r["move"] == move]
    return {"days": [{m: r[m] for m in MEASURES} | {"stories": r["stories"]} for r in picked],
            "mean": {m: float(np.mean([r[m] for r in picked])) for m in MEASURES}}


def stability_table(result: dict[str, Any]) -> str:
    """Markdown: per system, stories with caption times and what the moves did to them."""
    lines = ["| system | stories per day, caption times | moves of every start or end by 0.01-0.05 s: identical "
             "starts | starts within 1 word (worst day) | stories per day under them | each time moved on its own "
             "by up to 0.05 s: identical | within 1 word (worst) | stories per day under them |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for name, system in result["systems"].items():
        s = system["summary"]
        cells = [name, " / ".join(map(str, s["caption_stories"]))]
        for kind in ("uniform", "jitter"):
            k = s[kind]
            spread = " / ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in zip(k["stories_min"], k["stories_max"],
                                                                                strict=True))
            cells += [f"{k['identical']} of {k['cases']}", f"{k['matched_1_word_min']:.2f}", spread]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def scores_table(result: dict[str, Any]) -> str:
    """Markdown: held-out Pk / WindowDiff per day, with the caption times and moved ones, per X-DURATION floor."""
    held = [(name, s) for name, s in result["systems"].items() if "scores" in s]
    n_days = len(result["days"])
    lines = ["| system | times | " + " | ".join(f"day {i + 1} stories, Pk / WD" for i in range(n_days))
             + " | mean C_seg / Pk / WD |", "| --- | --- |" + " --- |" * n_days + " --- |"]
    for name, system in held:
        for move, scores in system["scores"].items():
            days = [f"{d['stories']}, {d['pk']:.3f} / {d['windowdiff']:.3f}" for d in scores["days"]]
            mean = scores["mean"]
            lines.append(f"| {name} | {move} | " + " | ".join(days)
                         + f" | {mean['tdt_cost']:.3f} / {mean['pk']:.3f} / {mean['windowdiff']:.3f} |")
    return "\n".join(lines)


def moves_table(result: dict[str, Any]) -> str:
    """Markdown: every system, move and day (the full record)."""
    lines = ["| system | move | day | stories | identical | within 0 words | within 1 word | Pk | WD |",
             "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    for name, system in result["systems"].items():
        for r in system["rows"]:
            lines.append(f"| {name} | {r['move']} | {r['day']} | {r['stories']} | {'yes' if r['identical'] else 'no'} "
                         f"| {r['matched_exact']:.2f} | {r['matched_1_word']:.2f} | {r['pk']:.3f} | "
                         f"{r['windowdiff']:.3f} |")
    return "\n".join(lines)


def markdown(result: dict[str, Any]) -> str:
    return "\n\n".join([stability_table(result), scores_table(result), moves_table(result)]) + "\n"


def parse_models(specs: list[str]) -> dict[str, str]:
    """``LABEL=MODEL`` pairs (a model name or an .npz path), in order."""
    out = {}
    for spec in specs:
        label, sep, model = spec.partition("=")
        if not sep or not label or not model:
            raise SystemExit(f"--model wants LABEL=MODEL, got {spec!r}")
        out[label] = model
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", default=[], metavar="LABEL=MODEL",
                        help=f"a model to measure (name or .npz path); default: shipped={PUNCTUATED_MODEL_NAME}")
    parser.add_argument("--quick", action="store_true", help="shipped models only, no held-out training")
    args = parser.parse_args(argv)
    corpus = SHARED / "newsscape"
    if not corpus.is_dir():
        print(f"skipped: {corpus} is absent", file=sys.stderr)
        return 0
    days = read_corpus(corpus)
    moves = standard_moves(0.05)
    systems: dict[str, Any] = {}
    for label, name in parse_models(args.model or [f"shipped={PUNCTUATED_MODEL_NAME}"]).items():
        rows = stability(load_model(name), days, moves)
        systems[f"{label} ({Path(name).stem})"] = {"rows": rows, "summary": summary(rows)}
        print(stability_table({"systems": systems}), flush=True)
    if not args.quick:
        for floor in (0.0, config.X_DURATION_FLOOR_SECONDS):
            label = f"held out, X-DURATION floor {floor:g} s" + (" (raw times)" if not floor else "")
            rows = [r for model, day in zip(held_out_models(days, floor), days, strict=True)
                    for r in stability(model, [day], moves)]
            shown = (CAPTION.name, "ends -0.01 s", "ends -0.05 s", moves[-3].name)
            systems[label] = {"rows": rows, "summary": summary(rows),
                              "scores": {m: held_out_scores(rows, m) for m in shown}}
    result = {"days": [d.name for d in days], "moves": [m.name for m in moves], "systems": systems}
    write_result("segment_jitter", result, markdown(result), indent=1)
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
