"""Stories of Whisper output on generated broadcasts: ingest's path against the boundary combiner.

Run from the repository root::

    python bench/segment_whisper_stories_bench.py [--seeds 141 142 143] [--minutes 5.5] [--model-cache DIR]

Broadcasts: the downstream bench's (``tools/broadcast.py``, same seeds and length, stories of
about 230 words read by espeak-ng with music, noise, applause and laughter between them), each
transcribed once by the embedded Whisper tiny.en through ingest's first half
(``transcribe_file``: detectors, recognition of detected speech); the words, the detectors'
X-duration and per-word "transcribed" flags are cached in ``EARSHOT_BENCH_CACHE`` as
``segment-whisper-*.json``, keyed by the engine's code and shipped models
(``bench.common.ingest_cache_tag``). Every system then segments the same words:

* ingest's path (``segment_recognised``: the recogniser model with the boundary combiner it ships with);
* the recogniser model's Viterbi path with the floor but no blocks, and its posterior threshold;
* the boundary combiner fitted on the four NewsScape caption days (each day decoded by a
  ``newsscape-punctuated`` model trained on the other three; threshold, story floor and block
  length chosen on those decodes against the gap rule and no boundary), applied to the
  recogniser model's posterior on the Whisper words, and to ``newsscape-punctuated``'s;
* the gap rule on the X-duration (T fitted on the four days), evenly spaced stories at the
  true count, and no boundary.

No system saw these broadcasts. Measures as the downstream bench: Pk and WindowDiff with k
half the mean true story length, the true starts being the first recognised word of each
story. Writes ``bench/results/segment_whisper_stories.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bench.segment_heldout_bench as heldout  # noqa: E402
from bench.common import SHARED, ingest_cache_tag, write_result  # noqa: E402
from bench.downstream_bench import CACHE, broadcast, load_engine, true_starts  # noqa: E402
from engine.evaluate.segmentation import evenly_spaced_starts, half_mean_story_length, pk, windowdiff  # noqa: E402
from engine.research.segment.combiner_fit import DecodedDay, fit_combiner  # noqa: E402
from engine.research.segment.gap_rule import fit_gap_threshold  # noqa: E402
from engine.segment.combiner import BoundaryCombiner, apply_model_combiner  # noqa: E402
from engine.segment.config import MIN_STORY_WORDS  # noqa: E402
from engine.segment.features import PUNCTUATED_FEATURES  # noqa: E402
from engine.segment.loader import load_model  # noqa: E402
from engine.segment.segmenter import segment_recognised, segment_words  # noqa: E402
from engine.segment.text import read_corpus, sentence_starts_from_display  # noqa: E402
from models.segmentation import PUNCTUATED_MODEL_NAME, RECOGNISER_MODEL_NAME  # noqa: E402

INGEST = "ingest's path (recogniser model with its shipped boundary combiner)"
NO_BLOCKS = "recogniser model, Viterbi, floor 30 (no blocks)"
THRESHOLD = "recogniser model, posterior threshold (its --threshold operating point), floor 30"
COMBINER_REC = "boundary combiner (fitted on NewsScape held-out decodes) on the recogniser model's posterior"
COMBINER_PUNCT = "boundary combiner (fitted on NewsScape held-out decodes) on newsscape-punctuated's posterior"
GAP = "gap rule on the X-duration (T from the NewsScape days)"
EVEN = "evenly spaced (true count)"
NONE = "no boundary"


def whisper_record(seed: int, minutes: float) -> dict[str, Any]:
    """Words, X-duration and transcribed flags of one broadcast through the ingest path (cached as JSON)."""
    from engine.audio.decode import probe
    from engine.ingest.transcribe import transcribe_file

    wav, _ = broadcast(seed, minutes)
    cached = CACHE / f"segment-whisper-{wav.stem}-{ingest_cache_tag()}.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    out = transcribe_file(probe(wav), load_engine("whisper"))
    record = {"words": [[w.start, w.end, w.text, w.shown] for w in out.words],
              "x_duration": out.analysis.x_duration, "transcribed": out.analysis.transcribed}
    cached.write_text(json.dumps(record), encoding="utf-8")
    return record


def newsscape_combiner() -> BoundaryCombiner:
    """The combiner fitted on every NewsScape day decoded by a punctuated model trained on the other days."""
    days = read_corpus(SHARED / "newsscape")
    decoded = [DecodedDay(d, *heldout.held_out_decode([x for x in days if x is not d], PUNCTUATED_FEATURES,
                                                      "punctuated", d)) for d in days]
    peers = [heldout.inner_peers([x for x in days if x is not d], d) for d in days]
    return fit_combiner(decoded, gap_seconds=fit_gap_threshold(days), peers=peers)


def stories(record: dict[str, Any], combiner: BoundaryCombiner) -> dict[str, np.ndarray]:
    """Story starts of every system on one recorded broadcast."""
    words = [w[2].replace(" ", "_") or "_" for w in record["words"]]
    shown = [w[3] for w in record["words"]]
    starts = np.array([w[0] for w in record["words"]], dtype=np.float64)
    ends = np.array([w[1] for w in record["words"]], dtype=np.float64)
    x = None if record["x_duration"] is None else np.asarray(record["x_duration"], dtype=np.float64)
    heard = None if record["transcribed"] is None else np.asarray(record["transcribed"], dtype=bool)
    common = {"starts": starts, "ends": ends, "x_duration": x, "transcribed": heard}
    recogniser = load_model(RECOGNISER_MODEL_NAME)
    out = {INGEST: segment_recognised(words, shown, engine="whisper", **common).story_starts,
           THRESHOLD: segment_recognised(words, shown, engine="whisper", **common,
                                         posterior_threshold=recogniser.info["posterior_threshold"]).story_starts}
    sentences = sentence_starts_from_display(shown)
    for name, model in ((COMBINER_REC, recogniser), (COMBINER_PUNCT, load_model(PUNCTUATED_MODEL_NAME))):
        seg = segment_words(words, sentence_starts=sentences if sentences.size else None, model=model, **common)
        if model is recogniser:
            out[NO_BLOCKS] = seg.merged_short(MIN_STORY_WORDS).story_starts
        out[name] = apply_model_combiner(seg, combiner.as_dict(), words=words, sentence_starts=sentences,
                                         **common).story_starts
    pause = np.zeros(len(words)) if x is None else np.nan_to_num(x)
    out[GAP] = np.union1d([0], np.flatnonzero(pause > combiner.gap_seconds)).astype(np.int64)
    out[NONE] = np.zeros(1, dtype=np.int64)
    return out


def stories_table(results: dict[str, Any]) -> str:
    """Stories found, Pk and WindowDiff per system, mean over the broadcasts and per broadcast: a markdown table."""
    per, mean = results["per_broadcast"], results["mean"]
    lines = ["| system | stories (mean) | Pk (mean) | WindowDiff (mean) | " +
             " | ".join(f"Pk / WD, seed {s}" for s in per) + " |",
             "| --- | ---: | ---: | ---: |" + " --- |" * len(per)]
    for name in mean:
        cells = " | ".join(f"{per[s][name]['pk']:.3f} / {per[s][name]['windowdiff']:.3f}" for s in per)
        lines.append(f"| {name} | {mean[name]['stories']:.1f} | {mean[name]['pk']:.3f} | "
                     f"{mean[name]['windowdiff']:.3f} | {cells} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[141, 142, 143])
    parser.add_argument("--minutes", type=float, default=5.5)
    parser.add_argument("--model-cache", type=Path, default=None, metavar="DIR",
                        help="folder that keeps the models trained on three NewsScape days between runs")
    args = parser.parse_args(argv)
    if not (SHARED / "newsscape").is_dir():
        print(f"skipped: {SHARED / 'newsscape'} is absent", file=sys.stderr)
        return 0
    heldout.MODEL_CACHE = args.model_cache
    combiner = newsscape_combiner()
    per: dict[str, dict[str, dict[str, float]]] = {}
    for seed in args.seeds:
        record = whisper_record(seed, args.minutes)
        _, truth = broadcast(seed, args.minutes)
        starts = np.array([w[0] for w in record["words"]], dtype=np.float64)
        n = len(starts)
        ref = true_starts(starts, truth)
        k = half_mean_story_length(ref, n)
        found = stories(record, combiner)
        found[EVEN] = evenly_spaced_starts(n, len(ref))
        per[str(seed)] = {name: {"pk": pk(ref, h, n, k=k), "windowdiff": windowdiff(ref, h, n, k=k),
                                 "stories": len(h), "true_stories": len(ref)} for name, h in found.items()}
    names = list(next(iter(per.values())))
    mean = {name: {m: float(np.mean([per[s][name][m] for s in per])) for m in ("pk", "windowdiff", "stories")}
            for name in names}
    true_mean = float(np.mean([next(iter(per[s].values()))["true_stories"] for s in per]))
    results = {"machine": f"{platform.machine()}, {platform.python_version()}", "seeds": args.seeds,
               "minutes": args.minutes, "combiner": combiner.as_dict(), "per_broadcast": per, "mean": mean,
               "true_stories_mean": true_mean}
    lines = ["# Stories of Whisper output on generated broadcasts", "",
             f"`python bench/segment_whisper_stories_bench.py --seeds {' '.join(map(str, args.seeds))} "
             f"--minutes {args.minutes:g}` on {results['machine']}; Whisper tiny.en through the ingest path's "
             f"detectors; {true_mean:.1f} true stories per broadcast on average. Combiner: threshold "
             f"{combiner.threshold:g}, floor {combiner.min_words} words, blocks {combiner.block_seconds:g} s, "
             f"gap {combiner.gap_seconds:g} s.", "",
             stories_table(results)]
    write_result("segment_whisper_stories", results, "\n".join(lines), indent=2, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
