"""``list``, ``show``, ``export`` and ``remove``: reading the index."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys

from engine.cli.common import open_store
from engine.cli.terminal import shown
from engine.detect.rate import RATE_EVENT_TYPES, rate_label
from engine.export import ALL_FORMATS, export_transcript, write_export
from engine.search import reindex_stale
from engine.timefmt import clock
from engine.writing import join_written


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("list", help="list the recordings in the index")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_list)

    p = subparsers.add_parser("show", help="show a recording's transcript with times and confidences")
    p.add_argument("recording", metavar="REC", help="recording id, path or name")
    p.add_argument("--words", action="store_true", help="one word per line instead of one segment per line")
    p.add_argument("--events", action="store_true", help="list the hot spots found in the audio")
    p.add_argument("--stories", action="store_true", help="list the stories the transcript was cut into")
    p.add_argument("--entities", action="store_true", help="list the named entities mentioned")
    p.set_defaults(func=run_show)

    p = subparsers.add_parser("export", help="export a transcript as SRT, VTT, TXT or JSON, or its speaker turns as RTTM")
    p.add_argument("recording", metavar="REC", help="recording id, path or name")
    p.add_argument("--format", choices=ALL_FORMATS, default="srt")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output ('-': standard output)")
    p.set_defaults(func=run_export)

    p = subparsers.add_parser("reindex", help="re-index the recordings whose search terms older rules made")
    p.set_defaults(func=run_reindex)

    p = subparsers.add_parser("remove", help="remove a recording from the index (the file is left alone)")
    p.add_argument("recording", metavar="REC", help="recording id, path or name")
    p.set_defaults(func=run_remove)


def run_list(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        rows = store.recordings()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    if not rows:
        print("The index is empty. Add recordings with: earshot ingest PATH...")
        return 0
    print(f"{'id':>4}  {'duration':>10}  {'words':>7}  {'engine/model':<28}  {'lang':<4}  {'indexed':<16}  name")
    for r in rows:
        when = dt.datetime.fromtimestamp(r["ingested_at"]).strftime("%Y-%m-%d %H:%M")
        model, length = f"{r['engine']}/{r['model']}", clock(r["duration"], decimals=2)
        language = r["language"] or "?"
        print(f"{r['id']:>4}  {length:>10}  {r['word_count']:>7}  {model:<28.28}  {language:<4.4}  {when:<16}  "
              f"{shown(r['name'])}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        rec = store.recording(args.recording)
        words = store.words(rec["id"])
        segments = store.segments(rec["id"])
        events = store.events(rec["id"]) if args.events else []
        stories = store.stories(rec["id"]) if args.stories else []
        entities = store.entities(rec["id"]) if args.entities else []
        names = {int(sp["label"]): str(sp["name"]) for sp in store.speakers(rec["id"])}
    print(shown(f"{rec['name']}  ({rec['path']})"))
    print(f"duration {clock(rec['duration'], decimals=2)}, {rec['word_count']} words, {rec['engine']}/{rec['model']}, "
          f"language {rec['language'] or 'unknown'}")
    if args.events or args.stories or args.entities:
        _show_annotations(args, words, events, stories, entities)
        return 0
    if args.words:
        for w in words:
            print(f"{clock(w['start'], decimals=2)}  {clock(w['end'], decimals=2)}  {w['conf']:.2f}  {w['text']}")
        return 0
    current: list[int | None] = [None]
    for s in segments:
        span = words[s["first_word"] : s["last_word"] + 1]
        mean = sum(w["conf"] for w in span) / len(span) if span else 0.0
        text = _with_turns(span, names, current) or s["text"]  # as the recogniser wrote it
        print(f"[{clock(s['start'], decimals=2)} - {clock(s['end'], decimals=2)}] ({mean:.2f})  {text}")
    return 0


def _with_turns(span: list[dict], names: dict[int, str], current: list[int | None]) -> str:
    """The words as the recogniser wrote them, "Name:" before the first word of each speaker's turn;
    ``current`` holds the speaker of the turn so far (updated)."""
    pieces: list[str] = []
    for w in span:
        if w.get("speaker") is not None and w["speaker"] != current[0] and w["speaker"] in names:
            current[0] = w["speaker"]
            pieces.append(f"{names[w['speaker']]}:")
        pieces.append(w["display"] or w["text"])
    return join_written(pieces)


def _show_annotations(args: argparse.Namespace, words: list[dict], events: list[dict], stories: list[dict],
                      entities: list[dict]) -> None:
    if args.events:
        starts = [w["start"] for w in words]
        print(f"\n{len(events)} events:")
        for e in events:
            score = "" if e["score"] is None else f"  score {e['score']:.2f}"
            value = "" if e["value"] is None else f"  value {e['value']:.2f}"
            if e["type"] in RATE_EVENT_TYPES:  # the measure people know beside the one the detector uses
                value = "  " + rate_label(e["type"], e["start"], e["end"], e["value"], starts).split(": ", 1)[-1]
            print(f"  {clock(e['start'], decimals=2)} - {clock(e['end'], decimals=2)}  {e['type']:<10}{score}{value}")
    if args.stories:
        print(f"\n{len(stories)} stories:")
        for s in stories:
            conf = "" if s["confidence"] is None else f" (boundary confidence {s['confidence']:.2f})"
            opening = join_written([w.get("display") or w["text"] for w in words[s["first_word"] : s["first_word"] + 12]])
            print(f"  {s['idx'] + 1:>3}. {clock(s['start'], decimals=2)} - {clock(s['end'], decimals=2)}{conf}  {opening} …")
    if args.entities:
        print(f"\n{len(entities)} entity mentions:")
        for e in entities:
            print(f"  {clock(e['start'], decimals=2)}  {e['type']:<13} {join_written(e['text'].split())}")


def run_export(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        rec = store.recording(args.recording)
        text = export_transcript(args.format, rec, store.words(rec["id"]), store.segments(rec["id"]),
                                 speakers=store.speakers(rec["id"]), turns=store.turns(rec["id"]))
    if args.output and args.output != "-":  # "-": standard output, as the other tools read it
        write_export(args.output, text, index_path=store.path)
        print(shown(f"wrote {args.output}"), file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run_reindex(args: argparse.Namespace) -> int:
    with open_store(args, writing=True) as store:
        n = reindex_stale(store, progress=lambda done, total: print(f"re-indexed {done} of {total}", file=sys.stderr))
    print(f"re-indexed {n} recording{'s' if n != 1 else ''} whose search terms older rules made")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    with open_store(args, writing=True) as store:
        rec = store.remove_recording(args.recording)
    print(shown(f"removed {rec['name']} (id {rec['id']}) from the index"))
    return 0
