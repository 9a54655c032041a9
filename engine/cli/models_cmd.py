"""``earshot models list|download|use|remove|default``: speech model management."""

from __future__ import annotations

import argparse
import sys

from engine.jobs import JobReport
from models.figures import figures_line, speech_figures
from models.manager import ModelManager


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("models", help="list, download, link or remove speech models")
    sub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True, parser_class=type(p))

    q = sub.add_parser("list", help="installed models and the catalogue of downloadable ones")
    q.add_argument("--all", action="store_true", help="also list every catalogue model")
    q.set_defaults(func=run_list)

    q = sub.add_parser("download", help="download and install a model from the catalogue")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--url", help="download from this address instead of the catalogue's")
    q.add_argument("--language", help="language code a multilingual Whisper model is told it hears (default: detect)")
    q.add_argument("--default", action="store_true", help="make it the default model afterwards")
    q.set_defaults(func=run_download)

    q = sub.add_parser("use", help="register a model folder you already have (it is not copied)")
    q.add_argument("path", metavar="PATH")
    q.add_argument("--name", help="name to list it under (default: the folder's name)")
    q.add_argument("--no-default", action="store_true", help="do not make it the default model")
    q.add_argument("--language", help="language code, e.g. de (a multilingual Whisper model is told it hears this)")
    q.set_defaults(func=run_use)

    q = sub.add_parser("remove", help="remove an installed model (a linked folder is left alone)")
    q.add_argument("name", metavar="NAME")
    q.set_defaults(func=run_remove)

    q = sub.add_parser("default", help="show or set the model ingest uses")
    q.add_argument("name", metavar="NAME", nargs="?")
    q.set_defaults(func=run_default)


def _manager():  # type: ignore[no-untyped-def]

    return ModelManager()


def _mb(size: float | int | None) -> str:
    return f"{size / 1e6:,.0f} MB" if size else "?"


def run_list(args: argparse.Namespace) -> int:
    mgr = _manager()
    default = mgr.resolve(None)
    figures = speech_figures()
    print("Installed:")
    for m in mgr.installed():
        mark = "*" if m.name == default.name else " "
        print(f" {mark} {m.name:<36} {m.engine:<13} {m.language:<6} {m.source:<9} {m.path}")
        measured = figures_line(m.name, figures)
        if measured:
            print(f"   {'':<36} {measured}")
    print("(* = used by ingest)")
    installed = {m.name for m in mgr.installed()}
    entries = [e for e in mgr.catalogue() if args.all or e.name not in installed]
    if entries:
        print("\nAvailable to download (earshot models download NAME):")
        for e in entries:
            size = _mb(e.size_bytes) if e.size_bytes else f"~{e.size_mb * 2**20 / 1e6:,.0f} MB"
            print(f"   {e.name:<36} {e.language:<6} {size:>9}")
    if default.note:
        print(f"\nnote: {default.note}")
    return 0


def run_download(args: argparse.Namespace) -> int:
    mgr = _manager()
    last = [-1]

    def progress(done: float, total: float) -> None:
        pct = int(100 * done / total) if total else -1
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{args.name}: {done / 1e6:,.1f} of {total / 1e6:,.1f} MB ({max(pct, 0)}%)")
            sys.stderr.flush()
        elif pct // 10 != last[0] // 10:
            print(f"{args.name}: {pct}%", file=sys.stderr)
        last[0] = pct

    model = mgr.download(args.name, report=JobReport(progress=progress), url=args.url, language=args.language)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    print(f"installed {model.name} in {model.path}")
    if args.default:
        mgr.set_default(model.name)
        print(f"{model.name} is now the default model")
    return 0


def run_use(args: argparse.Namespace) -> int:
    mgr = _manager()
    model = mgr.use(args.path, name=args.name, language=args.language)
    print(f"registered {model.name} ({model.path})")
    if not args.no_default:
        mgr.set_default(model.name)
        print(f"{model.name} is now the default model")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    _manager().remove(args.name)
    print(f"removed {args.name}")
    return 0


def run_default(args: argparse.Namespace) -> int:
    mgr = _manager()
    if args.name:
        mgr.set_default(args.name)
    spec = mgr.resolve(None)
    print(f"{spec.name} ({spec.engine}, {spec.path})")
    return 0
