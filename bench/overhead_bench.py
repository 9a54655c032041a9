"""Ingest's wall time against faster-whisper called directly, end to end, in one run.

Three workloads, each run ``--runs`` times in fresh processes (model load included on both sides):

* one 5 s file (the first five seconds of a LibriVox clip of pocketsphinx-testdata);
* a batch of 50 files of 5-30 s cut from the generated broadcast (``tools/broadcast.py``);
* one 10-minute file (the broadcast repeated).

Earshot: ``main.py ingest --workers 1 --model MODEL`` into a new index (decode, language identification,
detectors, recognition, speakers, stories, entities, the index written); the peer: a script that imports
faster-whisper, loads the same model (Whisper base by default, the product's default; its two package
halves streamed as ingest loads them) with the same threads and calls ``WhisperModel.transcribe`` on each
file with ingest's options (beam, VAD, word timestamps) and the language told, reading every word. The two
alternate, run by run; the ratio is Earshot's wall time over the peer's, the best of the runs of each (the
machine is shared), and beside it the median and range of each run's ratio to the peer run next to it.

Run: ``.venv/bin/python -m bench.overhead_bench [--runs 2] [--only NAME ...] [--model NAME]``. Writes
``bench/results/overhead.json``/``.md``; with ``--only``, the other workloads keep their earlier figures,
each row saying when and at which commit it was measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import CACHE, REPO, RESULTS, cached_broadcast, recorded, write_result

OUT_NAME = "overhead"
SR = 16000
CLIP = Path("/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav")

DIRECT = """
import sys
from pathlib import Path
from faster_whisper import WhisperModel
sys.path.insert(0, {repo!r})
from engine import config
from models.embedded_base import base_model_files, is_split_base
folder = Path({model_path!r})
model = WhisperModel(str(folder), device="cpu", compute_type="int8", local_files_only=True,
                     files=base_model_files(folder) if is_split_base(folder) else None,
                     cpu_threads=config.WHISPER_CPU_THREADS)
words = 0
for path in sys.argv[1:]:
    segments, _ = model.transcribe(path, language={language!r}, beam_size=config.WHISPER_BEAM_SIZE,
                                   word_timestamps=True, vad_filter=True, condition_on_previous_text=False,
                                   temperature=0.0)
    words += sum(len(s.words or ()) for s in segments)
print(words)
"""


def workloads(folder: Path) -> dict[str, list[Path]]:
    """The three workloads' files, written into ``folder``."""
    import soundfile as sf

    source, _truth = cached_broadcast("asr-broadcast-en", 5, 1, CACHE)
    audio, sr = sf.read(str(source), dtype="float32")
    assert sr == SR, sr
    clip, _ = sf.read(str(CLIP), dtype="float32")
    one = folder / "five.wav"
    sf.write(str(one), clip[: 5 * SR], SR, subtype="PCM_16")
    rng = np.random.default_rng(50)
    batch = []
    for k in range(50):
        n = int(rng.uniform(5, 30) * SR)
        at = int(rng.integers(0, audio.size - n))
        path = folder / f"batch-{k:02d}.wav"
        sf.write(str(path), audio[at : at + n], SR, subtype="PCM_16")
        batch.append(path)
    long = folder / "ten-minutes.wav"
    sf.write(str(long), np.resize(audio, 600 * SR), SR, subtype="PCM_16")
    return {"one 5 s file": [one], "50 files of 5-30 s": batch, "one 10-minute file": [long]}


def _timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {done.stderr.strip().splitlines()[-1:]}")
    return wall


def measure(files: list[Path], folder: Path, runs: int, model: str) -> dict[str, Any]:
    """Ingest and the direct peer, alternating, ``runs`` times each, with the speech model named ``model``."""
    from engine.cli.common import resolve_model

    spec = resolve_model(model)
    # The peer is told the language ingest decides on (Whisper base hears English in every workload).
    direct = DIRECT.format(repo=str(REPO), model_path=spec.path, language="en")
    ours, theirs = [], []
    for k in range(runs):
        db = folder / f"index-{len(files)}-{k}.sqlite"
        ours.append(_timed([sys.executable, "main.py", "--db", str(db), "ingest", "--workers", "1", "--quiet",
                            "--model", spec.name, *map(str, files)]))  # fmt: skip
        theirs.append(_timed([sys.executable, "-c", direct, *map(str, files)]))
    import soundfile as sf

    seconds = sum(sf.info(str(f)).duration for f in files)
    return {"audio_seconds": seconds, "files": len(files), "earshot": ours, "direct": theirs,
            "ratio": min(ours) / min(theirs), "paired": [a / b for a, b in zip(ours, theirs, strict=True)],
            "model": spec.name, "recorded": recorded()}  # fmt: skip


def table(result: dict[str, Any]) -> str:
    lines = [
        "| workload | model | audio | Earshot ingest (best of runs) | faster-whisper direct | ratio"
        " | run by run: median (range) | measured |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in result["workloads"].items():
        when = r.get("recorded", result.get("recorded", {}))
        model = r.get("model", "not recorded")
        lines.append(f"| {name} | {model} | {r['audio_seconds']:.0f} s in {r['files']} file{'s' if r['files'] > 1 else ''} "
                     f"| {min(r['earshot']):.1f} s | {min(r['direct']):.1f} s | {r['ratio']:.2f} | {_paired(r)} "
                     f"| {when.get('date', '?')}, {when.get('commit', '?')} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def _paired(r: dict[str, Any]) -> str:
    """The ratios of each run's ingest to the peer run beside it: median (least-most), or a dash where
    the row predates them."""
    paired = r.get("paired")
    if not paired:
        return "-"
    return f"{float(np.median(paired)):.2f} ({min(paired):.2f}-{max(paired):.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="workload names to run (default: all)")
    parser.add_argument("--model", default="whisper-base", help="speech model of both sides (default: whisper-base)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="earshot-overhead-") as tmp:
        folder = Path(tmp)
        result: dict[str, Any] = {"runs": args.runs, "workloads": {}}
        earlier = RESULTS / f"{OUT_NAME}.json"
        if args.only and earlier.exists():  # the workloads not run now keep their own figures and date
            old = json.loads(earlier.read_text(encoding="utf-8"))
            for name, r in old.get("workloads", {}).items():
                result["workloads"][name] = {**r, "recorded": r.get("recorded", old.get("recorded", {}))}
        for name, files in workloads(folder).items():
            if args.only and name not in args.only:
                continue
            result["workloads"][name] = measure(files, folder, args.runs, args.model)
            print(f"{name}: {result['workloads'][name]}", file=sys.stderr)
            write_result(OUT_NAME, result, table(result))  # each workload as it ends: a long run stopped keeps them
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
