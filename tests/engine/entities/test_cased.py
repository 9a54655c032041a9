"""The cased path: features from words as shown, choosing a tagger per recording, the shipped cased model."""

from __future__ import annotations

import pytest

from engine.entities.spans import EntitySpan
from engine.entities.tagger import is_english, load_tagger, tag_shown, words_are_cased
from engine.entities.tagger.features import case_class, sentence_starts, split_shown, word_shape
from engine.entities.tagger.model import PerceptronTagger
from engine.research.entities.conll import Document, evaluate_spans, read_conll
from engine.research.entities.train import train_tagger

WHISPER = [
    "Mayor", "Maria", "Ruiz", "told", "the", "City", "Council", "in", "Chicago", "on", "Tuesday", "that", "the",
    "budget", "would", "pass.", "Senator", "John", "McCain", "of", "Arizona", "said", "he", "agreed.",
]


@pytest.mark.parametrize(("word", "parts"), [
    ('"Paris,', ('"', "Paris", ",")), ("U.S.", ("", "U.S", ".")), ("--", ("", "--", "")),
    ("(AP)", ("(", "AP", ")")), ("McDonald's", ("", "McDonald's", "")),
], ids=["quote-comma", "abbreviation", "dash", "brackets", "apostrophe"])
def test_split_shown(word, parts):
    assert split_shown(word) == parts


@pytest.mark.parametrize(("core", "shape", "case"), [
    ("McDonald's", "XxXxx'x", "mixed"), ("U.S", "X.X", "upper"), ("Paris", "Xxx", "title"),
    ("NATO", "XX", "upper"), ("1996-08-30", "dd-dd-dd", "none"), ("budget", "xx", "lower"), ("A", "X", "title"),
], ids=["mixed", "abbreviation", "title", "acronym", "date", "lower", "one-capital"])
def test_word_shape_and_case(core, shape, case):
    assert word_shape(core) == shape
    assert case_class(core) == case


def test_sentence_starts_skip_abbreviations():
    words = ["He", "met", "Mr.", "Smith", "in", "the", "U.S.", "yesterday.", "Then", "he", "left!", "Why?", "Done"]
    starts = sentence_starts(words)
    assert [w for w, s in zip(words, starts, strict=True) if s] == ["He", "Then", "Why?", "Done"]


@pytest.mark.parametrize(("words", "cased"), [
    (WHISPER, True),
    ([w.lower().strip(".,") for w in WHISPER], False),
    ([w.upper() for w in WHISPER], False),
    (["42", "--"], False),
], ids=["whisper", "vosk-lower", "captions-capitals", "no-letters"])
def test_words_are_cased(words, cased):
    assert words_are_cased(words) is cased


@pytest.mark.parametrize(("language", "english"), [
    ("", True), (None, True), ("und", True), ("en", True), ("en-US", True), ("fr", False), ("de-DE", False),
], ids=["empty", "none", "und", "en", "en-us", "fr", "de"])
def test_is_english(language, english):
    assert is_english(language) is english


def test_tag_shown_reads_case_and_skips_other_languages():
    spans = {(s.type, s.text.strip(".,")) for s in tag_shown(WHISPER, language="en")}
    assert ("PERSON", "Maria Ruiz") in spans and ("PERSON", "John McCain") in spans
    assert ("LOCATION", "Chicago") in spans and ("LOCATION", "Arizona") in spans
    assert tag_shown(WHISPER, language="fr") == []
    assert tag_shown([], language="en") == []


def test_tag_shown_lower_case_words_go_to_the_rules():
    words = ["senator", "john", "mccain", "of", "arizona", "said", "on", "tuesday"]
    assert tag_shown(words) == load_tagger().tag(words)


def test_shipped_cased_model_is_pinned_and_loaded_once():
    from models.entities import cased_model_path

    assert cased_model_path().is_file()
    assert load_tagger("cased") is load_tagger("cased")
    assert isinstance(load_tagger("cased"), PerceptronTagger) and load_tagger("cased").cased


def test_read_conll_shown_attaches_punctuation(tmp_path):
    (tmp_path / "eng.train").write_text(
        "-DOCSTART- -X- -X- O\n\n( ( O O\nAP NNP B-NP I-ORG\n) ) O O\nIn IN O O\nBonn NNP I-NP I-LOC\n, , O O\n"
        "\" \" O O\nHello UH O O\n\" \" O O\nLondon NNP I-NP I-LOC\n- : O O\nParis NNP I-NP I-LOC\n. . O O\n")
    doc = read_conll(tmp_path / "eng.train", shown=True)[0]
    assert doc.words == ["(AP)", "In", "Bonn,", '"Hello"', "London", "-", "Paris."]
    assert [(e.type, e.first_word, e.last_word) for e in doc.entities] == [
        ("ORGANIZATION", 0, 0), ("LOCATION", 2, 2), ("LOCATION", 4, 4), ("LOCATION", 6, 6)]


def test_cased_perceptron_learns_from_case_and_round_trips(tmp_path):
    # The same words are a name when capitalised inside a sentence and not otherwise: only case tells.
    docs = []
    for k in range(40):
        name = ["Rose", "Hill"] if k % 2 else ["rose", "hill"]
        spans = [] if k % 2 == 0 else [(2, 3)]
        words = ["Then", "the", *name, "was", "seen."]
        docs.append((words, [EntitySpan("PERSON", a, b, "") for a, b in spans]))
    model = train_tagger(docs, epochs=3, min_count=1, cased=True)
    pred = [model.tag(w) for w, _ in docs]
    assert evaluate_spans([Document(list(w), list(s)) for w, s in docs], pred, ("PERSON",))["overall"]["f"] == 1.0
    again = PerceptronTagger.load(model.save(tmp_path / "m.npz"))
    assert again.cased and [again.tag(w) for w, _ in docs] == pred


@pytest.mark.slow
def test_shipped_cased_model_on_conll_test(conll_dir):
    """CoNLL-2003 English test as shown (figures: bench/entities_cased_bench.py)."""
    docs = read_conll(conll_dir / "test.txt", shown=True)
    result = evaluate_spans(docs, [tag_shown(d.words) for d in docs])
    assert result["overall"]["gold"] == 4946
    assert result["overall"]["f"] >= 0.85


def test_ingest_tags_by_the_recording_language():
    from engine.ingest.analyze import tag_entities

    rows = tag_entities(WHISPER, language="en-US")
    assert ("PERSON", "John McCain") in {(r.type, r.text) for r in rows}
    assert tag_entities(WHISPER, language="de") == []
