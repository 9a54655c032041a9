"""``import``: bring in transcripts that already exist (SRT, WebVTT, timed text, NewsScape .txt3)."""

from __future__ import annotations

import argparse

from engine.cli.common import open_store
from engine.cli.terminal import shown
from engine.errors import ParameterError
from engine.importer import import_transcript, matching_audio
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
            rec_id = import_transcript(store, name, audio=audio)
            rec = store.recording(rec_id)
            kinds = [s["kind"] for s in store.stories(rec_id)]
            stories = counted(kinds.count("story"), "story", "stories")
            ads = kinds.count("commercial")
            ads_text = f", {counted(ads, 'commercial block')} (not searched)" if ads else ""
            plays = f", plays {audio}" if audio else ", no audio"
            print(shown(f"imported {name}: {counted(rec['word_count'], 'word')}, {stories}{ads_text}"
                        f"{plays} (recording {rec_id})"))
    return 0
