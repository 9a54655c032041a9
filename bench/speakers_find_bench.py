"""Finding a speaker across recordings: precision and recall of "find this speaker", threshold chosen held out.

Recordings are voice broadcasts (tools/voice_broadcast.py: real recorded voices of Debian
packages, with music beds, noise and overlapping turns) in which each voice recurs across
several recordings. Each is diarized by the pipeline (engine/speakers/diarize.py, the stream
ingest feeds) and its speakers' centroids are the ones ingest stores (``Diarization.centroids``:
the renormalised mean of a cluster's unit CAM++ embeddings); the cut at music and applause
events that ingest also makes is left out (no detectors run here), it changes turns, not centroids.
Each found speaker is taken to be the reference voice it overlaps most.

Every found speaker of every recording is a query; the found speakers of the other recordings
of its set are ranked by the cosine similarity of the centroids (engine/speakers/find.py). A
match is right when both are the same person. Pooled over queries: precision and recall of the
matches kept at the threshold, and the share of queries whose best match is right (of those
whose voice is in another recording).

* tuning: voices allison-en, june, librivox (tools.voices.TUNING_SPEAKERS); the threshold of each
  method is chosen here (the middle of the thresholds of best F1, on a 0.001 grid);
* held-out: voices carlo, ivr-ru, menardi, es-co, armelle (Debian packages
  asterisk-core-sounds-it-wav, asterisk-core-sounds-ru-wav, asterisk-prompt-it-menardi-wav,
  asterisk-prompt-es-co, asterisk-prompt-fr-armelle), measured at the threshold chosen on tuning;
* held-out short: the same voices in 30 s recordings (less speech behind each centroid).

Baseline in the same run, on the same found speakers and turns: MFCC statistics (mean and
standard deviation of 13 MFCCs over the speaker's turns, engine/speakers/bic.py's features).

Writes ``bench/results/speakers_find.json`` and ``.md``.
Run: ``nice .venv/bin/python -m bench.speakers_find_bench [--quick]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import bench_parser, write_result
from engine.evaluate.der import Turn
from engine.speakers import config as speaker_config
from engine.speakers.bic import mfcc
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.diarize import SR, Diarizer
from engine.speakers.find import similarities
from engine.speakers.segmentation import Segmentation
from models.speakers import speaker_model_files
from tools.voice_broadcast import build

OUT_NAME = "speakers_find"
MINUTES = 1.25
SHORT_MINUTES = 0.5
#: (set, voices, seed): each voice is in at least three recordings of its set. "held-out short": the same
#: voices in 30 s recordings, so each found speaker's centroid averages fewer embeddings.
RECORDINGS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("tuning", ("allison-en", "june"), 31),
    ("tuning", ("june", "librivox"), 32),
    ("tuning", ("allison-en", "librivox"), 33),
    ("tuning", ("allison-en", "june", "librivox"), 34),
    ("tuning", ("librivox", "june"), 35),
    ("held-out", ("carlo", "menardi"), 21),
    ("held-out", ("ivr-ru", "es-co"), 22),
    ("held-out", ("armelle", "carlo"), 23),
    ("held-out", ("menardi", "ivr-ru", "es-co"), 24),
    ("held-out", ("armelle", "es-co"), 25),
    ("held-out", ("carlo", "ivr-ru"), 26),
    ("held-out", ("menardi", "armelle"), 27),
    ("held-out", ("es-co", "carlo", "armelle"), 28),
    ("held-out short", ("carlo", "menardi"), 51),
    ("held-out short", ("ivr-ru", "es-co"), 52),
    ("held-out short", ("armelle", "carlo"), 53),
    ("held-out short", ("menardi", "ivr-ru", "es-co"), 54),
    ("held-out short", ("armelle", "es-co"), 55),
    ("held-out short", ("carlo", "ivr-ru"), 56),
    ("held-out short", ("menardi", "armelle"), 57),
    ("held-out short", ("es-co", "carlo", "armelle"), 58),
)
SETS = ("held-out", "held-out short", "tuning")
QUICK = (0, 1, 3, 5, 6, 7, 10)
METHODS = ("cam++ centroid", "mfcc statistics")
GRID = np.round(np.arange(-0.2, 1.0, 0.001), 3)


def _overlap(a: float, b: float, turns: list[Turn], speaker: str) -> float:
    return sum(max(0.0, min(b, t.end) - max(a, t.start)) for t in turns if t.speaker == speaker)


def found_speakers(index: int, samples: np.ndarray, reference: list[Turn], diarizer: Diarizer) -> list[dict[str, Any]]:
    """The found speakers of one recording: their reference voice, talk seconds and both methods' vectors."""
    stream = diarizer.stream(total_seconds=samples.size / SR)
    stream.feed(samples)
    found = stream.finish()
    voices = sorted({t.speaker for t in reference})
    out = []
    for k in range(found.centroids.shape[0]):
        turns = [t for t in found.turns if t.speaker == k]
        if not turns:
            continue
        share = {v: sum(_overlap(t.start, t.end, reference, v) for t in turns) for v in voices}
        features = np.concatenate([mfcc(samples[int(t.start * SR): int(t.end * SR)]) for t in turns
                                   if t.end - t.start >= 0.1])
        out.append({
            "recording": index, "label": k, "voice": max(share, key=share.__getitem__),
            "seconds": sum(t.end - t.start for t in turns),
            "cam++ centroid": found.centroids[k].astype(np.float64),
            "mfcc statistics": np.concatenate([features.mean(axis=0), features.std(axis=0)]),
        })
    return out


def pairs(speakers: list[dict[str, Any]], method: str) -> list[tuple[int, float, bool]]:
    """(query index, similarity, same voice) for every query and every found speaker of another recording."""
    vectors = np.stack([s[method] for s in speakers])
    out = []
    for q, query in enumerate(speakers):
        scores = similarities(query[method], vectors)
        for c, other in enumerate(speakers):
            if other["recording"] != query["recording"]:
                out.append((q, float(scores[c]), other["voice"] == query["voice"]))
    return out


def scores_at(scored: list[tuple[int, float, bool]], threshold: float) -> dict[str, float]:
    """Pooled precision, recall and F1 of the matches at or above ``threshold``, and the best match's accuracy."""
    kept = [same for _, s, same in scored if s >= threshold]
    relevant = sum(same for _, _, same in scored)
    right = sum(kept)
    precision = right / len(kept) if kept else 1.0
    recall = right / relevant if relevant else 1.0
    best: dict[int, tuple[float, bool]] = {}
    answerable = {q for q, _, same in scored if same}  # queries whose voice is in another recording
    for q, s, same in scored:
        if q in answerable and (q not in best or s > best[q][0]):
            best[q] = (s, same)
    return {
        "threshold": float(threshold), "precision": precision, "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "kept": len(kept), "relevant": relevant, "right": right,
        "best_match_right": sum(same for _, same in best.values()) / len(best) if best else 0.0, "queries": len(best),
        "lowest_same_voice": min((s for _, s, same in scored if same), default=None),
        "highest_other_voice": max((s for _, s, same in scored if not same), default=None),
    }  # fmt: skip


def chosen_threshold(scored: list[tuple[int, float, bool]]) -> float:
    """The middle of the grid thresholds of best F1 (ties: the middle one)."""
    f1 = np.array([scores_at(scored, t)["f1"] for t in GRID])
    best = GRID[np.flatnonzero(f1 >= f1.max() - 1e-12)]
    return float(best[len(best) // 2])


def run(quick: bool) -> dict[str, Any]:
    files = speaker_model_files()
    diarizer = Diarizer(Segmentation.load(files.segmentation), CamPlusPlus.load(files.embedding))
    chosen = [RECORDINGS[i] for i in QUICK] if quick else list(RECORDINGS)
    minutes = 0.75 if quick else MINUTES
    speakers: dict[str, list[dict[str, Any]]] = {}
    recordings = []
    cpu = 0.0
    for index, (set_name, voices, seed) in enumerate(chosen):
        show = build(voices, minutes=SHORT_MINUTES if set_name.endswith("short") else minutes, seed=seed)
        start = time.process_time()
        found = found_speakers(index, show.samples, show.turns, diarizer)
        cpu += time.process_time() - start
        speakers.setdefault(set_name, []).extend(found)
        recordings.append({"set": set_name, "voices": list(voices), "seed": seed, "seconds": show.samples.size / SR,
                           "found": [s["voice"] for s in found]})
        print(f"{set_name} {'+'.join(voices)}: found {[s['voice'] for s in found]}", flush=True)
    results: dict[str, Any] = {}
    for method in METHODS:
        threshold = chosen_threshold(pairs(speakers["tuning"], method))
        results[method] = {set_name: scores_at(pairs(found, method), threshold) for set_name, found in speakers.items()}
    return {
        "quick": quick, "minutes": minutes, "recordings": recordings, "results": results,
        "configured_threshold": speaker_config.FIND_THRESHOLD, "diarize_cpu_seconds": cpu,
    }  # fmt: skip


def table(result: dict[str, Any]) -> str:
    """Markdown: per set and method, the threshold chosen on tuning, precision, recall, F1, best match right."""
    lines = [
        "| set | method | recordings | found speakers | threshold (chosen on tuning) | precision | recall | F1 "
        "| best match right | matches kept (right) | same voice: lowest similarity | other voices: highest |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    counts = {s: sum(r["set"] == s for r in result["recordings"]) for s in SETS}
    found = {s: sum(len(r["found"]) for r in result["recordings"] if r["set"] == s) for s in counts}
    for set_name in (s for s in SETS if counts[s]):
        for method, sets in result["results"].items():
            s = sets[set_name]
            lines.append(
                f"| {set_name} | {method} | {counts[set_name]} | {found[set_name]} | {s['threshold']:.3f} "
                f"| {s['precision']:.1%} | {s['recall']:.1%} | {s['f1']:.2f} | {s['best_match_right']:.0%} "
                f"| {s['kept']} ({s['right']}) | {s['lowest_same_voice']:.3f} | {s['highest_other_voice']:.3f} |"
            )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = bench_parser(__doc__ or "", "seven 45 s recordings instead of thirteen of 75 s")
    args = parser.parse_args()
    result = run(args.quick)
    write_result(OUT_NAME if not args.quick else f"{OUT_NAME}-quick", result, table(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
