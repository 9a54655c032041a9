"""Speaker diarization: DER and speaker count of the CAM++ pipeline against BIC and one-speaker baselines.

Broadcasts of real recorded voices (tools/voice_broadcast.py: Debian packages'
Asterisk prompts and LibriVox, with synthetic music beds and noise between and
under turns, and overlapping turns), scored with engine/evaluate/der.py (collar
0.25 s, overlap scored). Two sets:

* held-out: voices carlo, ivr-ru, menardi, es-co, armelle (tools.voices.HELD_OUT_SPEAKERS),
  never used to choose any threshold;
* tuning: voices allison-en, june, librivox, on which the clustering threshold, the CAM++
  excerpt length and the BIC penalty were chosen (shown for comparison, not a measure of accuracy);
* real: real multi-speaker recordings with a reference shipped in a package
  (tools/diarization_samples.py: pyannote-audio 4.0.7's sample.wav and sample.rttm, MIT, a 30 s
  telephone call of two speakers), never used to choose anything; skipped when the wheel cannot be had.

In the same run on the same broadcasts: the CAM++ pipeline (engine/speakers/diarize.py), and
the same with CAM++ excerpts of up to 4 s (the setting before 2 s was chosen on the tuning voices);
the BIC baseline (engine/speakers/bic.py: MFCC, BIC change detection, BIC agglomerative
clustering) on the pipeline's own speech regions; and one speaker on those regions. So the
baselines differ from the pipeline only in who is said to speak, not where speech is.
CPU seconds per audio second are the process's (BLAS threads included), on a shared machine.
Memory: peak resident size (VmHWM, the process's own) of a process diarizing a 2.5-minute tuning broadcast and the same
looped 6 and 24 times (15 and 60 minutes), read from a WAV file in 30 s blocks.

Writes ``bench/results/speakers.json`` and ``bench/results/speakers.md``.
Run: ``.venv/bin/python -m bench.speakers_bench [--quick]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import REPO, bench_parser, write_result
from engine.audio.decode import decode_all
from engine.evaluate.der import Turn, diarization_error, read_rttm
from engine.speakers import config as speaker_config
from engine.speakers.bic import diarize_bic
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.diarize import SR, Diarizer, SpeakerTurn
from engine.speakers.segmentation import Segmentation
from models.speakers import speaker_model_files
from tools.diarization_samples import SAMPLES, SampleUnavailable, fetch_sample
from tools.voice_broadcast import build

OUT_NAME = "speakers"
MINUTES = 2.0
#: (set, voices, seed) of every broadcast.
BROADCASTS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("held-out", ("carlo", "menardi"), 11),
    ("held-out", ("ivr-ru", "es-co", "armelle"), 12),
    ("held-out", ("carlo", "ivr-ru", "menardi", "armelle"), 13),
    ("held-out", ("menardi", "es-co"), 14),
    ("held-out", ("carlo", "armelle", "es-co"), 15),
    ("held-out", ("ivr-ru", "menardi", "carlo"), 16),
    ("tuning", ("allison-en", "june", "librivox"), 1),
    ("tuning", ("allison-en", "june", "librivox"), 2),
)
#: "cam++ 4 s excerpts": the pipeline as it was before CAM++ embedded at most 2 s per local speaker and window.
METHODS = ("cam++", "cam++ 4 s excerpts", "bic", "one speaker")
LONGER_EXCERPTS = 4.0


def _speech(turns: list[SpeakerTurn]) -> list[tuple[float, float]]:
    regions: list[list[float]] = []
    for turn in sorted(turns, key=lambda t: t.start):
        if regions and turn.start <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], turn.end)
        else:
            regions.append([turn.start, turn.end])
    return [(a, b) for a, b in regions]


def real_recordings() -> dict[str, tuple[np.ndarray, list[Turn]]]:
    """Each packaged real recording that can be had here: float32 16 kHz samples and reference turns."""
    out = {}
    for name in SAMPLES:
        try:
            wav, rttm = fetch_sample(name)
        except SampleUnavailable as error:
            print(f"real recording {name} skipped: {error}", flush=True)
            continue
        turns = [t for file_turns in read_rttm(rttm).values() for t in file_turns]
        out[name] = (decode_all(wav, sr=SR).astype(np.float32) / 32768.0, turns)
    return out


def _score(diarizer: Diarizer, set_name: str, name: str, samples: np.ndarray, reference: list[Turn]) -> dict[str, Any]:
    """DER and speaker count of the pipeline and each baseline on one recording, with their CPU seconds."""
    seconds = samples.size / SR
    start = time.process_time()
    ours = diarizer([samples], total_seconds=seconds)
    cpu = {"cam++": time.process_time() - start}
    chosen_excerpt, speaker_config.MAX_EMBED_SECONDS = speaker_config.MAX_EMBED_SECONDS, LONGER_EXCERPTS
    try:
        start = time.process_time()
        longer = diarizer([samples], total_seconds=seconds)
        cpu["cam++ 4 s excerpts"] = time.process_time() - start
    finally:
        speaker_config.MAX_EMBED_SECONDS = chosen_excerpt
    speech = _speech(ours)
    start = time.process_time()
    bic = diarize_bic(samples, speech)
    cpu["bic"] = time.process_time() - start
    hyps = {"cam++": ours, "cam++ 4 s excerpts": longer, "bic": bic, "one speaker": [SpeakerTurn(a, b, 0) for a, b in speech]}
    n_ref = len({t.speaker for t in reference})
    row: dict[str, Any] = {"set": set_name, "name": name, "seconds": seconds, "speakers": n_ref}
    for method, turns in hyps.items():
        result = diarization_error(reference, [Turn(t.start, t.end, str(t.speaker)) for t in turns])
        row[method] = {
            "der": result.der, "miss": result.miss, "false_alarm": result.false_alarm,
            "confusion": result.confusion, "reference": result.reference,
            "speakers": len({t.speaker for t in turns}), "cpu_seconds": cpu.get(method),
        }  # fmt: skip
    print(f"{set_name} {name}: " + ", ".join(f"{m} {row[m]['der']:.1%} ({row[m]['speakers']})" for m in METHODS), flush=True)
    return row


def run(quick: bool) -> dict[str, Any]:
    files = speaker_model_files()
    diarizer = Diarizer(Segmentation.load(files.segmentation), CamPlusPlus.load(files.embedding))
    chosen = [BROADCASTS[0], BROADCASTS[1], BROADCASTS[6]] if quick else list(BROADCASTS)
    minutes = 1.0 if quick else MINUTES
    rows = []
    for set_name, voices, seed in chosen:
        show = build(voices, minutes=minutes, seed=seed)
        rows.append(_score(diarizer, set_name, "+".join(voices), show.samples, show.turns))
        rows[-1].update(voices=list(voices), seed=seed)
    for name, (samples, reference) in real_recordings().items():
        rows.append(_score(diarizer, "real", name, samples, reference))
    return {
        "quick": quick, "minutes": minutes, "broadcasts": rows, "summary": summary(rows),
        "memory": memory((1, 2) if quick else (1, 6, 24)),
    }  # fmt: skip


MEMORY_SCRIPT = """
import json, resource, sys, time
import soundfile as sf
sys.path.insert(0, {repo!r})
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.diarize import Diarizer
from engine.speakers.segmentation import Segmentation
from models.speakers import speaker_model_files
def peak_kib():
    # this process's high-water mark: ru_maxrss would carry the parent's over fork and exec
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
files = speaker_model_files()
diarizer = Diarizer(Segmentation.load(files.segmentation), CamPlusPlus.load(files.embedding))
loaded = peak_kib()
seconds = sf.info({wav!r}).duration
start = time.process_time()
turns = diarizer(sf.blocks({wav!r}, blocksize=16000 * 30, dtype="float32"), total_seconds=seconds)
print(json.dumps({{"seconds": seconds, "loaded_kib": loaded, "peak_kib": peak_kib(),
                  "cpu_seconds": time.process_time() - start, "turns": len(turns)}}))
"""


def memory(repeats: tuple[int, ...]) -> list[dict[str, Any]]:
    """Peak memory of diarizing a tuning broadcast looped ``repeats`` times, each in its own process, read in 30 s blocks."""
    import soundfile as sf

    show = build(("allison-en", "june", "librivox"), minutes=2.0, seed=9)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for count in repeats:
            wav = f"{tmp}/looped-{count}.wav"
            sf.write(wav, np.tile(show.samples, count), SR, subtype="PCM_16")
            code = MEMORY_SCRIPT.format(repo=str(REPO), wav=wav)
            line = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            out.append(json.loads(line.strip().splitlines()[-1]))
            print(f"memory: {out[-1]}", flush=True)
    return out


def memory_table(result: dict[str, Any]) -> str:
    """Markdown: peak resident memory against recording length."""
    lines = [
        "| audio (min) | peak RSS (MB) | after loading the models (MB) | CPU s per audio s |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for m in result["memory"]:
        peak, loaded = m["peak_kib"] / 1024, m["loaded_kib"] / 1024
        lines.append(f"| {m['seconds'] / 60:.1f} | {peak:.0f} | {loaded:.0f} | {m['cpu_seconds'] / m['seconds']:.3f} |")
    return "\n".join(lines) + "\n"


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per set and method: pooled DER, its parts, share of broadcasts with the speaker count within one, CPU/audio."""
    out: dict[str, Any] = {}
    for set_name in dict.fromkeys(r["set"] for r in rows):
        chosen = [r for r in rows if r["set"] == set_name]
        seconds = sum(r["seconds"] for r in chosen)
        out[set_name] = {}
        for method in METHODS:
            parts = {k: sum(r[method][k] for r in chosen) for k in ("miss", "false_alarm", "confusion", "reference")}
            cpu = [r[method]["cpu_seconds"] for r in chosen]
            out[set_name][method] = {
                "der": (parts["miss"] + parts["false_alarm"] + parts["confusion"]) / parts["reference"],
                **{k: parts[k] / parts["reference"] for k in ("miss", "false_alarm", "confusion")},
                "count_within_one": sum(abs(r[method]["speakers"] - r["speakers"]) <= 1 for r in chosen) / len(chosen),
                "count_exact": sum(r[method]["speakers"] == r["speakers"] for r in chosen) / len(chosen),
                "cpu_per_audio_second": None if None in cpu else sum(cpu) / seconds,
                "broadcasts": len(chosen),
                "audio_seconds": seconds,
            }
    return out


def table(result: dict[str, Any]) -> str:
    """Markdown: one row per set and method, with the DER ratio to the pipeline."""
    lines = [
        "| set | method | recordings | audio (min) | DER | miss | false alarm | confusion | DER / CAM++ DER "
        "| speaker count exact | within one | CPU s per audio s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for set_name, methods in result["summary"].items():
        ours = methods["cam++"]["der"]
        for method, s in methods.items():
            ratio = f"{s['der'] / ours:.1f}" if ours > 0 else "-"
            cpu = "-" if s["cpu_per_audio_second"] is None else f"{s['cpu_per_audio_second']:.3f}"
            lines.append(
                f"| {set_name} | {method} | {s['broadcasts']} | {s['audio_seconds'] / 60:.1f} | {s['der']:.1%} "
                f"| {s['miss']:.1%} | {s['false_alarm']:.1%} | {s['confusion']:.1%} | {ratio} "
                f"| {s['count_exact']:.0%} | {s['count_within_one']:.0%} | {cpu} |"
            )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = bench_parser(__doc__ or "", "three 1-minute broadcasts instead of eight of 2 minutes")
    args = parser.parse_args()
    result = run(args.quick)
    write_result(
        OUT_NAME if not args.quick else f"{OUT_NAME}-quick", result, table(result) + "\n" + memory_table(result), echo=True
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
