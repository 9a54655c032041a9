"""``earshot ingest PATH...``: transcribe recordings into the index."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from engine import config
from engine.asr.base import ModelSpec
from engine.cli.common import interrupted_note, non_negative_int, open_db_path, positive_int, resolve_model
from engine.cli.terminal import shown
from engine.detect.sensitivities import DetectorSettings
from engine.errors import ParameterError
from engine.ingest.pool import WorkerPool
from engine.ingest.totals import BatchTotals
from engine.jobs import JobState

if TYPE_CHECKING:
    from engine.ingest.job import FileOutcome


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "ingest", help="transcribe recordings (files or folders) into the index",
        description="Decode, transcribe and index recordings. Folders are searched recursively. "
        "Unchanged files are skipped; changed files replace their old transcript.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="recording files or folders")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="recognition processes to run in parallel (default: number of cores)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="recognise on a Dask cluster: a scheduler (tcp://host:8786) or local:N to start N worker "
                   "processes here; this process alone writes the index (needs requirements-cluster.lock)")
    p.add_argument("--retries", type=non_negative_int, default=config.CLUSTER_RETRIES,
                   help=f"with --cluster: times a file whose worker died is sent again (default {config.CLUSTER_RETRIES})")
    p.add_argument("--send-audio", choices=config.CLUSTER_SEND_MODES, default="auto",
                   help="with --cluster: auto (workers read files on shared storage, else the bytes are sent), "
                   "always (workers share no storage), never (fail files a worker cannot read)")
    p.add_argument("--model", metavar="NAME", help="speech model to use (default: the chosen default; see 'models list')")
    p.add_argument("--force", action="store_true", help="transcribe again even if a file is unchanged")
    p.add_argument("--speakers", type=positive_int, metavar="N",
                   help="every recording has N speakers (default: estimated per recording)")
    p.add_argument("--no-speakers", action="store_true", help="do not find who speaks when")
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    p.set_defaults(func=run)


class _Reporter:
    """Prints per-file progress with an ETA, one line per finished file, and the batch's totals."""

    def __init__(self, quiet: bool, *, batch_line_seconds: float = 30.0) -> None:
        self.quiet = quiet
        self.live = sys.stderr.isatty() and not quiet
        self._last_print: dict[str, float] = {}
        self._started: dict[str, float] = {}
        self._progress = None
        self._tasks: dict[str, TaskID] = {}
        self.totals = BatchTotals()
        self._batch_task: TaskID | None = None
        self._batch_every = batch_line_seconds
        self._batch_printed = time.monotonic()
        if self.live:

            self._progress = Progress(
                TextColumn("{task.description}", justify="left"), BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"), TimeRemainingColumn(),
                console=Console(stderr=True), transient=True,
            )
            self._progress.start()

    def note(self, line: str) -> None:
        self._print(f"note: {line}", force=True)

    def _batch(self) -> None:
        """Show the batch's totals: on the live display's top line, or every so often as a line."""
        if self.totals.files < 2:
            return
        if self._progress is not None:
            if self._batch_task is None:
                self._batch_task = self._progress.add_task("", total=max(self.totals.seconds, 1e-6))
            self._progress.update(self._batch_task, completed=self.totals.seconds_heard, total=max(self.totals.seconds, 1e-6),
                                  description=self.totals.line())
        elif not self.quiet and time.monotonic() - self._batch_printed >= self._batch_every:
            self._batch_printed = time.monotonic()
            print(f"  batch    {self.totals.line()}", file=sys.stderr, flush=True)

    def state(self, o: FileOutcome) -> None:
        name = shown(Path(o.path).name)
        if o.state is JobState.QUEUED:
            self.totals.queued(o)
            return
        if o.state is JobState.RUNNING:
            self.totals.start(o.path)
            self._batch()
            if self._progress is not None:
                self._tasks[o.path] = self._progress.add_task(name, total=max(o.duration, 1e-6))
            elif not self.quiet:
                self._started[o.path] = time.monotonic()
                print(shown(f"  started  {o.path} ({o.duration:.1f} s)"), file=sys.stderr, flush=True)
            return
        if self.totals.ended(o):
            self._batch()
        if self._progress is not None and o.path in self._tasks:
            self._progress.remove_task(self._tasks.pop(o.path))
        if o.state is JobState.FAILED:
            self._print(f"FAILED   {o.message}", force=True)
        elif o.state is JobState.DONE:
            rtf = o.times.total / o.audio_seconds if o.audio_seconds else 0.0
            self._print(f"done     {o.path}: {o.message}, real-time factor {rtf:.3f}")
        elif o.state is JobState.SKIPPED:
            self._print(f"skipped  {o.message}")
        else:
            self._print(f"{o.state.value:<8} {o.path}: {o.message}", force=True)

    def progress(self, path: str, done: float, total: float) -> None:
        if self.totals.progress(path, done):
            self._batch()
        if self._progress is not None and path in self._tasks:
            self._progress.update(self._tasks[path], completed=done, total=max(total, 1e-6))
        elif not self.quiet and not self.live:
            now = time.monotonic()
            if now - self._last_print.get(path, 0.0) >= 10.0 and done > 0:
                self._last_print[path] = now
                pct = 100.0 * done / total if total else 0.0
                elapsed = now - self._started.get(path, now)
                eta = elapsed * (total - done) / done
                print(shown(f"  {pct:5.1f}%   {Path(path).name} ({done:.0f} of {total:.0f} s, about {eta:.0f} s left)"),
                      file=sys.stderr, flush=True)

    def _print(self, line: str, force: bool = False) -> None:
        if self.quiet and not force:
            return
        line = shown(line)
        if self._progress is not None:
            self._progress.console.print(line, highlight=False, markup=False)
        else:
            print(line, file=sys.stderr if force else sys.stdout, flush=True)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def _early_pool(paths: list[str], spec: ModelSpec, workers: int, settings: DetectorSettings) -> WorkerPool | None:
    """Recognition workers started now, so that they load their models while this process imports the job
    and probes and hashes the files: ``workers`` of them, no more than the files named (a folder may hold any
    number). None when no path exists: the job reports those without a model."""
    if not any(os.path.exists(p) for p in paths):
        return None
    named = len(paths) if all(os.path.isfile(p) for p in paths) else workers
    return WorkerPool(spec, min(workers, named), detector_settings=settings)


def run(args: argparse.Namespace) -> int:
    if any(not path for path in args.paths):  # '' is the current folder to the file system: never what was meant
        raise ParameterError("PATH: an empty name (an unset shell variable?); give a file or a folder, '.' for this one")
    db_path = open_db_path(args)
    cluster = None
    if args.cluster is not None:
        if args.workers is not None:
            raise ParameterError("--workers is for ingest on this machine; with --cluster, use local:N "
                                 "or start the cluster's workers with the processes you want")
        from engine.ingest.cluster import parse_cluster  # the Dask client's side: only with --cluster

        cluster = parse_cluster(args.cluster, retries=args.retries, send_audio=args.send_audio)
    if args.speakers and args.no_speakers:
        raise ParameterError("--speakers N and --no-speakers contradict each other; give one")
    spec = resolve_model(args.model)
    if spec.note and not args.quiet:
        print(f"note: {spec.note}", file=sys.stderr)
    settings = DetectorSettings(speaker_turns=not args.no_speakers, speaker_count=args.speakers)
    workers = args.workers or os.cpu_count() or 1
    pool = _early_pool(args.paths, spec, workers, settings) if cluster is None else None
    try:
        # Imported once the workers are started: the job brings storage's writer, the passage index and
        # the recogniser's side, whose imports now overlap the workers' model loads.
        from engine.ingest.job import IngestJob

        reporter = _Reporter(args.quiet)
        job = IngestJob(
            args.paths, db_path=db_path, spec=spec, workers=workers, force=args.force, on_state=reporter.state,
            on_progress=reporter.progress, cluster=cluster, on_note=reporter.note, detector_settings=settings,
            pool=pool,
        )
    except BaseException:
        if pool is not None:
            pool.close(kill=True)
        raise
    t0 = time.monotonic()
    try:
        outcomes = job.run()
    except KeyboardInterrupt:
        job.cancel.cancel()
        raise
    finally:
        reporter.close()
    for stale in job.interrupted:
        print(interrupted_note(stale), file=sys.stderr)
    counts = {s: sum(o.state is s for o in outcomes) for s in JobState}
    audio = sum(o.audio_seconds for o in outcomes)
    print(
        f"{counts[JobState.DONE]} transcribed, {counts[JobState.SKIPPED]} unchanged, "
        f"{counts[JobState.FAILED]} failed ({audio:.1f} s of audio in {time.monotonic() - t0:.1f} s, "
        f"model {spec.name})",
        flush=True,
    )
    return 1 if counts[JobState.FAILED] or counts[JobState.CANCELLED] else 0
