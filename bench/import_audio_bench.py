"""Captions imported with and without their recording: stories cut with the detectors' X-duration.

    python bench/import_audio_bench.py [--quick]

Held-out material: generated broadcasts (tools/broadcast.py: stories from ``../shared/data/lee`` read by
espeak-ng, music beds, noise bursts, real applause and laughter; seeds ``SEEDS``, used by nothing else
and by no choice of this change). Each broadcast's words become an SRT of ``CUE_WORDS`` words a cue
with no story markers, imported twice: alone (the segmenter sees only the words and the gaps between
cues) and with the recording beside it (the detectors run, and their X-duration reaches the segmenter).
A simple baseline in the same table: stories of equal length, as many as the truth has (an oracle count).

Figures: boundaries found within ``SLACK_WORDS`` words of a true one (precision, recall, F1, pooled),
Pk (mean over broadcasts, k = half the mean true story length) and the import's wall time per minute
of audio. Writes ``bench/results/import_audio.{json,md}``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bench_parser, cached_broadcast, machine, use_bench_folders, write_result
from engine.evaluate.segmentation import evenly_spaced_starts, half_mean_story_length, pk
from engine.importer import import_transcript
from engine.storage.store import Store
from engine.timefmt import timestamp

#: Broadcast seeds: held out (no rule, threshold or model of the import was chosen on them).
SEEDS = (301, 302, 303, 304)
#: Minutes per broadcast.
MINUTES = 6.0
#: Words per cue of the captions written from a broadcast's words.
CUE_WORDS = 7
#: A found boundary this many words from a true one counts as found.
SLACK_WORDS = 5
#: The ways of cutting compared, in table order.
WAYS = ("captions with audio", "captions alone", "equal stories (true count)")


def write_captions(truth: dict[str, Any], out: Path) -> Path:
    """An SRT of the broadcast's words as spoken, ``CUE_WORDS`` words a cue, no story markers."""
    words = truth["words"]
    cues = [words[k : k + CUE_WORDS] for k in range(0, len(words), CUE_WORDS)]
    out.write_text("\n".join(f"{n}\n{timestamp(c[0]['start'])} --> {timestamp(c[-1]['end'])}\n"
                             f"{' '.join(w['text'] for w in c)}\n" for n, c in enumerate(cues, 1)),
                   encoding="utf-8")  # fmt: skip
    return out


def matched(found: list[int], true: list[int]) -> tuple[int, int, int]:
    """(boundaries found near a true one, boundaries found, true boundaries); word 0 is no boundary,
    and each true boundary is matched once."""
    left = [b for b in true if b > 0]
    hits = 0
    for f in (b for b in found if b > 0):
        near = [b for b in left if abs(b - f) <= SLACK_WORDS]
        if near:
            left.remove(near[0])
            hits += 1
    return hits, sum(1 for b in found if b > 0), sum(1 for b in true if b > 0)


def one_broadcast(seed: int, folder: Path) -> dict[str, Any]:
    """Import one broadcast's captions both ways; the story starts and seconds each took."""
    wav, truth = cached_broadcast("import", MINUTES, seed)
    srt = write_captions(truth, folder / f"s{seed}.srt")
    n_words = len(truth["words"])
    true_starts = [0, *truth["boundaries"]["words"]]
    out: dict[str, Any] = {"seed": seed, "n_words": n_words, "audio_seconds": truth["duration"], "true": true_starts,
                           "text_source": truth["text_source"], "starts": {}, "seconds": {}}  # fmt: skip
    for way, audio in (("captions with audio", wav), ("captions alone", None)):
        with Store(folder / f"s{seed}-{len(out['starts'])}.sqlite") as store:
            t0 = time.perf_counter()
            rec_id = import_transcript(store, srt, audio=audio)
            out["seconds"][way] = time.perf_counter() - t0
            out["starts"][way] = [s["first_word"] for s in store.stories(rec_id)]
    out["starts"][WAYS[2]] = evenly_spaced_starts(n_words, len(true_starts)).tolist()
    return out


def scores(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per way: pooled precision, recall, F1 of boundaries and mean Pk."""
    table = {}
    for way in WAYS:
        hits, found, true = np.sum([matched(r["starts"][way], r["true"]) for r in runs], axis=0)
        precision = hits / found if found else 0.0
        recall = hits / true if true else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        pks = [pk(np.array(r["true"]), np.array(r["starts"][way]), r["n_words"],
                  k=half_mean_story_length(np.array(r["true"]), r["n_words"])) for r in runs]  # fmt: skip
        table[way] = {"precision": float(precision), "recall": float(recall), "f1": float(f1), "pk": float(np.mean(pks))}
    return table


def markdown(result: dict[str, Any]) -> str:
    """``bench/results/import_audio.md``: boundaries and Pk each way, and the import's time."""
    runs, table = result["runs"], result["scores"]
    minutes = sum(r["audio_seconds"] for r in runs) / 60
    lines = [f"# Stories of imported captions, {len(runs)} held-out broadcasts (seeds "
             f"{', '.join(str(r['seed']) for r in runs)}; {minutes:.0f} minutes, "
             f"{sum(len(r['true']) for r in runs)} stories)", "", f"Machine: {result['machine']}.", "",
             f"| stories cut from | boundary precision (±{SLACK_WORDS} words) | recall | F1 | Pk (lower is better) |",
             "| --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for way in WAYS:
        s = table[way]
        lines.append(f"| {way} | {s['precision']:.2f} | {s['recall']:.2f} | {s['f1']:.2f} | {s['pk']:.3f} |")
    with_audio = sum(r["seconds"][WAYS[0]] for r in runs)
    alone = sum(r["seconds"][WAYS[1]] for r in runs)
    lines += ["", "| import | seconds per minute of audio | ratio to captions alone |", "| --- | ---: | ---: |",
              f"| captions with audio (detectors run) | {with_audio / minutes:.2f} | {with_audio / alone:.1f} |",
              f"| captions alone | {alone / minutes:.2f} | 1.0 |"]  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = bench_parser(__doc__ or "", "two broadcasts instead of four").parse_args(argv)
    use_bench_folders("import_audio")
    seeds = SEEDS[:2] if args.quick else SEEDS
    with tempfile.TemporaryDirectory() as tmp:
        runs = [one_broadcast(seed, Path(tmp)) for seed in seeds]
    result = {"runs": runs, "scores": scores(runs), "machine": machine(), "quick": args.quick}
    write_result("import_audio", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
