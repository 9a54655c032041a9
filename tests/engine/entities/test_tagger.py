"""The shipped rule tagger, the trainable perceptron, and CoNLL reading."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from engine.entities.spans import EntitySpan
from engine.entities.tagger import load_tagger, tag_words
from engine.entities.tagger._kernels import _train, _viterbi
from engine.entities.tagger.gazetteer import GAZETTEER_DIR, fold_token, load_gazetteers
from engine.entities.tagger.model import PerceptronTagger, allowed_transitions, decode_bio
from engine.research.entities.conll import evaluate_spans, find_conll_files, read_conll
from engine.research.entities.train import train_tagger

from . import naive


def _found(text: str) -> list[tuple[str, str]]:
    return [(s.type, s.text) for s in tag_words(text.split())]


@pytest.mark.parametrize(("text", "expected"), [
    ("president bill clinton spoke", [("PERSON", "bill clinton")]),
    ("mayor rudy giuliani told cnn", [("PERSON", "rudy giuliani"), ("ORGANIZATION", "cnn")]),
    ("flights to new york and chicago", [("LOCATION", "new york"), ("LOCATION", "chicago")]),
    ("the bank of england raised rates", [("ORGANIZATION", "bank of england")]),
    ("up two percent on tuesday", [("PERCENT", "two percent"), ("DATE", "tuesday")]),
    ("five million dollars", [("MONEY", "five million dollars")]),
    ("we will go there may be rain", []),
], ids=["title", "mayor-org", "places", "org-of", "numeric", "money", "common-words"])
def test_rule_tagger(text, expected):
    assert _found(text) == expected


def test_surname_alone_after_full_name():
    assert _found("john mccain said that mccain would run") == [("PERSON", "john mccain"), ("PERSON", "mccain")]


def test_spans_index_the_given_words():
    words = ["Yesterday", ",", "Senator", "John", "McCain", "."]
    spans = tag_words(words)
    assert EntitySpan("PERSON", 3, 4, "John McCain", 0.9) in spans
    assert all(0 <= s.first_word <= s.last_word < len(words) for s in spans)


def test_gazetteers_are_read_from_their_files_once(tmp_path):
    folder = tmp_path / "gazetteers"
    shutil.copytree(GAZETTEER_DIR, folder, ignore=shutil.ignore_patterns("*.py", "*.md"))
    with (folder / "locations.tsv").open("a", encoding="utf-8") as out:
        out.write("lower wibbleton\tcity\t1234\n")
    first = load_gazetteers(str(folder))
    assert first.places["lower wibbleton"].population == 1234
    assert "lower wibbleton" not in load_gazetteers().places
    shutil.rmtree(folder)  # a second call reads nothing: it gives what the first read
    assert load_gazetteers(str(folder)).places["lower wibbleton"].population == 1234


@pytest.mark.parametrize(("token", "form"), [("Wilkes-Barre,", "wilkes barre"), ("Zürich", "zurich"), ("O'Neil", "oneil")])
def test_fold_token(token, form):
    assert fold_token(token) == form


def test_viterbi_kernel_matches_brute_force(rng):
    tags = ["O", "B-A", "I-A", "B-B", "I-B"]
    allowed = allowed_transitions(tags)
    for _ in range(30):
        n = int(rng.integers(1, 5))
        W = rng.normal(size=(n, len(tags)))
        T = rng.normal(size=(len(tags) + 1, len(tags)))
        ptr = np.arange(n + 1, dtype=np.int64)
        idx = np.arange(n, dtype=np.int64)  # token t has the single feature t
        path = _viterbi(ptr, idx, 0, n, W, T, allowed)
        assert path.tolist() == naive.viterbi(W, T[:-1], T[-1], allowed)


@pytest.mark.parametrize("epochs", [1, 3])
def test_training_kernel_matches_its_slow_twin(rng, epochs):
    tags = ["O", "B-A", "I-A", "B-B", "I-B"]
    allowed = allowed_transitions(tags)
    n_feats = 12
    for _ in range(10):
        lengths = rng.integers(0, 6, size=int(rng.integers(1, 6)))  # an empty sequence now and then
        features = [[sorted(set(rng.integers(0, n_feats, size=int(rng.integers(1, 4))).tolist())) for _ in range(n)]
                    for n in lengths]
        gold = [_valid_tags(rng, int(n), tags) for n in lengths]
        orders = np.stack([rng.permutation(len(lengths)) for _ in range(epochs)]).astype(np.int64)
        seq_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        tokens = [tok for seq in features for tok in seq]
        feat_ptr = np.concatenate([[0], np.cumsum([len(t) for t in tokens])]).astype(np.int64)
        feat_idx = np.array([f for t in tokens for f in t], dtype=np.int64)
        flat_gold = np.array([g for seq in gold for g in seq], dtype=np.int64)
        W, T = _train(feat_ptr, feat_idx, seq_ptr, flat_gold, orders, n_feats, len(tags), allowed)
        W_slow, T_slow = naive.perceptron_train(features, gold, orders, n_feats, len(tags), allowed)
        np.testing.assert_allclose(W, W_slow, atol=1e-12)
        np.testing.assert_allclose(T, T_slow, atol=1e-12)


def test_training_kernel_on_one_token_learns_its_tag():
    """One sequence of one token with one feature, gold tag 1, two epochs: the first pass predicts 0
    (all weights zero) and moves W[0] by +1/-1; the second predicts 1 and changes nothing. The
    average over the zero start and the two passes is 2/3."""
    tags = ["O", "B-A", "I-A"]
    allowed = allowed_transitions(tags)
    W, T = _train(np.array([0, 1]), np.array([0]), np.array([0, 1]), np.array([1]), np.zeros((2, 1), dtype=np.int64),
                  1, len(tags), allowed)
    np.testing.assert_allclose(W, [[-2 / 3, 2 / 3, 0.0]])
    np.testing.assert_allclose(T[len(tags)], [-2 / 3, 2 / 3, 0.0])


def _valid_tags(rng, n, tags):
    """A BIO tag sequence of length n with no I- that does not continue its own type."""
    out = []
    for _ in range(n):
        options = [i for i, t in enumerate(tags) if not t.startswith("I-")
                   or (out and tags[out[-1]][2:] == t[2:] and tags[out[-1]] != "O")]
        out.append(int(options[rng.integers(len(options))]))
    return out


def test_decode_bio():
    words = ["a", "b", "c", "d", "e"]
    assert decode_bio(["B-X", "I-X", "O", "I-Y", "B-Y"], words) == [
        EntitySpan("X", 0, 1, "a b"), EntitySpan("Y", 3, 3, "d"), EntitySpan("Y", 4, 4, "e")]


def _synthetic_docs(rng, n_docs):
    firsts, lasts = ["zorb", "quill", "marn", "tesk"], ["vantrell", "okafor", "lindqvist", "pemberly"]
    towns = ["brackton", "ellisford", "wemby", "coldmoor"]
    docs = []
    for _ in range(n_docs):
        words, spans = [], []
        for _ in range(8):
            kind = rng.integers(0, 3)
            if kind == 0:
                name = [firsts[rng.integers(4)], lasts[rng.integers(4)]]
                spans.append(EntitySpan("PERSON", len(words) + 1, len(words) + 2, " ".join(name)))
                words += ["today", *name, "said", "that"]
            elif kind == 1:
                spans.append(EntitySpan("LOCATION", len(words) + 2, len(words) + 2, ""))
                words += ["they", "went", towns[rng.integers(4)], "again"]
            else:
                words += ["nothing", "happened", "there"]
        docs.append((words, spans))
    return docs


def test_perceptron_learns_and_round_trips(rng, tmp_path):
    train = _synthetic_docs(rng, 60)
    model = train_tagger(train, epochs=3, min_count=1)
    test = _synthetic_docs(rng, 10)
    pred = [model.tag(w) for w, _ in test]
    from engine.research.entities.conll import Document

    result = evaluate_spans([Document(w, s) for w, s in test], pred, ("PERSON", "LOCATION"))
    assert result["overall"]["f"] > 0.95
    path = model.save(tmp_path / "m.npz")
    again = PerceptronTagger.load(path)
    assert [again.tag(w) for w, _ in test] == pred


def test_bad_model_file(tmp_path):
    from engine.errors import ModelError

    (tmp_path / "x.npz").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="not an entity tagger model"):
        load_tagger(tmp_path / "x.npz")


def test_read_conll_iob1_lowercase_no_punctuation(tmp_path):
    (tmp_path / "eng.train").write_text(
        "-DOCSTART- -X- -X- O\n\nEU NNP B-NP I-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP I-MISC\n"
        "call NN I-NP O\n. . O O\n\nPeter NNP B-NP I-PER\nBlackburn NNP I-NP I-PER\n\n"
        "-DOCSTART- -X- -X- O\n\nIn IN O O\nBonn NNP I-NP I-LOC\n, , O O\nLondon NNP I-NP I-LOC\n")
    docs = read_conll(tmp_path / "eng.train")
    assert docs[0].words == ["eu", "rejects", "german", "call", "peter", "blackburn"]
    assert [(e.type, e.first_word, e.last_word) for e in docs[0].entities] == [
        ("ORGANIZATION", 0, 0), ("MISC", 2, 2), ("PERSON", 4, 5)]
    assert [(e.type, e.text) for e in docs[1].entities] == [("LOCATION", "bonn"), ("LOCATION", "london")]
    assert find_conll_files(tmp_path) == {"train": tmp_path / "eng.train"}


def test_shipped_tagger_on_conll_test(conll_dir):
    """CoNLL-2003 English test, lower case, punctuation removed (figures: bench/entities_bench.py)."""
    docs = read_conll(conll_dir / "test.txt")
    tagger = load_tagger()
    result = evaluate_spans(docs, [tagger.tag(d.words) for d in docs])
    assert result["overall"]["gold"] == 4946
    assert result["overall"]["f"] > 0.45 and result["LOCATION"]["f"] > 0.6
