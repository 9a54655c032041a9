"""Retrain the two shipped story-segmentation models from the NewsScape caption days.

    python -m tools.train_segmentation_models [--corpus ../shared/data/newsscape]

Writes ``models/segmentation/newsscape.npz`` (the paper's features, for recognizer
output), ``newsscape-punctuated.npz`` (plus SENTENCE-START, for captions and text) and
``newsscape-acoustic.npz`` (X-DURATION alone, for weak recognisers). Only learned
parameters go into the files.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    from engine.errors import EarshotError
    from engine.research.segment.fit import train_model
    from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES, XDuration
    from engine.segment.text import read_corpus
    from models.segmentation import ACOUSTIC_MODEL_NAME, DEFAULT_MODEL_PATH, PUNCTUATED_MODEL_NAME

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "newsscape")
    args = parser.parse_args(argv)
    try:
        transcripts = read_corpus(args.corpus)
    except EarshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    info = {"corpus": f"NewsScape ({len(transcripts)} channel-days, 2006)", "files": [t.name for t in transcripts]}
    for features, path in ((DEFAULT_FEATURES, DEFAULT_MODEL_PATH),
                           (PUNCTUATED_FEATURES, DEFAULT_MODEL_PATH.with_name(f"{PUNCTUATED_MODEL_NAME}.npz")),
                           ((XDuration(),), DEFAULT_MODEL_PATH.with_name(f"{ACOUSTIC_MODEL_NAME}.npz"))):
        started = time.perf_counter()
        model = train_model(transcripts, features=features, info=info)
        model.save(path)
        print(f"{path.name}: {model.info['stories']} stories, {model.info['words']} words, {model.hyper}, "
              f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
