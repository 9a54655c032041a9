"""``earshot segment``: train, run, evaluate and explain the story segmenter.

    segment train --corpus DIR --out NAME     train on .txt3 (or blank-line .txt) transcripts
    segment run REC [--model NAME]            print the stories found in a transcript
    segment eval [--corpus DIR] [--model NAME | --leave-one-out]
    segment explain REC --truth FILE --out DIR

REC is a ``.txt3`` caption file or a plain-text file (stories separated by blank
lines); recordings in the index are looked up once ingest is wired in.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

from engine.cli.common import command_group, open_store
from engine.errors import NotFoundError, ParameterError
from engine.numtext import whole_number
from engine.research.segment.experiments import leave_one_out, score
from engine.research.segment.explain import explain
from engine.research.segment.fit import train_model
from engine.research.segment.plots import write_explanation
from engine.segment import config
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES
from engine.segment.loader import load_model
from engine.segment.model import Hyperparameters
from engine.segment.segmenter import resolve_model, segment_recognised, segment_transcript, shipped_model_note
from engine.segment.stories import transcript_stories
from engine.segment.text import Transcript, read_corpus, read_transcript
from engine.timefmt import counted
from models.segmentation import model_path

log = logging.getLogger("earshot.segment")


def register(subparsers) -> None:
    _, sub = command_group(subparsers, "segment", "segment_command", help="cut transcripts into stories (HMM segmenter)")

    train = sub.add_parser("train", help="train a segmentation model on transcripts with story markers")
    train.add_argument("--corpus", required=True, metavar="DIR", help="folder of .txt3 (or .txt) transcripts")
    train.add_argument("--out", required=True, metavar="NAME", help="model name (or path ending in .npz)")
    train.add_argument("--max-state", type=int, default=None, metavar="L", help="position states (default 250)")
    train.add_argument("--no-tune", action="store_true", help="keep default binning/smoothing/penalty settings")
    train.add_argument("--sentences", action="store_true",
                       help="add the SENTENCE-START feature (the corpus must be punctuated; the model then "
                            "segments punctuated input only)")
    train.set_defaults(func=_train)

    run = sub.add_parser("run", help="segment one transcript and list its stories")
    run.add_argument("rec", metavar="REC", help="a .txt3 caption file or a plain-text file")
    _model_args(run)
    run.add_argument("--json", action="store_true", help="print JSON instead of a table")
    run.set_defaults(func=_run)

    ev = sub.add_parser("eval", help="score the segmenter against story markers (TDT, Pk, WindowDiff)")
    ev.add_argument("--corpus", metavar="DIR", default=None,
                    help="folder of .txt3/.txt transcripts (default: ../shared/data/newsscape)")
    ev.add_argument("--leave-one-out", action="store_true",
                    help="train on all transcripts but one and test on that one, in turn")
    ev.add_argument("--sentences", action="store_true",
                    help="with --leave-one-out: train with the SENTENCE-START feature (punctuated corpus)")
    ev.add_argument("--plain-hmm", action="store_true",
                    help="score the HMM's best path alone, not the stories import and ingest store (its boundary "
                         "rule or combiner, and short stories merged into a neighbour)")
    _model_args(ev)
    ev.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ev.set_defaults(func=_eval)

    ex = sub.add_parser("explain", help="write diagnostic plots (PNG) and their data (JSON)")
    ex.add_argument("rec", metavar="REC", help="a .txt3 caption file or a plain-text file")
    ex.add_argument("--truth", required=True, metavar="FILE",
                    help="true story starts: a .txt3/.txt transcript of the same words, or word indices")
    ex.add_argument("--out", required=True, metavar="DIR", help="folder for the PNG files and explain.json")
    _model_args(ex)
    ex.set_defaults(func=_explain)


def _model_args(parser) -> None:
    parser.add_argument("--model", default=None, metavar="NAME", help="model name or .npz path (default: shipped)")
    parser.add_argument("--penalty", type=float, default=None, metavar="LOG",
                        help="boundary penalty (log); higher gives more stories")
    parser.add_argument("--threshold", type=float, default=None, metavar="P",
                        help="instead of the best path, a boundary wherever the posterior of a story start "
                             "within 5 words peaks above P (0..1); lower gives more stories")


def _load_transcript(rec: str, args=None):
    """A transcript file (.txt3 or plain text), or else a recording in the index."""
    return _load_recording(rec, args)[0]


def _load_recording(rec: str, args=None):
    """(transcript, detector extras): for a recording in the index, the extras are its words'
    X-duration and transcribed flags, as ingest used them; for a file, none."""

    path = Path(rec)
    if path.is_file():
        return read_transcript(path), {}
    if args is None:
        raise NotFoundError(f"{rec}: no such transcript file")

    with open_store(args) as store:
        try:
            recording = store.recording(rec)
        except NotFoundError:
            raise NotFoundError(f"{rec}: no such transcript file, nor a recording in the index") from None
        words = store.words(recording["id"])
    transcript = Transcript(
        words=[w["text"].replace(" ", "_") or "_" for w in words],
        starts=np.array([w["start"] for w in words], dtype=np.float64),
        ends=np.array([w["end"] for w in words], dtype=np.float64),
        name=recording["name"],
    )
    extras: dict = {}
    if words and all(w["x_duration"] is not None for w in words):
        extras["x_duration"] = np.array([w["x_duration"] for w in words], dtype=np.float64)
    if words and all(w["transcribed"] is not None for w in words):
        extras["transcribed"] = np.array([bool(w["transcribed"]) for w in words])
    extras["engine"] = recording["engine"]
    extras["displays"] = [w.get("display") or w["text"] for w in words]
    return transcript, extras


def _default_corpus() -> Path:
    return Path(__file__).resolve().parents[2].parent / "shared" / "data" / "newsscape"


def _train(args) -> int:
    transcripts = _with_story_markers(read_corpus(args.corpus), Path(args.corpus))
    total = sum(len(t.story_starts) for t in transcripts)
    if total < config.MIN_TRAINING_STORIES:
        raise ParameterError(f"{args.corpus}: {total} stories in {len(transcripts)} transcripts; training needs at "
                             f"least {config.MIN_TRAINING_STORIES} to estimate story lengths and features")
    max_state = config.MAX_STATE if args.max_state is None else args.max_state
    if max_state < 1:
        raise ParameterError(f"--max-state must be >= 1, got {max_state}")
    started = time.perf_counter()
    model = train_model(
        transcripts, hyper=Hyperparameters() if args.no_tune else None, max_state=max_state,
        features=PUNCTUATED_FEATURES if args.sentences else DEFAULT_FEATURES,
        info={"corpus": Path(args.corpus).name, "files": [t.name for t in transcripts]},
    )
    path = model.save(model_path(args.out))
    print(f"trained on {model.info['documents']} transcripts, {model.info['words']} words, "
          f"{model.info['stories']} stories in {time.perf_counter() - started:.1f} s")
    print(f"settings: {model.hyper}")
    print(f"wrote {path}")
    return 0


def _run(args) -> int:
    transcript, extras = _load_recording(args.rec, args)
    model = args.model
    if "engine" in extras:  # a recording in the index: ingest's model choice, sentence starts and story floor
        result = segment_recognised(
            transcript.words, extras.pop("displays"), engine=extras.pop("engine"), starts=transcript.starts,
            ends=transcript.ends, model=model, log_penalty=args.penalty, posterior_threshold=args.threshold, **extras,
        )
    else:  # a file: the stories import would store for it
        result = transcript_stories(transcript, model=model, log_penalty=args.penalty,
                                    posterior_threshold=args.threshold)
    note = shipped_model_note(transcript, model)
    if note and len(result.story_starts) <= 1:
        print(f"note: {note}", file=sys.stderr)
    stories = []
    for (a, b), conf in zip(result.spans(), result.confidence, strict=True):
        story = {"start_word": a, "end_word": b, "confidence": round(float(conf), 4),
                 "preview": " ".join(transcript.words[a : min(b, a + 12)])}
        if transcript.starts is not None:
            story["start_seconds"] = round(float(transcript.starts[a]), 3)
        stories.append(story)
    if args.json:
        print(json.dumps({"name": transcript.name, "words": len(transcript), "stories": stories}))
        return 0
    print(f"{transcript.name}: {counted(len(transcript), 'word')}, {counted(len(stories), 'story', 'stories')}")
    for i, s in enumerate(stories, 1):
        when = f"{s['start_seconds']:9.1f}s " if "start_seconds" in s else ""
        print(f"{i:4d} {s['start_word']:7d} {when}{s['confidence']:.2f}  {s['preview']}")
    return 0


def _eval(args) -> int:
    corpus = Path(args.corpus) if args.corpus else _default_corpus()
    transcripts = _with_story_markers(read_corpus(corpus), corpus)
    if args.leave_one_out:
        if len(transcripts) < 2:
            raise ParameterError(f"{corpus}: leave-one-out needs at least 2 transcripts, found {len(transcripts)}")

        folds = leave_one_out(transcripts, features=PUNCTUATED_FEATURES if args.sentences else DEFAULT_FEATURES)
        tested = [t for f in folds for t in f.test]
        hyps = [_hypothesis(f.model, t, args) for f in folds for t in f.test]
    else:
        model = load_model(args.model) if args.model else None  # None: the shipped model for each input
        tested = transcripts
        hyps = [_hypothesis(model, t, args) for t in transcripts]
    rows = [(t.name, score([t], [h])) for t, h in zip(tested, hyps, strict=True)]
    rows.append(("ALL", score(tested, hyps)))
    untimed = [t for t in tested if shipped_model_note(t, args.model)]
    if untimed and not args.leave_one_out:
        print(f"note: {len(untimed)} of {len(tested)} transcripts have no word times. "
              f"{shipped_model_note(untimed[0], args.model)}", file=sys.stderr)
    if args.json:
        print(json.dumps({name: s.as_dict() for name, s in rows}))
        return 0
    print(f"{'transcript':40s} {'P(miss)':>8s} {'P(fa)':>8s} {'C_seg':>8s} {'Pk':>8s} {'WD':>8s} {'starts':>7s}")
    for name, s in rows:
        print(f"{name[:40]:40s} {s.p_miss:8.3f} {s.p_false_alarm:8.3f} {s.tdt_cost:8.3f} "
              f"{s.pk:8.3f} {s.windowdiff:8.3f} {s.boundaries:7d}")
    return 0


def _with_story_markers(transcripts: list, folder: Path) -> list:
    """The transcripts, if every one marks at least one story boundary; else a one-line error naming the file."""
    for t in transcripts:
        if len(t.story_starts) < 2:
            raise ParameterError(f"{folder / t.name}: no story markers (a .txt3 file needs SEG rows with "
                                 "'Story start' or 'Commercial', a .txt file blank lines between stories)")
    return transcripts


def _hypothesis(model, transcript, args) -> np.ndarray:
    """Story starts for ``transcript``: as import stores them, or with ``--plain-hmm`` the HMM's best path."""
    if args.plain_hmm:
        return _starts_with_penalty(model, transcript, args.penalty, args.threshold)
    return transcript_stories(transcript, model=model, log_penalty=args.penalty,
                              posterior_threshold=args.threshold).story_starts


def _starts_with_penalty(model, transcript, penalty, threshold=None):
    return segment_transcript(transcript, model=model, log_penalty=penalty, with_posteriors=False,
                              posterior_threshold=threshold).story_starts


def _read_truth(path: str, n_words: int) -> np.ndarray:
    file = Path(path)
    if not file.is_file():
        raise NotFoundError(f"{path}: no such truth file")
    if file.suffix.lower() in (".txt3", ".txt"):
        text = file.read_text(encoding="utf-8", errors="replace")
        tokens = text.split()
        if tokens and all(whole_number(tok.removeprefix("-")) is not None for tok in tokens):
            starts = np.asarray([int(tok) for tok in tokens], dtype=np.int64)
        else:
            truth = read_transcript(file)
            if len(truth) != n_words:
                raise ParameterError(f"{path}: truth has {len(truth)} words, the recording {n_words}")
            starts = truth.story_starts
    else:
        try:
            starts = np.asarray(json.loads(file.read_text(encoding="utf-8")), dtype=np.int64)
        except (ValueError, TypeError) as exc:
            raise ParameterError(f"{path}: expected a JSON list of word indices ({exc})") from exc
    if starts.size and (starts.min() < 0 or starts.max() >= n_words):
        raise ParameterError(f"{path}: story starts must lie in [0, {n_words}), got {starts.min()}..{starts.max()}")
    return starts


def _explain(args) -> int:
    transcript = _load_transcript(args.rec, args)
    truth = _read_truth(args.truth, len(transcript))
    model = resolve_model(args.model, punctuated=transcript.sentence_starts.size > 0)
    data = explain(model, transcript, truth, log_penalty=args.penalty)
    written = write_explanation(data, args.out)
    print(f"wrote {len(written)} files to {args.out}")
    return 0
