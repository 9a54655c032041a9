"""``import``: bring in transcripts that already exist (SRT, WebVTT, timed text, NewsScape .txt3)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from engine.cli.common import open_store
from engine.cli.terminal import shown
from engine.errors import ParameterError
from engine.importer import import_transcript, matching_audio
from engine.jobs import JobReport
from engine.timefmt import counted


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "import", help="index existing transcripts (.srt, .vtt, timed .txt, NewsScape .txt3), with or without audio")
    p.add_argument("files", metavar="FILE", nargs="+")
    p.add_argument("--audio", metavar="PATH", help="the recording the (single) FILE transcribes")
    p.add_argument("--no-audio", action="store_true",
                   help="do not look for a recording with the same name next to each FILE")
    p.set_defaults(func=run_import)


def run_import(args: argparse.Namespace) -> int:
    if args.audio and len(args.files) > 1:
        raise ParameterError("--audio goes with a single FILE; for several, put each recording next to its"
                             " transcript under the same name")
    with open_store(args, writing=True) as store:
        for name in args.files:
            audio = args.audio or (None if args.no_audio else matching_audio(name))
            with _audio_progress(name if audio else None) as report:
                rec_id = import_transcript(store, name, audio=audio, report=report,
                                           notice=lambda line: print(shown(line), file=sys.stderr))
            rec = store.recording(rec_id)
            kinds = [s["kind"] for s in store.stories(rec_id)]
            stories = counted(kinds.count("story"), "story", "stories")
            ads = kinds.count("commercial")
            ads_text = f", {counted(ads, 'commercial block')} (not searched)" if ads else ""
            plays = f", {counted(len(store.events(rec_id)), 'audio event')}, plays {audio}" if audio else ", no audio"
            print(shown(f"imported {name}: {counted(rec['word_count'], 'word')}, {stories}{ads_text}"
                        f"{plays} (recording {rec_id})"))
    return 0


@contextlib.contextmanager
def _audio_progress(name: str | None) -> Iterator[JobReport]:
    """The import's job report: on a terminal, a progress line over the decode of the audio of ``name``
    (gone when it ends); elsewhere, and without audio, silent."""
    if name is None or not sys.stderr.isatty():
        yield JobReport()
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:  # fmt: skip
        task = bar.add_task(shown(f"analysing the audio of {name}"), total=None)
        yield JobReport(progress=lambda done, total: bar.update(task, completed=done, total=max(total, 1e-6)))
