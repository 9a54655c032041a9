"""Reading SGML-marked transcripts: time against document size, and the line-counting it replaced.

Run from the repository root::

    python bench/markup_bench.py          # about a minute

Writes ``bench/results/markup.json`` and ``markup.md``.

Documents are synthetic and seeded: lines of 12 words, one in four words inside a
``<ENAMEX>`` tag, no times (the untimed case that was slow). The peer is the
previous position look-up, which counted newlines from the start of the text for
every tag (quadratic); it runs in the same process on the same documents, on
sizes small enough to finish, and figures are quoted as ratios.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import write_result
from engine.evaluate.entities import markup
from engine.evaluate.entities.score import score
from engine.evaluate.entities.simulate import corrupt

TYPES = ("PERSON", "LOCATION", "ORGANIZATION")


def sgml_document(n_words: int, rng: np.random.Generator) -> tuple[str, int]:
    """An untimed SGML text of ``n_words`` words, a quarter of them in single-word entity tags."""
    vocab = [f"w{i}" for i in range(5000)]
    words = rng.choice(vocab, size=n_words)
    tagged = rng.random(n_words) < 0.25
    kinds = rng.integers(0, len(TYPES), size=n_words)
    lines, line = [], []
    for w, t, k in zip(words, tagged, kinds, strict=True):
        line.append(f'<ENAMEX TYPE="{TYPES[k]}">{w}</ENAMEX>' if t else str(w))
        if len(line) == 12:
            lines.append(" ".join(line))
            line = []
    lines.append(" ".join(line))
    return "<doc>\n" + "\n".join(lines) + "\n</doc>\n", int(tagged.sum())


class _CountFromStart:
    """The previous look-up: newlines counted from the start of the text on every call."""

    def __init__(self, text: str, line: int, column: int) -> None:
        self.text, self.line, self.column = text, line, column

    def __call__(self, index: int) -> tuple[int, int]:
        newlines = self.text.count("\n", 0, index)
        if newlines == 0:
            return self.line, self.column + index
        return self.line + newlines, index - self.text.rfind("\n", 0, index)


def time_read(text: str, positions: type) -> tuple[float, int]:
    saved = markup._Positions
    markup._Positions = positions  # type: ignore[misc]
    try:
        t0 = time.perf_counter()
        doc = markup.parse_marked_text(text, "bench.sgml")
        return time.perf_counter() - t0, len(doc.words)
    finally:
        markup._Positions = saved  # type: ignore[misc]


def markdown(result: dict[str, Any]) -> str:
    """``bench/results/markup.md`` from ``markup.json``: reading time against the document's size, and the untimed
    scoring run."""
    scoring = result["untimed_scoring"]
    lines = ["| words | entities | read (s) | count-from-start peer (s) | peer / now |", "|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        peer = f"{r['peer_seconds']:.2f}" if "peer_seconds" in r else "not run (quadratic)"
        ratio = f"{r['speed_up']:.1f}x" if "speed_up" in r else ""
        lines.append(f"| {r['words']:,} | {r['entities']:,} | {r['seconds']:.2f} | {peer} | {ratio} |")
    lines += ["", f"An untimed {scoring['words']:,}-word SGML reference against a 20% WER hypothesis: read in "
              f"{scoring['read_seconds']:.1f} s (with simulating the hypothesis), scored (phonetic alignment) in "
              f"{scoring['score_seconds']:.1f} s; target 10 s in all."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-words", type=int, default=40_000, help="largest size the quadratic peer is timed on")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(20261124)
    rows = []
    for n in (10_000, 20_000, args.peer_words, 160_000, 180_000):
        text, n_entities = sgml_document(n, rng)
        now, n_read = time_read(text, markup._Positions)
        assert n_read == n, (n_read, n)
        row = {"words": n, "entities": n_entities, "bytes": len(text), "seconds": now}
        if n <= args.peer_words:
            before, _ = time_read(text, _CountFromStart)
            row |= {"peer_seconds": before, "speed_up": before / now}
        rows.append(row)
        print(row, flush=True)
    text, _ = sgml_document(180_000, rng)
    t0 = time.perf_counter()
    ref = markup.parse_marked_text(text, "ref.sgml")
    hyp = corrupt(ref, 0.2, rng)
    t1 = time.perf_counter()
    score(ref, hyp, align_mode="phonetic")
    scoring = {"words": 180_000, "read_seconds": t1 - t0, "score_seconds": time.perf_counter() - t1,
               "target_seconds": 10.0}
    print(scoring, flush=True)
    result = {"date": datetime.now().isoformat(timespec="seconds"), "machine": platform.platform(),
              "python": platform.python_version(), "rows": rows,
              "untimed_scoring": scoring}
    lines = markdown(result).split("\n")
    write_result("markup", result, "\n".join(lines) + "\n", indent=2)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
