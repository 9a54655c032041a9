"""Slow, obvious twins of passage search's kernels and measures, for comparison on random inputs."""

from __future__ import annotations

import math

import numpy as np


def range_term_counts(tok_col, lo, hi, n_cols):
    out = np.zeros((len(lo), n_cols))
    for u in range(len(lo)):
        for i in range(lo[u], hi[u]):
            if tok_col[i] >= 0:
                out[u, tok_col[i]] += 1
    return out


def mixture_cross_entropy(weights, p_coll, unit_tf, unit_len, doc_tf, doc_len, unit_doc, w_coll, w_doc, w_unit):
    out = []
    for u in range(unit_tf.shape[0]):
        d = unit_doc[u]
        total = 0.0
        for t in range(len(weights)):
            p_unit = unit_tf[u, t] / unit_len[u] if unit_len[u] else 0.0
            p_doc = doc_tf[d, t] / doc_len[d] if doc_len[d] else 0.0
            total += weights[t] * math.log(w_coll * p_coll[t] + w_doc * p_doc + w_unit * p_unit)
        out.append(total)
    return np.array(out)


def tfidf(query_tf, idf, unit_tf, unit_len, mean_len):
    out = []
    for u in range(unit_tf.shape[0]):
        total = 0.0
        for t in range(len(query_tf)):
            c = unit_tf[u, t]
            tf_p = c / (unit_len[u] / (2 * mean_len) + 0.5 + c)
            tf_q = query_tf[t] / (query_tf[t] + 1)
            total += tf_q * idf[t] * tf_p * idf[t]
        out.append(total)
    return np.array(out)


def marked_runs(tok_radius, doc_lo, doc_hi):
    runs = []
    for lo, hi in zip(doc_lo, doc_hi, strict=True):
        marked = [False] * (hi - lo)
        for i in range(lo, hi):
            r = tok_radius[i]
            if r >= 0:
                for j in range(i - r, i + r + 1):
                    if lo <= j < hi:
                        marked[j - lo] = True
        start = None
        for j, m in enumerate([*marked, False]):
            if m and start is None:
                start = j
            elif not m and start is not None:
                runs.append((lo + start, lo + j))
                start = None
    return runs


# -- measures, one character at a time -------------------------------------------------------------


def cohesion_drop(term_id, term_word, n, core, words, topic_terms=()):
    """1 before word j when the ``words`` words beyond the gap (away from the core) hold no core term."""
    vocab = {int(t) for t, w in zip(term_id, term_word, strict=True) if core[0] <= w <= core[1]} | {int(t) for t in topic_terms}
    terms_at = [set() for _ in range(n)]
    for t, w in zip(term_id, term_word, strict=True):
        terms_at[w].add(int(t))
    out = np.zeros(n)
    for j in range(n):
        if j > core[1] and j + words <= n:
            stretch = range(j, j + words)
        elif j <= core[0] and j - words >= 0:
            stretch = range(j - words, j)
        else:
            continue
        out[j] = float(not any(terms_at[w] & vocab for w in stretch))
    return out


def ends_with_cue(words, cues, within):
    """Whether a cue (a tuple of words) occurs in ``words`` ending at most ``within`` words before their end."""
    return any(words[i : i + len(c)] == list(c) and len(words) - (i + len(c)) <= within
               for c in cues for i in range(len(words) - len(c) + 1))
