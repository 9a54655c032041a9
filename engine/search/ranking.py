"""The six passage retrieval models of Wade and Allan (section 3), over one candidate set.

``tfidf``  Lemur's TFIDF over fixed passages (3.1).
``ql``     query likelihood, Jelinek-Mercer smoothed, over fixed passages (3.2).
``rmp``    relevance model from the top passages; passages ranked by -KL (3.3).
``rmd``    the same with stories ("documents") in place of passages (3.3).
``mm``     passages ranked by -KL between the relevance model and the
           corpus/story/passage mixture 0.8/0.1/0.1 (3.5). The default.
``qwd``    variable-length passages marked around expanded-query words,
           ranked by the mixture model (3.6).

All arrays; no per-candidate Python loops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.errors import ParameterError
from engine.search import config
from engine.search.candidates import Candidates
from engine.search.extents import ExtentParams
from engine.search.scoring import idf, marked_runs, mixture_log_likelihood, range_term_counts, relevance_model, tfidf_scores
from engine.storage.passages import CorpusTotals


@dataclass(frozen=True)
class ModelParams:
    """Every tunable number of the models; defaults from :mod:`engine.search.config`."""

    ql_collection_weight: float = config.QL_COLLECTION_WEIGHT
    rm_feedback: int = config.RM_FEEDBACK
    rm_terms: int = config.RM_TERMS
    rm_min_prob: float = config.RM_MIN_PROB
    rm_collection_weight: float = config.RM_COLLECTION_WEIGHT
    rm_query_weight: float = config.RM_QUERY_WEIGHT
    mm_weights: tuple[float, float, float] = config.MM_WEIGHTS
    #: The mixture model's document: 0 = the passage's story; K > 0 = its context window of K words
    #: either side (``config.MM_CONTEXT_WORDS``).
    context_words: int = config.MM_CONTEXT_WORDS
    #: With context windows: a story given with the transcript is its passages' whole document (else
    #: their window is clipped to it).
    context_given_whole: bool = config.CONTEXT_GIVEN_WHOLE
    #: Units the MM and QWD relevance model is estimated from: "passages" or "docs".
    mm_feedback: str = "passages"
    qwd_max_radius: int = config.QWD_MAX_RADIUS
    qwd_min_chars: int = config.QWD_MIN_CHARS
    candidate_blocks: int = config.CANDIDATE_BLOCKS
    candidate_docs: int = config.CANDIDATE_DOCS
    candidate_block_budget: int = config.CANDIDATE_BLOCK_BUDGET
    #: Score taken off teasers and promos (see ``config.TEASER_*``); 0 = off.
    teaser_penalty: float = config.TEASER_PENALTY
    #: Where hits start and end: one of ``config.PASSAGE_EXTENTS``; ``extent`` weighs the cues.
    passage_extent: str = config.PASSAGE_EXTENT
    extent: ExtentParams = field(default_factory=ExtentParams)

    def __post_init__(self) -> None:
        if not 0 < self.ql_collection_weight <= 1:
            raise ParameterError(f"ql_collection_weight must be in (0, 1], got {self.ql_collection_weight}")
        if len(self.mm_weights) != 3 or min(self.mm_weights) < 0 or abs(sum(self.mm_weights) - 1) > 1e-9 \
                or self.mm_weights[0] <= 0:
            raise ParameterError(f"mm_weights must be 3 weights >= 0 summing to 1, corpus > 0, got {self.mm_weights}")
        for name in ("rm_collection_weight", "rm_query_weight"):
            if not 0 <= getattr(self, name) <= 1:
                raise ParameterError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.teaser_penalty < 0:
            raise ParameterError(f"teaser_penalty must be >= 0, got {self.teaser_penalty}")
        if self.passage_extent not in config.PASSAGE_EXTENTS:
            raise ParameterError(f"passage_extent must be one of {', '.join(config.PASSAGE_EXTENTS)},"
                                 f" got {self.passage_extent!r}")
        if self.mm_feedback not in ("passages", "docs"):
            raise ParameterError(f"mm_feedback must be 'passages' or 'docs', got {self.mm_feedback!r}")
        if self.context_words < 0:
            raise ParameterError(f"context_words must be >= 0, got {self.context_words}")
        if min(self.rm_feedback, self.rm_terms, self.candidate_blocks, self.candidate_docs) < 1:
            raise ParameterError("feedback, term and candidate counts must be >= 1")


@dataclass(frozen=True)
class QueryStats:
    """The query's terms with their library-wide statistics."""

    term_ids: np.ndarray  # (Q,) int
    query_tf: np.ndarray  # (Q,) counts in the query
    cf: np.ndarray  # (Q,) collection frequencies (> 0)
    df: np.ndarray  # (Q,) passage document frequencies
    totals: CorpusTotals
    #: cf of any term ids (the relevance model's terms are only known at query time).
    cf_lookup: Callable[[np.ndarray], np.ndarray]


@dataclass
class Ranking:
    """Scored units of one model: passages, stories or spans, each a token range of the candidates."""

    kind: str  # "passage", "doc" or "span"
    doc: np.ndarray
    tok_lo: np.ndarray
    tok_hi: np.ndarray
    block_lo: np.ndarray  # candidate block rows covering the unit, inclusive
    block_hi: np.ndarray
    score: np.ndarray
    recording_id: np.ndarray
    first_word: np.ndarray
    last_word: np.ndarray
    char_start: np.ndarray
    char_end: np.ndarray
    start: np.ndarray  # seconds; NaN until resolved (spans)
    end: np.ndarray
    #: The query model the units were scored with: term ids and weights.
    model_terms: tuple[np.ndarray, np.ndarray] = field(default_factory=lambda: (np.array([]), np.array([])))

    def __len__(self) -> int:
        return len(self.score)

    def take(self, rows: np.ndarray) -> Ranking:
        """The units at ``rows``, in that order."""
        keep = {k: getattr(self, k)[rows] for k in (
            "doc", "tok_lo", "tok_hi", "block_lo", "block_hi", "score", "recording_id", "first_word", "last_word",
            "char_start", "char_end", "start", "end")}
        return Ranking(self.kind, model_terms=self.model_terms, **keep)


def rank(cands: Candidates, stats: QueryStats, model: str, params: ModelParams) -> Ranking:
    """Score the candidate units of ``model`` (unsorted)."""
    if model == "tfidf":
        lo, hi = cands.passages["tok_lo"], cands.passages["tok_hi"]
        tf = _counts(cands, stats.term_ids, lo, hi)
        scores = tfidf_scores(stats.query_tf, idf(stats.totals.n_passages, stats.df), tf, hi - lo,
                              mean_len=max(stats.totals.mean_passage_length, 1.0))
        return _passages(cands, scores, (stats.term_ids, stats.query_tf))
    if model == "ql":
        return _passages(cands, _query_likelihood(cands, stats, *_passage_ranges(cands), params),
                         (stats.term_ids, stats.query_tf))
    if model == "rmp":
        ids, weights, p_coll = _query_model(cands, stats, params, feedback="passages")
        lam = params.ql_collection_weight
        return _passages(cands, _neg_kl(cands, ids, weights, p_coll, *_passage_ranges(cands), (lam, 0.0, 1 - lam)),
                         (ids, weights))
    if model == "rmd":
        ids, weights, p_coll = _query_model(cands, stats, params, feedback="docs")
        lam = params.ql_collection_weight
        lo, hi, doc = cands.docs["tok_lo"], cands.docs["tok_hi"], np.arange(cands.n_docs)
        return _docs(cands, _neg_kl(cands, ids, weights, p_coll, lo, hi, doc, (lam, 0.0, 1 - lam)), (ids, weights))
    if model == "mm":
        ids, weights, p_coll = _query_model(cands, stats, params, feedback=params.mm_feedback)
        context = (cands.passages["ctx_lo"], cands.passages["ctx_hi"]) if "ctx_lo" in cands.passages else None
        return _passages(cands, _neg_kl(cands, ids, weights, p_coll, *_passage_ranges(cands), params.mm_weights,
                                        context=context), (ids, weights))
    if model == "qwd":
        return _qwd(cands, stats, params)
    raise ParameterError(f"unknown model {model!r}; choose one of {', '.join(config.MODELS)}")


# -- pieces -----------------------------------------------------------------------


def _columns(tok_term: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Column of each token's term in ``ids``, or -1."""
    if len(ids) == 0:
        return np.full(len(tok_term), -1, dtype=np.int64)
    order = np.argsort(ids)
    pos = np.clip(np.searchsorted(ids[order], tok_term), 0, len(ids) - 1)
    return np.where(ids[order][pos] == tok_term, order[pos], -1)


def _counts(cands: Candidates, ids: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return range_term_counts(_columns(cands.tokens["term"], ids), lo, hi, n_cols=len(ids))


def _passage_ranges(cands: Candidates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return cands.passages["tok_lo"], cands.passages["tok_hi"], cands.passages["doc"]


def _query_likelihood(cands: Candidates, stats: QueryStats, lo: np.ndarray, hi: np.ndarray, doc: np.ndarray,
                      params: ModelParams) -> np.ndarray:
    """log P(Q | unit), Jelinek-Mercer (eq. 7-8)."""
    lam = params.ql_collection_weight
    tf = _counts(cands, stats.term_ids, lo, hi)
    q = len(stats.term_ids)
    return mixture_log_likelihood(
        stats.query_tf, stats.cf / stats.totals.n_tokens, tf, hi - lo, np.zeros((1, q)), np.ones(1),
        np.zeros(len(lo), dtype=np.int64), w_coll=lam, w_doc=0.0, w_unit=1 - lam,
    )


def _query_model(cands: Candidates, stats: QueryStats, params: ModelParams, *, feedback: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The expanded query model Θ_R* of eq. 11: (term ids, weights, collection probabilities)."""
    if feedback == "docs":
        lo, hi, doc = cands.docs["tok_lo"], cands.docs["tok_hi"], np.arange(cands.n_docs)
    else:
        lo, hi, doc = _passage_ranges(cands)
    loglik = _query_likelihood(cands, stats, lo, hi, doc, params)
    top = np.argsort(-loglik, kind="stable")[: params.rm_feedback]
    rm_ids, rm_p = relevance_model(cands.tokens["term"], lo[top], hi[top], loglik[top],
                                   max_terms=params.rm_terms, min_prob=params.rm_min_prob)
    ids = np.union1d(rm_ids, stats.term_ids)
    p_rm = np.zeros(len(ids))
    p_rm[np.searchsorted(ids, rm_ids)] = rm_p
    p_query = np.zeros(len(ids))
    p_query[np.searchsorted(ids, stats.term_ids)] = stats.query_tf / stats.query_tf.sum()
    cf = np.maximum(stats.cf_lookup(ids), 1.0)
    p_coll = cf / max(stats.totals.n_tokens, 1)
    beta, lam_q = params.rm_collection_weight, params.rm_query_weight
    smoothed = (1 - beta) * p_rm + beta * p_coll / p_coll.sum() if len(rm_ids) else p_coll / p_coll.sum()
    weights = lam_q * p_query + (1 - lam_q) * smoothed
    return ids, weights, p_coll


def _neg_kl(cands: Candidates, ids: np.ndarray, weights: np.ndarray, p_coll: np.ndarray, lo: np.ndarray,
            hi: np.ndarray, doc: np.ndarray, mix: tuple[float, float, float],
            context: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """-KL(Θ_R* || mixture of corpus, document and unit models), eq. 12 and 15. The document is the unit's
    row of ``doc`` (a story), or with ``context`` its own token range ``[context[0][u], context[1][u])``."""
    tf = _counts(cands, ids, lo, hi)
    if mix[1] > 0 and context is not None:
        doc_tf = _counts(cands, ids, *context)
        doc_len, doc = context[1] - context[0], np.arange(len(lo))
    elif mix[1] > 0:
        doc_tf = _counts(cands, ids, cands.docs["tok_lo"], cands.docs["tok_hi"])
        doc_len = cands.docs["tok_hi"] - cands.docs["tok_lo"]
    else:
        doc_tf, doc_len, doc = np.zeros((1, len(ids))), np.ones(1), np.zeros(len(lo), dtype=np.int64)
    cross = mixture_log_likelihood(weights, p_coll, tf, hi - lo, doc_tf, doc_len, doc,
                                   w_coll=mix[0], w_doc=mix[1], w_unit=mix[2])
    positive = weights > 0
    return cross - float(np.sum(weights[positive] * np.log(weights[positive])))


def _qwd(cands: Candidates, stats: QueryStats, params: ModelParams) -> Ranking:
    """Variable-length passages around expanded-query words, ranked by the mixture model."""
    ids, weights, p_coll = _query_model(cands, stats, params, feedback=params.mm_feedback)
    radius = np.rint(params.qwd_max_radius * weights / weights.max()).astype(np.int64)
    col = _columns(cands.tokens["term"], ids)
    tok_radius = np.where(col >= 0, radius[np.maximum(col, 0)], -1)
    lo, hi = marked_runs(tok_radius, cands.docs["tok_lo"], cands.docs["tok_hi"])
    blocks = cands.blocks
    block_lo = np.searchsorted(blocks["tok_hi"], lo, "right")
    block_hi = np.searchsorted(blocks["tok_hi"], hi - 1, "right")
    first_word = cands.tokens["position"][lo]
    last_word = cands.tokens["position"][hi - 1]
    chars, lo_of = cands.tokens["word_chars"], blocks["word_chars_lo"]
    char_start = chars[lo_of[block_lo] + first_word - blocks["first_word"][block_lo]]
    char_end = chars[lo_of[block_hi] + last_word - blocks["first_word"][block_hi] + 1] - 1
    keep = char_end - char_start >= params.qwd_min_chars
    lo, hi, block_lo, block_hi = lo[keep], hi[keep], block_lo[keep], block_hi[keep]
    doc = blocks["doc"][block_lo]
    scores = _neg_kl(cands, ids, weights, p_coll, lo, hi, doc, params.mm_weights)
    nan = np.full(len(lo), np.nan)
    return Ranking("span", doc, lo, hi, block_lo, block_hi, scores, blocks["recording_id"][block_lo],
                   first_word[keep], last_word[keep], char_start[keep], char_end[keep], nan, nan.copy(),
                   (ids, weights))


def _passages(cands: Candidates, scores: np.ndarray, model_terms: tuple[np.ndarray, np.ndarray]) -> Ranking:
    p, b = cands.passages, cands.blocks
    lo, hi = p["block_lo"], p["block_hi"]
    return Ranking("passage", p["doc"], p["tok_lo"], p["tok_hi"], lo, hi, scores, b["recording_id"][lo],
                   b["first_word"][lo], b["last_word"][hi], b["char_start"][lo], b["char_end"][hi],
                   b["start"][lo], b["end"][hi], model_terms)


def _docs(cands: Candidates, scores: np.ndarray, model_terms: tuple[np.ndarray, np.ndarray]) -> Ranking:
    d = cands.docs
    return Ranking("doc", np.arange(cands.n_docs), d["tok_lo"], d["tok_hi"], d["block_lo"], d["block_hi"] - 1,
                   scores, d["recording_id"], d["first_word"], d["last_word"], d["char_start"], d["char_end"],
                   d["start"], d["end"], model_terms)
