"""Retrain the shipped story-segmentation models from the NewsScape caption days.

    python -m tools.train_segmentation_models [--corpus ../shared/data/newsscape] [--only NAME ...]

Writes ``models/segmentation/newsscape.npz`` (the paper's features, for recognizer
output), ``newsscape-punctuated.npz`` (plus SENTENCE-START, for captions and text) and
``newsscape-acoustic.npz`` (X-DURATION alone, for weak recognisers) and
``newsscape-recogniser.npz`` (the punctuated features trained on the days made Whisper-like,
with a boundary-posterior threshold fitted on leave-one-day-out decodes, for Whisper output).
Only learned parameters go into the files.

``--combiner-only`` keeps the listed models as they are and adds (or refits) the boundary
combiner in their info (``engine.segment.combiner``): every day is decoded by a model with the
shipped hyper-parameters trained on the other days, and the combiner is fitted on those decodes
(``engine.research.segment.combiner_fit.fit_shipped_combiner``); ingest then places the stories
of that model's input by the combiner.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


sys.path.insert(0, str(ROOT))

from engine.errors import EarshotError  # noqa: E402
from engine.research.segment.boundary_fit import fit_block_seconds  # noqa: E402
from engine.research.segment.combiner_fit import DecodedDay, fit_shipped_combiner  # noqa: E402
from engine.research.segment.experiments import leave_one_out  # noqa: E402
from engine.research.segment.fit import train_model  # noqa: E402
from engine.research.segment.recogniser_like import fit_posterior_threshold, whisper_like  # noqa: E402
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES, XDuration  # noqa: E402
from engine.segment.model import SegmentationModel  # noqa: E402
from engine.segment.segmenter import segment_transcript  # noqa: E402
from engine.segment.text import Transcript, read_corpus  # noqa: E402
from models.segmentation import (  # noqa: E402
    ACOUSTIC_MODEL_NAME,
    DEFAULT_MODEL_NAME,
    DEFAULT_MODEL_PATH,
    PUNCTUATED_MODEL_NAME,
    RECOGNISER_MODEL_NAME,
)

XDURATION_ONLY = (XDuration(),)
#: Seed of the sentence thinning that makes the caption days Whisper-like.
WHISPER_LIKE_SEED = 7


def recogniser_model(transcripts: list[Transcript], info: dict, *, seed: int = WHISPER_LIKE_SEED) -> SegmentationModel:
    """The recogniser model: punctuated features on Whisper-like days, with a held-out posterior threshold.

    The block length ingest applies (``info["block_seconds"]``) and the boundary-posterior
    threshold (``info["posterior_threshold"]``, the operating point of ``--threshold``) are fitted
    on every day's decode by a model trained on the other days (with the hyper-parameters tuned
    on all of them).
    """
    rng = np.random.default_rng(seed)
    days = [whisper_like(t, rng=rng) for t in transcripts]
    model = train_model(days, features=PUNCTUATED_FEATURES, info={**info, "input": "whisper-like captions"})
    decoded = []
    for held in days:
        rest = [t for t in days if t is not held]
        inner = train_model(rest, hyper=model.hyper, features=PUNCTUATED_FEATURES)
        seg = segment_transcript(held, model=inner)
        decoded.append((seg.story_starts, seg.boundary_posterior, held))
    model.info["block_seconds"] = fit_block_seconds(decoded)
    model.info["posterior_threshold"] = fit_posterior_threshold([(post, t) for _, post, t in decoded])
    print(f"block length {model.info['block_seconds']} s, posterior threshold {model.info['posterior_threshold']}",
          flush=True)
    return model


def held_out_block_seconds(transcripts: list[Transcript], features) -> float:
    """Block length (s) fitted on every day's Viterbi stories under a model trained on the other days."""
    decoded = []
    for fold in leave_one_out(transcripts, features=features):
        seg = segment_transcript(fold.test[0], model=fold.model)
        decoded.append((seg.story_starts, seg.boundary_posterior, fold.test[0]))
    seconds = fit_block_seconds(decoded)
    print(f"block length: {seconds} s", flush=True)
    return seconds


def add_combiner(path: Path, transcripts: list[Transcript], features, *, whisper: bool) -> SegmentationModel:
    """The model at ``path`` with a boundary combiner fitted on leave-one-day-out decodes in its info."""
    model = SegmentationModel.load(path)
    days = transcripts
    if whisper:
        rng = np.random.default_rng(WHISPER_LIKE_SEED)
        days = [whisper_like(t, rng=rng) for t in transcripts]
    decoded = []
    for held in days:
        inner = train_model([t for t in days if t is not held], hyper=model.hyper, features=features)
        seg = segment_transcript(held, model=inner)
        decoded.append(DecodedDay(held, seg.story_starts, seg.boundary_posterior))
    combiner = fit_shipped_combiner(decoded)
    model.info["boundary_combiner"] = combiner.as_dict()
    print(f"combiner: threshold {combiner.threshold}, floor {combiner.min_words} words, "
          f"blocks {combiner.block_seconds} s", flush=True)
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "newsscape")
    parser.add_argument("--no-blocks", action="store_true", help="do not fit the block lengths (five times faster)")
    parser.add_argument("--combiner-only", action="store_true",
                        help="keep the models, add a boundary combiner fitted on leave-one-day-out decodes")
    names = (DEFAULT_MODEL_NAME, PUNCTUATED_MODEL_NAME, ACOUSTIC_MODEL_NAME, RECOGNISER_MODEL_NAME)
    parser.add_argument("--only", nargs="+", choices=names, default=list(names), metavar="NAME",
                        help=f"retrain only these models ({', '.join(names)})")
    args = parser.parse_args(argv)
    try:
        transcripts = read_corpus(args.corpus)
    except EarshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    info = {"corpus": f"NewsScape ({len(transcripts)} channel-days, 2006)", "files": [t.name for t in transcripts]}
    for name, features in ((DEFAULT_MODEL_NAME, DEFAULT_FEATURES), (PUNCTUATED_MODEL_NAME, PUNCTUATED_FEATURES),
                           (ACOUSTIC_MODEL_NAME, XDURATION_ONLY), (RECOGNISER_MODEL_NAME, PUNCTUATED_FEATURES)):
        if name not in args.only:
            continue
        path = DEFAULT_MODEL_PATH.with_name(f"{name}.npz")
        started = time.perf_counter()
        extra = dict(info)
        if args.combiner_only:
            model = add_combiner(path, transcripts, features, whisper=name == RECOGNISER_MODEL_NAME)
        elif name == RECOGNISER_MODEL_NAME:
            model = recogniser_model(transcripts, extra)
        else:
            if features is not XDURATION_ONLY and not args.no_blocks:
                extra["block_seconds"] = held_out_block_seconds(transcripts, features)
            model = train_model(transcripts, features=features, info=extra)
        model.save(path)
        print(f"{path.name}: {model.info['stories']} stories, {model.info['words']} words, {model.hyper}, "
              f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
