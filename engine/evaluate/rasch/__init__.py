"""Rasch measurement of systems and test questions (Lange, Greiff, Moran, Ferro).

Systems (recognizers, taggers, rankers, settings) and questions (topics,
entities, test items) are placed on one logit scale from a binary response
matrix: joint maximum likelihood as Winsteps does it, fit statistics, misfit
diagnosis, purification, and equating with anchor questions.

>>> from engine.evaluate.rasch import read_matrix, fit_rasch
>>> fit = fit_rasch(read_matrix("runs.csv"))          # doctest: +SKIP
>>> fit.ability("asr-large"), fit.misfit("asr-large")  # doctest: +SKIP
"""

from engine.evaluate.rasch.equate import EquatingRun, EquatingSimulation, anchor_check, equate_simulation, quadratic_trend
from engine.evaluate.rasch.errors import EstimationError, MatrixFileError
from engine.evaluate.rasch.estimate import Facet, MisfitRow, RaschFit, Removal, fit_rasch, trim_extremes
from engine.evaluate.rasch.files import read_anchors, read_matrix, write_matrix
from engine.evaluate.rasch.fitstats import FitColumns, Separation, fit_statistics, separation, standardized_residuals
from engine.evaluate.rasch.matrix import MISSING, ResponseMatrix
from engine.evaluate.rasch.purify import Purification, purify
from engine.evaluate.rasch.simulate import paper_shaped_measures, simulate_responses
from engine.evaluate.rasch.sources import hits_matrix, read_qrels, read_trec_run, records_matrix

__all__ = [
    "MISSING",
    "EquatingRun",
    "EquatingSimulation",
    "EstimationError",
    "Facet",
    "FitColumns",
    "MatrixFileError",
    "MisfitRow",
    "Purification",
    "RaschFit",
    "Removal",
    "ResponseMatrix",
    "Separation",
    "anchor_check",
    "equate_simulation",
    "fit_rasch",
    "fit_statistics",
    "hits_matrix",
    "paper_shaped_measures",
    "purify",
    "quadratic_trend",
    "read_anchors",
    "read_matrix",
    "read_qrels",
    "read_trec_run",
    "records_matrix",
    "separation",
    "simulate_responses",
    "standardized_residuals",
    "trim_extremes",
    "write_matrix",
]
