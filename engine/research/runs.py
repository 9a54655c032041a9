"""Task bodies of the evaluation panels: engine calls only, plain results (no Qt)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.entities.tagger import load_tagger
from engine.evaluate.entities.readers import read_transcript, with_entities
from engine.evaluate.entities.report import format_pairs
from engine.evaluate.entities.score import score
from engine.evaluate.passages import compare, comparison_table, evaluate_run, read_qrels, read_run
from engine.evaluate.rasch import fit_rasch, read_matrix
from engine.evaluate.rasch.plots import density_data, facet_map_data
from engine.jobs import JobReport
from engine.research.segment.experiments import score as score_segmentation
from engine.search import config
from engine.segment.loader import load_model
from engine.segment.segmenter import segment_transcript, shipped_model_note
from engine.segment.text import read_transcript as read_story_transcript
from models.segmentation import DEFAULT_MODEL_NAME, PUNCTUATED_MODEL_NAME


@dataclass(frozen=True)
class SegmentationRun:
    """Scores per transcript (name, Scores) and pooled ("ALL"), with the boundaries behind them."""

    rows: list[tuple[str, Any]]  # (transcript name, engine.evaluate.segmentation.Scores)
    reference: dict[str, np.ndarray]  # name -> true story starts (word indices)
    hypothesis: dict[str, np.ndarray]  # name -> story starts found
    lengths: dict[str, int]  # name -> words
    model: str
    note: str | None = None  # a hint for the user about the model and the input


def evaluate_segmentation(
    paths: Sequence[str], model: str | None, report: JobReport, *, log_penalty: float | None = None
) -> SegmentationRun:
    """Segment each transcript with the HMM and score it against its own story markers.

    ``log_penalty`` is the boundary penalty (log; None: the model's tuned value; higher: more stories).
    """

    seg_model = load_model(model) if model else None  # None: the shipped model suited to each input
    transcripts, hyps = [], []
    used: set[str] = set()
    note = None
    for i, path in enumerate(paths):
        report.progress(i, len(paths))
        report.cancel.raise_if_cancelled()
        transcript = read_story_transcript(path)
        transcripts.append(transcript)
        note = note or shipped_model_note(transcript, model)
        used.add(model or (PUNCTUATED_MODEL_NAME if transcript.sentence_starts.size else DEFAULT_MODEL_NAME))
        found = segment_transcript(transcript, model=seg_model, log_penalty=log_penalty, with_posteriors=False)
        hyps.append(found.story_starts)
    report.progress(len(paths), len(paths))
    rows = [(t.name, score_segmentation([t], [h])) for t, h in zip(transcripts, hyps, strict=True)]
    if len(transcripts) > 1:
        rows.append(("ALL", score_segmentation(transcripts, hyps)))
    return SegmentationRun(
        rows, {t.name: t.story_starts for t in transcripts}, {t.name: np.asarray(h) for t, h in zip(transcripts, hyps,
                                                                                                    strict=True)},
        {t.name: len(t) for t in transcripts}, model or " and ".join(sorted(used)), note,
    )


@dataclass(frozen=True)
class RaschRun:
    """A Rasch calibration with the data of its figures."""

    fit: Any  # engine.evaluate.rasch.RaschFit
    systems_map: dict[str, Any]  # engine.evaluate.rasch.plots.facet_map_data(kind="systems")
    questions_map: dict[str, Any]
    density: dict[str, Any]  # engine.evaluate.rasch.plots.density_data
    source: str


def fit_matrix(path: str, layout: str, report: JobReport) -> RaschRun:
    """Read a response matrix file and calibrate it (JMLE)."""

    matrix = read_matrix(path, layout=layout)
    fit = fit_rasch(matrix, report=report)
    return RaschRun(fit, facet_map_data(fit.systems, kind="systems"), facet_map_data(fit.questions, kind="questions"),
                    density_data(fit), Path(path).name)


@dataclass(frozen=True)
class EntityOptions:
    """How to score entities (the ``entities score`` options)."""

    align: str = "phonetic"
    tolerance: int = 1
    mapping: str = "optimal"
    muc: bool = False


@dataclass(frozen=True)
class EntityRun:
    report: Any  # engine.evaluate.entities.score.ScoreReport
    pairs_text: str  # the aligned view of every pair, as the CLI prints it
    tagged: bool  # the hypothesis had no tags and was tagged with the shipped tagger
    reference: str
    hypothesis: str


def score_entities(ref_path: str, hyp_path: str, options: EntityOptions, report: JobReport) -> EntityRun:
    """Score the entities of a hypothesis file against a marked-up reference (Burger et al.'s scorer)."""

    ref, _ = read_transcript(ref_path)
    report.cancel.raise_if_cancelled()
    hyp, fmt = read_transcript(hyp_path)
    tagged = fmt == "ctm" and not hyp.entities
    if tagged:
        tagger = load_tagger(None)
        hyp = with_entities(hyp, tagger.tag([w.lower() for w in hyp.words]))
    report.cancel.raise_if_cancelled()
    result = score(ref, hyp, align_mode=options.align, tolerance=options.tolerance, mapping=options.mapping,
                   muc=options.muc)
    return EntityRun(result, format_pairs(result), tagged, Path(ref_path).name, Path(hyp_path).name)


@dataclass(frozen=True)
class PassageRun:
    evaluations: list[Any]  # engine.evaluate.passages.RunEvaluation, one per run file
    comparison_text: str  # paired t-tests between the runs (empty with one run)
    units: str


def evaluate_passages(run_paths: Sequence[str], qrels_path: str, units: str, report: JobReport) -> PassageRun:
    """Every passage-retrieval measure of each run against the judgements; t-tests when there are several runs."""

    qrels = read_qrels(qrels_path)
    evaluations = []
    for k, path in enumerate(run_paths):
        report.progress(k, len(run_paths))
        report.cancel.raise_if_cancelled()
        evaluations.append(evaluate_run(read_run(path), qrels, units=units, name=Path(path).name))
    text = ""
    if len(evaluations) > 1:
        c = compare(evaluations)
        text = "\n\n".join(comparison_table(c, m, alpha=config.EVAL_ALPHA) for m in c.measures)
    return PassageRun(evaluations, text, units)
