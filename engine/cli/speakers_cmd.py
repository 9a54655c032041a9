"""``speakers``: who speaks in a recording; ``rename``, ``merge``, ``--count N`` to find them again,
and ``find`` to find a speaker's voice in the other recordings."""

from __future__ import annotations

import argparse
import os
import sys

from engine.cli.common import open_store, positive_int
from engine.cli.terminal import shown
from engine.errors import ParameterError
from engine.timefmt import clock

#: Words that open a subcommand instead of naming a recording ("earshot speakers rename ...").
ACTIONS = {"rename": ("LABEL", "NAME"), "merge": ("KEEP", "INTO_IT"), "find": ("LABEL",)}


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "speakers", help="list, rename or merge a recording's speakers, or find them again",
        usage="earshot speakers REC [--count N]\n       earshot speakers rename REC LABEL NAME\n"
              "       earshot speakers merge REC KEEP OTHER\n"
              "       earshot speakers find REC LABEL [--all] [--threshold X]",
        description="REC: a recording's speakers with their talk time and turns. --count N finds them again from "
        "the audio as N speakers (names start afresh). rename: give speaker LABEL (S2, 2 or its name) a NAME. "
        "merge: make speaker OTHER part of speaker KEEP. find: the speakers of other recordings whose voice is like "
        "speaker LABEL's, most similar first.",
    )
    p.add_argument("words", nargs="+", metavar="ARG",
                   help="REC, or rename REC LABEL NAME, or merge REC KEEP OTHER, or find REC LABEL")
    p.add_argument("--count", type=positive_int, metavar="N", help="find the speakers again from the audio, as N speakers")
    p.add_argument("--estimate", action="store_true", help="find the speakers again from the audio, estimating how many")
    p.add_argument("--threshold", type=float, metavar="X",
                   help="find: least cosine similarity of two voices (-1 to 1; default the tuned one)")
    p.add_argument("--all", action="store_true", dest="all_speakers", help="find: every other speaker, however unlike")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    words = list(args.words)
    if words[0] in ACTIONS and len(words) > 1:
        action, rest = words[0], words[1:]
        wanted = ACTIONS[action]
        if len(rest) != len(wanted) + 1:
            raise ParameterError(f"speakers {action}: give REC {' '.join(wanted)} (got {len(rest)} arguments)")
        if args.count or args.estimate:
            raise ParameterError(f"speakers {action}: --count and --estimate go with 'earshot speakers REC' alone")
        if action != "find" and (args.threshold is not None or args.all_speakers):
            raise ParameterError(f"speakers {action}: --threshold and --all go with 'earshot speakers find'")
        if action == "find":
            return _find(args, *rest)
        return _rename(args, *rest) if action == "rename" else _merge(args, *rest)
    if len(words) != 1:
        raise ParameterError(f"speakers: give one recording, or 'rename REC LABEL NAME' or 'merge REC KEEP OTHER' "
                             f"(got {' '.join(words)})")
    if args.threshold is not None or args.all_speakers:
        raise ParameterError("speakers: --threshold and --all go with 'earshot speakers find REC LABEL'")
    if args.count or args.estimate:
        if args.count and args.estimate:
            raise ParameterError("speakers: give --count N or --estimate, not both")
        _recompute(args, words[0], args.count)
    return _list(args, words[0])


def _list(args: argparse.Namespace, ref: str) -> int:
    with open_store(args) as store:
        rec = store.recording(ref)
        rows = store.speakers(rec["id"])
    given = rec.get("speakers_given")
    how = f"{len(rows)} speaker{'s' if len(rows) != 1 else ''}" + (" (count given)" if given else "")
    print(shown(f"{rec['name']}: {how}"))
    if not rows:
        print("no speaker turns stored; find them with: earshot speakers REC --estimate")
        return 0
    print(f"{'label':<6} {'talk':>10} {'share':>6} {'turns':>6} {'words':>6}  name")
    total = sum(r["seconds"] for r in rows) or 1.0
    for r in rows:
        print(shown(f"S{r['label']:<5} {clock(r['seconds']):>10} {100 * r['seconds'] / total:5.1f}% {r['turns']:>6} "
                    f"{r['words']:>6}  {r['name']}"))
    return 0


def _rename(args: argparse.Namespace, ref: str, label: str, name: str) -> int:
    with open_store(args, writing=True) as store:
        rec = store.recording(ref)
        number = store.speaker_label(rec["id"], label)
        store.rename_speaker(rec["id"], number, name)
    print(shown(f"{rec['name']}: S{number} is now {' '.join(name.split())}"))
    return 0


def _merge(args: argparse.Namespace, ref: str, keep: str, other: str) -> int:
    with open_store(args, writing=True) as store:
        rec = store.recording(ref)
        a, b = store.speaker_label(rec["id"], keep), store.speaker_label(rec["id"], other)
        store.merge_speakers(rec["id"], a, b)
    print(shown(f"{rec['name']}: S{b} merged into S{a}"))
    return 0


def _find(args: argparse.Namespace, ref: str, label: str) -> int:
    from engine.speakers.find import find_speaker  # lazy: numpy

    with open_store(args) as store:
        rec = store.recording(ref)
        number = store.speaker_label(rec["id"], label)
        name = next(r["name"] for r in store.speakers(rec["id"]) if r["label"] == number)
        matches = find_speaker(store, int(rec["id"]), number, threshold=args.threshold, keep_all=args.all_speakers)
    if not matches:
        print(shown(f"{rec['name']} S{number} ({name}): no voice like it in the other recordings"))
        return 0
    print(shown(f"{rec['name']} S{number} ({name}): {len(matches)} speaker{'s' if len(matches) != 1 else ''} "
                "of other recordings, most similar voice first"))
    print(f"{'similar':>7} {'rec':>5} {'label':<6} {'talk':>8} {'first':>8}  recording: name")
    for m in matches:
        first = "-" if m.first is None else clock(m.first)
        print(shown(f"{m.similarity:7.3f} {m.recording_id:>5} S{m.label:<5} {clock(m.seconds):>8} {first:>8}  "
                    f"{m.title}: {m.name}"))
    return 0


def _recompute(args: argparse.Namespace, ref: str, count: int | None) -> None:
    from engine.ingest.speaker_pass import recompute_speakers  # lazy: the networks' weights and SciPy

    with open_store(args, writing=True) as store:
        rec = store.recording(ref)
        if os.path.exists(rec["path"]):  # else the one line that says so comes alone
            print(shown(f"finding the speakers of {rec['name']} again ({clock(rec['duration'])} of audio) ..."),
                  file=sys.stderr, flush=True)
        recompute_speakers(store, int(rec["id"]), n_speakers=count)
