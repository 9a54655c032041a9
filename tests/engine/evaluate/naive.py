"""Slow, obvious twins of the evaluation measures (passage retrieval, story segmentation), for comparison on random inputs."""

from __future__ import annotations


def ranked_flags(retrieved, judged):
    """retrieved: [(doc, start, end)] in rank order; judged: [(doc, start, end)].
    Returns one flag per ranked character (True = relevant, first time retrieved), the
    passage number of each character, and R."""
    relevant = {(d, c) for d, a, b in judged for c in range(a, b)}
    seen = set()
    flags, passage = [], []
    for k, (d, a, b) in enumerate(retrieved):
        for c in range(a, b):
            flags.append((d, c) in relevant and (d, c) not in seen)
            passage.append(k)
            seen.add((d, c))
    return flags, passage, len(relevant)


def passage_r_precision(flags, passage, n_judged):
    top = [f for f, p in zip(flags, passage, strict=True) if p < n_judged]
    return sum(top) / len(top) if top else 0.0


def precision_at(flags, k):
    return sum(flags[:k]) / k


def bpref_at(flags, k):
    total, non, rel = 0.0, 0, 0
    for f in flags:
        if f:
            rel += 1
            if rel <= k:
                total += 1 - min(non, k) / k
        else:
            non += 1
    return total / k


def average_precision(flags, n_relevant):
    total, rel = 0.0, 0
    for rank, f in enumerate(flags, 1):
        if f:
            rel += 1
            total += rel / rank
    return total / n_relevant


def probe_errors(reference, hypothesis, n_words, k):
    """(probes, reference-different, misses, false alarms) by looping over probe pairs."""
    ref = set(int(x) for x in reference) - {0}
    hyp = set(int(x) for x in hypothesis) - {0}
    probes = diff = miss = fa = 0
    for t in range(n_words - k):
        r = any(t < j <= t + k for j in ref)
        h = any(t < j <= t + k for j in hyp)
        probes += 1
        diff += r
        miss += r and not h
        fa += h and not r
    return probes, diff, miss, fa
