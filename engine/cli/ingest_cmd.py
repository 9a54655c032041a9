"""``earshot ingest PATH...``: transcribe recordings into the index."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from engine.cli.common import interrupted_note, open_db_path, positive_int, resolve_model
from engine.ingest import FileOutcome, IngestJob
from engine.jobs import JobState


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "ingest", help="transcribe recordings (files or folders) into the index",
        description="Decode, transcribe and index recordings. Folders are searched recursively. "
        "Unchanged files are skipped; changed files replace their old transcript.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="recording files or folders")
    p.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                   help="recognition processes to run in parallel (default: number of cores)")
    p.add_argument("--model", metavar="NAME", help="speech model to use (default: the chosen default; see 'models list')")
    p.add_argument("--force", action="store_true", help="transcribe again even if a file is unchanged")
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    p.set_defaults(func=run)


class _Reporter:
    """Prints per-file progress with an ETA, and one line per finished file."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.live = sys.stderr.isatty() and not quiet
        self._last_print: dict[str, float] = {}
        self._started: dict[str, float] = {}
        self._progress = None
        self._tasks: dict[str, TaskID] = {}
        if self.live:

            self._progress = Progress(
                TextColumn("{task.description}", justify="left"), BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"), TimeRemainingColumn(),
                console=Console(stderr=True), transient=True,
            )
            self._progress.start()

    def state(self, o: FileOutcome) -> None:
        name = Path(o.path).name
        if o.state is JobState.RUNNING:
            if self._progress is not None:
                self._tasks[o.path] = self._progress.add_task(name, total=max(o.duration, 1e-6))
            elif not self.quiet:
                self._started[o.path] = time.monotonic()
                print(f"  started  {o.path} ({o.duration:.1f} s)", file=sys.stderr, flush=True)
            return
        if o.state is JobState.QUEUED:
            return
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
        if self._progress is not None and path in self._tasks:
            self._progress.update(self._tasks[path], completed=done, total=max(total, 1e-6))
        elif not self.quiet and not self.live:
            now = time.monotonic()
            if now - self._last_print.get(path, 0.0) >= 10.0 and done > 0:
                self._last_print[path] = now
                pct = 100.0 * done / total if total else 0.0
                elapsed = now - self._started.get(path, now)
                eta = elapsed * (total - done) / done
                print(f"  {pct:5.1f}%   {Path(path).name} ({done:.0f} of {total:.0f} s, about {eta:.0f} s left)",
                      file=sys.stderr, flush=True)

    def _print(self, line: str, force: bool = False) -> None:
        if self.quiet and not force:
            return
        if self._progress is not None:
            self._progress.console.print(line, highlight=False, markup=False)
        else:
            print(line, file=sys.stderr if force else sys.stdout, flush=True)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def run(args: argparse.Namespace) -> int:
    db_path = open_db_path(args)
    spec = resolve_model(args.model)
    if spec.note and not args.quiet:
        print(f"note: {spec.note}", file=sys.stderr)
    reporter = _Reporter(args.quiet)
    job = IngestJob(
        args.paths, db_path=db_path, spec=spec, workers=args.workers, force=args.force,
        on_state=reporter.state, on_progress=reporter.progress,
    )
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
