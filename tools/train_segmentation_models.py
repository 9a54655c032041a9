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


sys.path.insert(0, str(ROOT))

from engine.errors import EarshotError  # noqa: E402
from engine.research.segment.boundary_fit import fit_block_seconds  # noqa: E402
from engine.research.segment.experiments import leave_one_out  # noqa: E402
from engine.research.segment.fit import train_model  # noqa: E402
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES, XDuration  # noqa: E402
from engine.segment.segmenter import segment_transcript  # noqa: E402
from engine.segment.text import Transcript, read_corpus  # noqa: E402
from models.segmentation import ACOUSTIC_MODEL_NAME, DEFAULT_MODEL_PATH, PUNCTUATED_MODEL_NAME  # noqa: E402

XDURATION_ONLY = (XDuration(),)


def held_out_block_seconds(transcripts: list[Transcript], features) -> float:
    """Block length (s) fitted on every day's Viterbi stories under a model trained on the other days."""
    decoded = []
    for fold in leave_one_out(transcripts, features=features):
        seg = segment_transcript(fold.test[0], model=fold.model)
        decoded.append((seg.story_starts, seg.boundary_posterior, fold.test[0]))
    seconds = fit_block_seconds(decoded)
    print(f"block length: {seconds} s", flush=True)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "newsscape")
    parser.add_argument("--no-blocks", action="store_true", help="do not fit the block lengths (five times faster)")
    args = parser.parse_args(argv)
    try:
        transcripts = read_corpus(args.corpus)
    except EarshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    info = {"corpus": f"NewsScape ({len(transcripts)} channel-days, 2006)", "files": [t.name for t in transcripts]}
    for features, path in ((DEFAULT_FEATURES, DEFAULT_MODEL_PATH),
                           (PUNCTUATED_FEATURES, DEFAULT_MODEL_PATH.with_name(f"{PUNCTUATED_MODEL_NAME}.npz")),
                           (XDURATION_ONLY, DEFAULT_MODEL_PATH.with_name(f"{ACOUSTIC_MODEL_NAME}.npz"))):
        started = time.perf_counter()
        extra = dict(info)
        if features is not XDURATION_ONLY and not args.no_blocks:
            extra["block_seconds"] = held_out_block_seconds(transcripts, features)
        model = train_model(transcripts, features=features, info=extra)
        model.save(path)
        print(f"{path.name}: {model.info['stories']} stories, {model.info['words']} words, {model.hyper}, "
              f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
