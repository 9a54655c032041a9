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

import numpy as np  # noqa: E402

from engine.errors import EarshotError  # noqa: E402
from engine.segment.boundaries import BoundaryRule, fit_boundary_rule  # noqa: E402
from engine.segment.evaluate import score_documents  # noqa: E402
from engine.segment.experiments import leave_one_out  # noqa: E402
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES, XDuration  # noqa: E402
from engine.segment.model import train_model  # noqa: E402
from engine.segment.rules import fit_gap_threshold, gap_rule_starts  # noqa: E402
from engine.segment.segmenter import segment_transcript  # noqa: E402
from engine.segment.text import Transcript, read_corpus  # noqa: E402
from models.segmentation import ACOUSTIC_MODEL_NAME, DEFAULT_MODEL_PATH, PUNCTUATED_MODEL_NAME  # noqa: E402

XDURATION_ONLY = (XDuration(),)


def held_out_rule(transcripts: list[Transcript], features) -> BoundaryRule:
    """The boundary rule fitted on every day's posterior under a model trained on the other days."""
    folds = leave_one_out(transcripts, features=features)
    decoded = [(segment_transcript(fold.test[0], model=fold.model).boundary_posterior, fold.test[0]) for fold in folds]
    peers = []
    for _, day in decoded:  # the rule must beat the gap rule (T from the other days) and no boundary
        others = [t for t in transcripts if t is not day]
        systems = (gap_rule_starts(day, threshold=fit_gap_threshold(others)), np.zeros(1, dtype=np.int64))
        scores = [score_documents([day.story_starts], [h], [len(day)]) for h in systems]
        peers.append(np.array([[s.tdt_cost, s.pk, s.windowdiff] for s in scores]))
    rule = fit_boundary_rule(decoded, peers=peers)
    print(f"boundary rule: {rule}", flush=True)
    return rule


def main(argv: list[str] | None = None) -> int:

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "newsscape")
    parser.add_argument("--no-rules", action="store_true", help="do not fit the boundary rules (five times faster)")
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
        if features is not XDURATION_ONLY and not args.no_rules:
            extra["boundary_rule"] = held_out_rule(transcripts, features).as_dict()
        model = train_model(transcripts, features=features, info=extra)
        model.save(path)
        print(f"{path.name}: {model.info['stories']} stories, {model.info['words']} words, {model.hyper}, "
              f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
