"""Stages 3-5: mapping, counting, MUC mode (checked against nervaluate), slot error rate."""

from __future__ import annotations

import pytest

from engine.entities.spans import EntitySpan, Transcript
from engine.errors import ParameterError
from engine.evaluate.entities.markup import parse_marked_text
from engine.evaluate.entities.score import score

TYPES = ("PERSON", "LOCATION", "ORGANIZATION")


def test_counts_precision_recall_ser():
    ref = parse_marked_text("<P>BILL CLINTON</P> MET <P>NEWT GINGRICH</P> IN <L>WASHINGTON</L> TODAY")
    hyp = parse_marked_text("<P>BILL CLINTON</P> MET <O>NEWT GINGRICH</O> IN WASHINGTON <L>TODAY</L>")
    r = score(ref, hyp, align_mode="sclite")
    c = r.overall
    # pair 1 all right (3 C), pair 2 type wrong (2 C, 1 S), WASHINGTON missed (3 D), TODAY spurious (3 I)
    assert (c.correct, c.substitution, c.deletion, c.insertion) == (5, 1, 3, 3)
    assert c.precision == pytest.approx(5 / 9) and c.recall == pytest.approx(5 / 9)
    assert c.ser == pytest.approx(7 / 9)
    assert r.per_type["PERSON"]["recall"] == pytest.approx(5 / 6)
    assert r.per_type["LOCATION"]["precision"] == 0.0


def test_identical_texts_score_perfectly():
    ref = parse_marked_text("<P>A B</P> C <O>D</O> E")
    r = score(ref, ref)
    assert r.overall.f == 1.0 and r.overall.ser == 0.0 and r.words["errors"] == 0


def test_optimal_mapping_beats_greedy():
    # Two hypothesis entities overlap one reference entity; greedy takes the first (wrong type).
    words = ["A", "B", "C", "D"]
    ref = Transcript.from_words(words, [EntitySpan("PERSON", 0, 3, "A B C D")])
    hyp = Transcript.from_words(words, [EntitySpan("LOCATION", 0, 1, "A B"), EntitySpan("PERSON", 2, 3, "C D")])
    greedy = score(ref, hyp, mapping="greedy", align_mode="sclite")
    optimal = score(ref, hyp, mapping="optimal", align_mode="sclite")
    assert [(p.ref, p.hyp) for p in greedy.pairs if p.ref is not None and p.hyp is not None] == [(0, 0)]
    assert [(p.ref, p.hyp) for p in optimal.pairs if p.ref is not None and p.hyp is not None] == [(0, 1)]
    assert optimal.overall.f > greedy.overall.f


def test_muc_mode_combines_extent_and_content_at_tolerance_0():
    ref = parse_marked_text("<P>NEWT GINGRICH</P>")
    r = score(ref, parse_marked_text("NEW <P>GINGRICH</P>"), muc=True, tolerance=3)
    assert list(r.components) == ["type", "text"] and r.settings["tolerance"] == 0
    assert r.components["text"].substitution == 1 and r.components["type"].correct == 1


def test_bad_tolerance():
    t = parse_marked_text("<P>A</P>")
    with pytest.raises(ParameterError, match="extent tolerance must be >= 0, got -1"):
        score(t, t, tolerance=-1)


def _random_doc(rng, n_words=60):
    spans, i = [], int(rng.integers(0, 3))
    while i < n_words - 1:
        length = int(rng.integers(1, 4))
        if i + length > n_words:
            break
        spans.append(EntitySpan(TYPES[int(rng.integers(0, 3))], i, i + length - 1, ""))
        i += length + int(rng.integers(1, 5))
    return spans


def _perturb(rng, spans, n_words):
    out = []
    for s in spans:
        roll = rng.random()
        if roll < 0.15:
            continue  # missed
        t, lo, hi = s.type, s.first_word, s.last_word
        if roll < 0.35:
            t = TYPES[(TYPES.index(t) + 1) % 3]
        if rng.random() < 0.3:
            lo = max(0, lo + int(rng.integers(-1, 2)))
            hi = max(lo, min(n_words - 1, hi + int(rng.integers(-1, 2))))
        out.append(EntitySpan(t, lo, hi, ""))
    taken = {k for s in out for k in range(s.first_word - 1, s.last_word + 2)}
    for _ in range(2):  # spurious ones in free space
        k = int(rng.integers(0, n_words))
        if k not in taken and all(k not in range(s.first_word, s.last_word + 1) for s in spans):
            out.append(EntitySpan(TYPES[int(rng.integers(0, 3))], k, k, ""))
            taken.update({k - 1, k, k + 1})
    out.sort(key=lambda s: s.first_word)
    return [s for k, s in enumerate(out) if k == 0 or s.first_word > out[k - 1].last_word]


def _one_to_one(ref, hyp):
    def overlaps(a, b):
        return a.first_word <= b.last_word and b.first_word <= a.last_word
    return all(sum(overlaps(r, h) for h in hyp) <= 1 for r in ref) and all(sum(overlaps(r, h) for r in ref) <= 1 for h in hyp)


def test_muc_mode_agrees_with_nervaluate(rng):
    """On identical texts MUC mode counts what nervaluate counts: TYPE = ent_type, TEXT = exact."""
    nervaluate = pytest.importorskip("nervaluate", reason="the PyPI package nervaluate is not installed")
    ours = {"type": [0, 0, 0, 0], "text": [0, 0, 0, 0]}
    true_docs, pred_docs = [], []
    while len(true_docs) < 200:
        ref_spans = _random_doc(rng)
        hyp_spans = _perturb(rng, ref_spans, 60)
        if not _one_to_one(ref_spans, hyp_spans):
            continue  # nervaluate matches greedily without one-to-one mapping; MUC maps one to one
        words = [f"W{k}" for k in range(60)]
        r = score(Transcript.from_words(words, ref_spans), Transcript.from_words(words, hyp_spans), muc=True)
        for comp in ("type", "text"):
            c = r.components[comp]
            for k, v in enumerate((c.correct, c.substitution, c.deletion, c.insertion)):
                ours[comp][k] += v
        true_docs.append([{"label": s.type, "start": s.first_word, "end": s.last_word} for s in ref_spans])
        pred_docs.append([{"label": s.type, "start": s.first_word, "end": s.last_word} for s in hyp_spans])
    result = nervaluate.Evaluator(true_docs, pred_docs, tags=list(TYPES), loader="dict").evaluate()["overall"]
    for comp, strategy in (("type", "ent_type"), ("text", "exact")):
        theirs = result[strategy]
        assert ours[comp] == [theirs.correct, theirs.incorrect, theirs.missed, theirs.spurious]
    assert sum(ours["text"][1:]) > 50  # the generated data exercises every kind of error


@pytest.mark.parametrize("mode", ["phonetic", "sclite"])
def test_a_boundary_moved_over_a_correct_word_is_not_forgiven(mode):
    ref = parse_marked_text("THE <O>CABINET</O> MET TODAY")
    hyp = parse_marked_text("THE CABINET <O>THAT</O> MET TODAY")
    r = score(ref, hyp, align_mode=mode, tolerance=1)
    assert not any(p.ref is not None and p.hyp is not None and p.judgement.extent_ok for p in r.pairs), r.pairs
    right = parse_marked_text("THE <O>CABINET</O> THAT MET TODAY")
    pair = next(p for p in score(ref, right, align_mode=mode, tolerance=1).pairs if p.ref is not None)
    assert pair.judgement is not None and pair.judgement.extent_ok and pair.judgement.content_ok
