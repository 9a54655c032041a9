"""Scoring kernels against their slow twins, exact hand-computed cases, and bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.search.scoring import idf, marked_runs, mixture_log_likelihood, range_term_counts, relevance_model, tfidf_scores

from . import naive


def random_units(rng, n_tokens=300, n_units=40, n_cols=7):
    tok_col = rng.integers(-1, n_cols, n_tokens)
    lo = rng.integers(0, n_tokens, n_units)
    hi = np.minimum(lo + rng.integers(0, 60, n_units), n_tokens)
    return tok_col, lo, hi


@pytest.mark.parametrize("trial", range(10))
def test_range_term_counts_matches_naive(rng, trial):
    tok_col, lo, hi = random_units(rng)
    np.testing.assert_array_equal(range_term_counts(tok_col, lo, hi, n_cols=7), naive.range_term_counts(tok_col, lo, hi, 7))


@pytest.mark.parametrize("trial", range(10))
def test_mixture_matches_naive(rng, trial):
    n_units, n_docs, n_terms = 30, 5, 6
    weights = rng.dirichlet(np.ones(n_terms))
    p_coll = rng.uniform(1e-5, 1e-2, n_terms)
    unit_tf = rng.integers(0, 4, (n_units, n_terms)).astype(float)
    unit_len = unit_tf.sum(1) + rng.integers(0, 90, n_units)
    doc_tf = rng.integers(0, 20, (n_docs, n_terms)).astype(float)
    doc_len = doc_tf.sum(1) + rng.integers(1, 900, n_docs)
    unit_doc = rng.integers(0, n_docs, n_units)
    mix = rng.dirichlet(np.ones(3)) * 0.9 + np.array([0.1, 0, 0])
    got = mixture_log_likelihood(weights, p_coll, unit_tf, unit_len, doc_tf, doc_len, unit_doc,
                                 w_coll=mix[0], w_doc=mix[1], w_unit=mix[2])
    want = naive.mixture_cross_entropy(weights, p_coll, unit_tf, unit_len, doc_tf, doc_len, unit_doc, *mix)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("trial", range(10))
def test_tfidf_matches_naive(rng, trial):
    q = rng.integers(1, 3, 4).astype(float)
    idf_t = rng.uniform(0.1, 5, 4)
    tf = rng.integers(0, 5, (20, 4)).astype(float)
    length = tf.sum(1) + rng.integers(0, 100, 20)
    np.testing.assert_allclose(tfidf_scores(q, idf_t, tf, length, mean_len=95.0),
                               naive.tfidf(q, idf_t, tf, length, 95.0), rtol=1e-12)


@pytest.mark.parametrize("trial", range(10))
def test_marked_runs_match_naive(rng, trial):
    n = 200
    radius = np.where(rng.random(n) < 0.05, rng.integers(0, 6, n), -1)
    cuts = np.sort(rng.choice(np.arange(1, n), 6, replace=False))
    lo, hi = np.concatenate([[0], cuts]), np.concatenate([cuts, [n]])
    got_lo, got_hi = marked_runs(radius, lo, hi)
    assert list(zip(got_lo.tolist(), got_hi.tolist(), strict=True)) == naive.marked_runs(radius, lo, hi)


def test_query_likelihood_by_hand():
    # One passage of 4 tokens holding "flood" twice; P(flood|C) = 0.01, P(rain|C) = 0.02, lambda = 0.5.
    got = mixture_log_likelihood(np.array([1.0, 1.0]), np.array([0.01, 0.02]), np.array([[2.0, 0.0]]), np.array([4.0]),
                                 np.zeros((1, 2)), np.ones(1), np.zeros(1, dtype=int), w_coll=0.5, w_doc=0.0, w_unit=0.5)
    assert got[0] == pytest.approx(math.log(0.5 * 0.01 + 0.5 * 0.5) + math.log(0.5 * 0.02))


def test_mixture_model_by_hand():
    # Eq. 14 with 0.8/0.1/0.1: corpus 0.001, story 3 of 300, passage 1 of 100.
    got = mixture_log_likelihood(np.array([1.0]), np.array([0.001]), np.array([[1.0]]), np.array([100.0]),
                                 np.array([[3.0]]), np.array([300.0]), np.zeros(1, dtype=int),
                                 w_coll=0.8, w_doc=0.1, w_unit=0.1)
    assert got[0] == pytest.approx(math.log(0.8 * 0.001 + 0.1 * 0.01 + 0.1 * 0.01))


def test_tfidf_by_hand():
    # N = 9 passages, df = 2: IDF = log(10 / 2.5); tf 3 in a passage of average length:
    # TF = 3 / (0.5 + 0.5 + 3) = 0.75; query TF = 1/2.
    w = idf(9, np.array([2.0]))
    assert w[0] == pytest.approx(math.log(4.0))
    got = tfidf_scores(np.array([1.0]), w, np.array([[3.0]]), np.array([100.0]), mean_len=100.0)
    assert got[0] == pytest.approx(0.5 * 0.75 * math.log(4.0) ** 2)


def test_marked_runs_by_hand():
    #            0   1   2  3   4   5   6   7 | 8   9
    radius = np.array([-1, 1, -1, -1, -1, 0, -1, -1, 2, -1])
    lo, hi = marked_runs(radius, np.array([0, 8]), np.array([8, 10]))
    assert list(zip(lo.tolist(), hi.tolist(), strict=True)) == [(0, 3), (5, 6), (8, 10)]


def test_relevance_model_by_hand():
    # Two feedback units with equal likelihood: unit 0 = [a, a, b], unit 1 = [c].
    # P(a) = 1/2 * 2/3, P(b) = 1/2 * 1/3, P(c) = 1/2.
    ids, p = relevance_model(np.array([7, 7, 8, 9]), np.array([0, 3]), np.array([3, 4]), np.array([-2.0, -2.0]),
                             max_terms=10, min_prob=0.0)
    assert dict(zip(ids.tolist(), p.tolist(), strict=True)) == pytest.approx({9: 0.5, 7: 1 / 3, 8: 1 / 6})
    ids, p = relevance_model(np.array([7, 7, 8, 9]), np.array([0, 3]), np.array([3, 4]), np.array([-2.0, -2.0]),
                             max_terms=2, min_prob=0.0)
    assert ids.tolist() == [9, 7] and p.tolist() == pytest.approx([0.6, 0.4])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: range_term_counts(np.array([0, 5]), np.array([0]), np.array([2]), n_cols=3), "token columns"),
        (lambda: range_term_counts(np.array([0]), np.array([0]), np.array([4]), n_cols=3), "token ranges"),
        (lambda: mixture_log_likelihood(np.ones(1), np.ones(1), np.ones((1, 1)), np.ones(1), np.ones((1, 1)),
                                        np.ones(1), np.zeros(1, dtype=int), w_coll=0.5, w_doc=0.5, w_unit=0.5),
         "sum to 1"),
        (lambda: mixture_log_likelihood(np.ones(1), np.zeros(1), np.ones((1, 1)), np.ones(1), np.ones((1, 1)),
                                        np.ones(1), np.zeros(1, dtype=int), w_coll=0.5, w_doc=0.0, w_unit=0.5),
         "must be > 0"),
        (lambda: tfidf_scores(np.ones(2), np.ones(2), np.ones((3, 2)), np.ones(3), mean_len=0), "mean passage length"),
        (lambda: idf(3, np.array([4.0])), "0 <= df <= N"),
        (lambda: marked_runs(np.zeros(5, dtype=int), np.array([0, 2]), np.array([3, 5])), "disjoint"),
    ],
    ids=["bad-column", "range-outside", "weights-sum", "zero-collection-probability", "zero-mean-length",
         "df-above-n", "overlapping-documents"],
)
def test_bad_inputs_raise(call, message):
    with pytest.raises(ParameterError, match=message):
        call()
