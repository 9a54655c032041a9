"""Index a generated sample broadcast and search it: Earshot's main job, end to end.

Builds a short English news broadcast with espeak-ng (stories in several
voices between music beds), ingests it into the library with the default
speech model, prints the start of the transcript, then lists the library and runs a search for a word that was
recognised. Exits non-zero if any step fails.

Run: ``.venv/bin/python -m tools.demo [--db PATH] [--stories N]``.
"""

from __future__ import annotations

import argparse
import collections
import sys
import textwrap
from pathlib import Path

# Run as a script (python tools/NAME.py) as well as a module: the repository goes on the path first.
if str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cli.main import main as earshot
from engine.paths import data_dir, default_db_path
from engine.storage.store import Store

#: Words of the recognised transcript the demo prints.
TRANSCRIPT_WORDS = 80


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=None, help="index file (default: the library in the user data folder)")
    ap.add_argument("--stories", type=int, default=3, help="stories in the sample broadcast")
    args = ap.parse_args(argv)
    from tools.broadcast import build_broadcast

    db = args.db or default_db_path()
    sample = data_dir() / "samples" / "sample-broadcast.wav"
    sample.parent.mkdir(parents=True, exist_ok=True)
    truth = build_broadcast(sample, stories=_texts(args.stories), seed=7, applause=False, laughter=False)
    print(f"sample broadcast: {sample} ({truth.duration:.0f} s, {len(truth.stories)} stories)")

    code = earshot(["--db", str(db), "ingest", "--force", str(sample)])
    if code != 0:
        return code
    with Store(db) as store:
        rec = store.recording(str(sample))
        rows = store.words(rec["id"])
    words = [w["text"] for w in rows]
    if not words:
        print("earshot demo: no words were recognised in the sample", file=sys.stderr)
        return 1
    print(f"\ntranscript ({rec['engine']} model {rec['model']}), as the reader sees it:\n")
    print(textwrap.fill(" ".join(w["display"] or w["text"] for w in rows[:TRANSCRIPT_WORDS]), width=100,
                        initial_indent="  ", subsequent_indent="  ") + (" …" if len(rows) > TRANSCRIPT_WORDS else ""))
    # Search for a word that was both spoken and recognised, preferring long ones.
    spoken = {w.norm for w in truth.words}
    from engine.search.text import is_term

    common = collections.Counter(w for w in words if len(w) >= 5 and w in spoken and is_term(w))
    query = common.most_common(1)[0][0] if common else max(words, key=len)
    print("\n$ earshot list\n")
    earshot(["--db", str(db), "list"])
    print(f"\n$ earshot show {rec['id']} --stories --events --entities\n")
    earshot(["--db", str(db), "show", str(rec["id"]), "--stories", "--events", "--entities"])
    print(f"\n$ earshot search {query!r}\n")
    return earshot(["--db", str(db), "search", query, "--limit", "5"])


def _texts(n: int) -> list[str]:
    from tools.broadcast import NEWS_DIR

    lines = [s for s in (NEWS_DIR / "en.txt").read_text(encoding="utf-8").splitlines() if s.strip()]
    return lines[:n]


if __name__ == "__main__":
    sys.exit(main())
