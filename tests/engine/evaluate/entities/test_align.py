"""Lexeme alignment: kernels against their naive twins, sclite agreement, phonetic columns, anchors."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from engine.entities.spans import Transcript
from engine.errors import ParameterError
from engine.evaluate.entities._kernels import _phone_dp
from engine.evaluate.entities.align import CORRECT, DELETION, INSERTION, MULTI, SUBSTITUTION, align, sclite_ops
from engine.evaluate.entities.anchors import find_anchors
from engine.evaluate.entities.phonetic import cost_tables

from . import naive

VOCAB = ["A", "B", "C", "D", "THE", "OF"]


def _random_pair(rng, max_len=14, vocab=VOCAB):
    n, m = rng.integers(0, max_len, size=2)
    return [vocab[k] for k in rng.integers(0, len(vocab), n)], [vocab[k] for k in rng.integers(0, len(vocab), m)]


def test_sclite_kernel_matches_naive(rng):
    for _ in range(300):
        ref, hyp = _random_pair(rng)
        ids = {w: k for k, w in enumerate(VOCAB)}
        ops = sclite_ops(np.array([ids[w] for w in ref]), np.array([ids[w] for w in hyp]))
        assert ops.tolist() == naive.sclite_ops(ref, hyp)


def test_phone_kernel_matches_naive(rng):
    sub, indel = cost_tables()
    for _ in range(200):
        ref = rng.integers(0, 12, rng.integers(0, 12)).astype(np.int8)
        hyp = rng.integers(0, 12, rng.integers(0, 12)).astype(np.int8)
        ops = _phone_dp(ref, hyp, sub, indel)
        expected = naive.edit_ops(list(ref), list(hyp), lambda a, b: sub[a, b], lambda b: indel[b], lambda a: indel[a])
        assert ops.tolist() == expected


def test_link_columns_kernel_matches_naive(rng):
    from engine.evaluate.entities.phonetic import link_columns

    for _ in range(300):
        n_ref, n_hyp = int(rng.integers(0, 10)), int(rng.integers(0, 10))
        lo = np.full(n_ref, -1)
        hi = np.full(n_ref, -1)
        h = 0
        for r in range(n_ref):  # monotone links, as a monotone phone alignment gives
            if rng.random() < 0.7 and h < n_hyp:
                h = min(n_hyp - 1, h + int(rng.integers(0, 2)))
                lo[r] = h
                h = min(n_hyp - 1, h + int(rng.integers(0, 2)))
                hi[r] = h
        assert link_columns(lo, hi, n_hyp).tolist() == [list(c) for c in naive.link_columns(lo, hi, n_hyp)]


def test_textbook_levenshtein():
    # kitten -> sitting: 2 substitutions and 1 insertion, sclite cost 4 + 4 + 3
    al = align(Transcript.from_words(list("KITTEN")), Transcript.from_words(list("SITTING")), mode="sclite")
    assert al.word_errors() | {} == {"correct": 4, "substitution": 2, "deletion": 0, "insertion": 1,
                                     "ref_words": 6, "hyp_words": 7, "errors": 3}


def _sclite_alignments(sclite: str, tmp_path, pairs):
    ref = tmp_path / "ref.trn"
    hyp = tmp_path / "hyp.trn"
    ref.write_text("".join(f"{' '.join(r)} (spk-{k:04d})\n" for k, (r, _) in enumerate(pairs)))
    hyp.write_text("".join(f"{' '.join(h)} (spk-{k:04d})\n" for k, (_, h) in enumerate(pairs)))
    out = subprocess.run([sclite, "-r", str(ref), "trn", "-h", str(hyp), "trn", "-i", "spu_id", "-o", "sgml", "stdout",
                          "-f", "0"], capture_output=True, text=True, check=True).stdout
    found = {}
    for m in re.finditer(r'<PATH id="\(spk-(\d+)\)"[^>]*>\n(.*?)\n?</PATH>', out, re.S):
        cells = [c for c in m.group(2).strip().split(":") if c]
        found[int(m.group(1))] = [(c[0], *[w.strip('"').upper() for w in c[2:].split(",")]) for c in cells]
    return found


def _ours(pairs):
    ref_words, hyp_words, ref_units, hyp_units = [], [], [], []
    for k, (r, h) in enumerate(pairs):
        ref_words += r
        hyp_words += h
        ref_units += [f"utt spk-{k:04d}"] * len(r)
        hyp_units += [f"utt spk-{k:04d}"] * len(h)
    return align(Transcript.from_words(ref_words, units=ref_units), Transcript.from_words(hyp_words, units=hyp_units),
                 mode="sclite")


def test_sclite_mode_agrees_with_nist_sclite(sclite, tmp_path, rng):
    """Same alignment, column by column, on 400 generated utterance pairs (with empty ones)."""
    pairs = [_random_pair(rng, 16) for _ in range(400)]
    pairs = [(r, h) for r, h in pairs if r or h]
    theirs = _sclite_alignments(sclite, tmp_path, pairs)
    ours = _ours(pairs)
    code = {CORRECT: "C", SUBSTITUTION: "S", DELETION: "D", INSERTION: "I"}
    ref_words = [w for r, _ in pairs for w in r]
    hyp_words = [w for _, h in pairs for w in h]
    mine = []
    for (r0, r1), (h0, h1), kind in zip(ours.col_ref, ours.col_hyp, ours.col_kind, strict=True):
        mine.append((code[int(kind)], ref_words[r0] if r1 > r0 else "", hyp_words[h0] if h1 > h0 else ""))
    expected = [cell for k in range(len(pairs)) for cell in theirs.get(k, [])]
    assert mine == expected
    counts = ours.word_errors()
    assert counts["substitution"] == sum(c[0] == "S" for c in expected)
    assert counts["deletion"] == sum(c[0] == "D" for c in expected)
    assert counts["insertion"] == sum(c[0] == "I" for c in expected)


def test_phonetic_many_to_one():
    ref = Transcript.from_words(["AT", "THE", "NEW", "YORK", "DESK"])
    hyp = Transcript.from_words(["AT", "THE", "NEWARK", "DESK"])
    al = align(ref, hyp, mode="phonetic")
    assert al.col_kind.tolist() == [CORRECT, CORRECT, MULTI, CORRECT]
    assert al.col_ref[2].tolist() == [2, 4] and al.col_hyp[2].tolist() == [2, 3]


def test_phonetic_plain_deletion_and_insertion():
    al = align(Transcript.from_words(["THE", "BIG", "DOG"]), Transcript.from_words(["THE", "DOG"]))
    assert al.col_kind.tolist() == [CORRECT, DELETION, CORRECT]
    al = align(Transcript.from_words(["THE", "DOG"]), Transcript.from_words(["THE", "DOG", "BARKED"]))
    assert al.col_kind.tolist() == [CORRECT, CORRECT, INSERTION]


def test_every_word_lands_in_one_column(rng):
    words = ["NEW", "YORK", "NEWARK", "GOOD", "RICH", "GINGRICH", "THE", "OF", "A", "CAT", "CAST", "AT", "SAT"]
    for _ in range(100):
        ref, hyp = _random_pair(rng, 20, words)
        al = align(Transcript.from_words(ref), Transcript.from_words(hyp), mode="phonetic")
        assert np.array_equal(np.sort(np.concatenate([np.arange(a, b) for a, b in al.col_ref] or [[]])), np.arange(len(ref)))
        assert np.array_equal(np.sort(np.concatenate([np.arange(a, b) for a, b in al.col_hyp] or [[]])), np.arange(len(hyp)))
        assert (np.diff(al.col_ref[:, 0]) >= 0).all() and (np.diff(al.col_hyp[:, 0]) >= 0).all()


def test_anchors_are_runs_of_three_identical_words():
    ref = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9])
    hyp = np.array([0, 1, 2, 3, 9, 5, 6, 7, 8, 0])
    assert find_anchors(ref, hyp) == [(0, 1, 3), (4, 5, 4)]


def test_anchors_respect_time_window():
    ref = np.array([1, 2, 3, 7, 1, 2, 3])
    hyp = np.array([1, 2, 3])
    ref_t = np.array([0.0, 1, 2, 3, 100, 101, 102])
    assert find_anchors(ref, hyp, ref_t, np.array([100.0, 101, 102]), window=10) == [(4, 0, 3)]


def test_long_texts_are_anchored_and_match_whole_alignment_on_clean_runs(rng):
    words = [f"W{k}" for k in rng.integers(0, 500, 3000)]
    hyp = list(words)
    for k in rng.choice(len(hyp), 300, replace=False):
        hyp[k] = "X"
    al = align(Transcript.from_words(words), Transcript.from_words(hyp), mode="sclite", max_dp_words=100)
    assert al.word_errors()["substitution"] == 300 and al.word_errors()["correct"] == 2700


def test_bad_mode():
    with pytest.raises(ParameterError, match="alignment mode must be one of phonetic, sclite, got 'x'"):
        align(Transcript.from_words(["A"]), Transcript.from_words(["A"]), mode="x")


def test_units_align_by_name_and_unmatched_names_are_ignored():
    ref = Transcript.from_words(["A", "B", "C", "D"], units=["utt 1", "utt 1", "utt 2", "utt 2"])
    hyp = Transcript.from_words(["C", "D", "A", "B"], units=["utt 2", "utt 2", "utt 1", "utt 1"])
    assert align(ref, hyp, mode="sclite").word_errors()["errors"] == 0  # utterances matched by id, not order
    other = Transcript.from_words(["A", "B", "C", "D"], units=["rec.wav 1"] * 4)
    named = Transcript.from_words(["A", "B", "C", "D"], units=["rec 1"] * 4)
    assert align(named, other, mode="sclite").word_errors()["errors"] == 0


@pytest.mark.parametrize(
    ("ref", "hyp", "kinds"),
    [
        (["THE", "CABINET", "MET"], ["THE", "CABINET", "THAT", "MET"], [CORRECT, CORRECT, INSERTION, CORRECT]),
        (["THE", "CABINET", "THAT", "MET"], ["THE", "CABINET", "MET"], [CORRECT, CORRECT, DELETION, CORRECT]),
        (["WE", "SAW", "THAT", "CABINET"], ["WE", "SAW", "CABINET"], [CORRECT, CORRECT, DELETION, CORRECT]),
    ],
    ids=["insertion-after", "deletion-after", "deletion-before"],
)
def test_a_correct_word_is_never_folded_into_a_split_or_merge(ref, hyp, kinds):
    phonetic = align(Transcript.from_words(ref), Transcript.from_words(hyp), mode="phonetic")
    sclite = align(Transcript.from_words(ref), Transcript.from_words(hyp), mode="sclite")
    assert phonetic.col_kind.tolist() == kinds
    assert sclite.col_kind.tolist() == kinds
