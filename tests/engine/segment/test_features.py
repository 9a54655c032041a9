"""Features, word statistics, normalisation and the corpus readers."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.segment.features import (
    DEFAULT_FEATURES,
    Coherence,
    SentenceStart,
    Trigger,
    Vocabulary,
    WordStatistics,
    feature_matrix,
    word_tables,
    x_duration_of,
)
from engine.segment.text import from_stories, normalize_words, read_txt3

TINY = from_stories(["A b c.", "a d.", "E a b."])


def test_trigger_estimate_is_the_papers_formula():
    stats = WordStatistics.count([TINY])
    tables = word_tables(DEFAULT_FEATURES, stats)
    vocab = Vocabulary(stats.words)
    first = Trigger("trigger_first", position=0)
    values = feature_matrix([first], tables, vocab, ["a", "zzz", "e"], np.zeros(3))[:, 0]
    f_region = 3 / 8  # three first words among eight tokens
    assert values[0] == pytest.approx((2 + 1) / (3 + 1 / f_region))  # "a": first twice, seen three times
    assert values[1] == pytest.approx(f_region)  # unseen word: the prior
    assert values[2] == pytest.approx((1 + 1) / (1 + 1 / f_region))


def test_delayed_last_word_trigger_lines_up_with_the_next_first_word():
    stats = WordStatistics.count([TINY])
    tables = word_tables(DEFAULT_FEATURES, stats)
    last = Trigger("trigger_last", position=-1)
    values = feature_matrix([last], tables, Vocabulary(stats.words), ["c", "x"], np.zeros(2))[:, 0]
    f_region = 3 / 8  # last words c, d, b
    assert values[0] == 0.0  # nothing precedes the first word
    assert values[1] == pytest.approx((1 + 1) / (1 + 1 / f_region))  # "c" was last once in one occurrence


def test_coherence_value_is_minus_log_story_fraction():
    stats = WordStatistics.count([TINY])
    tables = word_tables(DEFAULT_FEATURES, stats)
    coher = Coherence("coher_1", offset=0, buffer=2)
    words = ["b", "a", "b", "q", "q", "a"]
    values = feature_matrix([coher], tables, Vocabulary(stats.words), words, np.zeros(6))[:, 0]
    # b (2 of 3 stories) repeats within 2 words; "q" is unseen (counts as 1 story); the last "a" is 4 back.
    np.testing.assert_allclose(values, [0, 0, -np.log(2 / 3), 0, -np.log(1 / 3), 0])


def test_unseen_words_never_match_each_other():
    vocab = Vocabulary(["a"])
    np.testing.assert_array_equal(vocab.encode(["x", "a", "y", "x"]), [1, 0, 2, 1])


def test_x_duration_from_gaps_or_detector():
    np.testing.assert_allclose(
        x_duration_of(3, starts=np.array([0.0, 1.0, 5.0]), ends=np.array([0.5, 2.0, 6.0])), [0, 0.5, 3.0]
    )
    np.testing.assert_allclose(x_duration_of(2, x_duration=np.array([0.0, 4.0])), [0, 4])
    np.testing.assert_array_equal(x_duration_of(2), [0, 0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"starts": np.zeros(3)}, "give both word starts and ends"),
        ({"starts": np.zeros(2), "ends": np.zeros(2)}, r"must have shape \(3,\), got \(2,\)"),
        ({"starts": np.array([0.0, 2, 3]), "ends": np.array([1.0, 1, 4])}, r"word 1 ends before it starts"),
        ({"x_duration": np.array([0.0, -1, 0])}, "x_duration must be finite and >= 0 seconds"),
    ],
    ids=["starts-without-ends", "wrong-length", "end-before-start", "negative-x-duration"],
)
def test_bad_times(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        x_duration_of(3, **kwargs)


def test_markup_is_stripped_before_anything_else():
    assert normalize_words(">>> GOOD EVENING. >>Reporter: THE ■FIRE'S OUT. >> Dr. Phil: HI") == [
        "good", "evening", "the", "fire's", "out", "hi",
    ]


def test_txt3_reader(tmp_path):
    path = tmp_path / "day.txt3"
    path.write_text(
        "TOP|20060613000000|x\n"
        "20060613000002.000|20060613000004.000|SEG_00|Type=Story start\n"
        "20060613000002.000|20060613000004.000|CC1|>>> HELLO THERE. NEWS\n"
        "20060613000010.000|20060613000011.000|CC1|TONIGHT.\n"
        "20060613000011.000|20060613000012.000|SEG_00|Type=Commercial\n"
        "20060613000012.000|20060613000013.000|CC1|BUY IT\n",
        encoding="utf-8",
    )
    t = read_txt3(path)
    assert t.words == ["hello", "there", "news", "tonight", "buy", "it"]
    np.testing.assert_array_equal(t.story_starts, [0, 4])
    np.testing.assert_array_equal(t.sentence_starts, [0, 2, 4])
    np.testing.assert_allclose(t.starts[:4], [0.0, 2 / 3, 4 / 3, 8.0])
    np.testing.assert_allclose(x_duration_of(len(t), starts=t.starts, ends=t.ends)[[3, 4]], [6.0, 1.0])


def test_txt3_without_text_is_rejected(tmp_path):
    path = tmp_path / "empty.txt3"
    path.write_text("TOP|20060613000000|x\n", encoding="utf-8")
    with pytest.raises(ParameterError, match=r"empty.txt3: no caption text found"):
        read_txt3(path)


def test_training_features_are_cross_fitted(newsscape_days):
    from engine.research.segment.fit import prepare_training

    docs = [d.slice(0, 4000) for d in newsscape_days]
    training = prepare_training(docs, max_state=100)
    assert len(training.values) == 4 and training.values[0].shape == (4000, len(DEFAULT_FEATURES))
    # A word's trigger value must not use its own story: recomputing with all stories differs.
    stats = WordStatistics.count(docs)
    full = feature_matrix(DEFAULT_FEATURES, word_tables(DEFAULT_FEATURES, stats), Vocabulary(stats.words),
                          docs[0].words, training.values[0][:, 3])
    assert not np.allclose(full[:, 4], training.values[0][:, 4])


def test_upper_case_speaker_labels_are_stripped():
    assert normalize_words("KELLY: HI THERE") == ["hi", "there"]
    assert normalize_words(">>THE REPORTER: SO YOU CARED?") == ["so", "you", "cared"]
    # Not at the start of a caption row: ordinary text.
    assert normalize_words("HE SAID ELLEN: NO") == ["he", "said", "ellen", "no"]


def test_sentence_start_feature_marks_punctuation_and_needs_it():
    feature = SentenceStart()
    stats = WordStatistics.count([from_stories(["A b. C d e.", "F g."])])
    vocab = Vocabulary(stats.words)
    values = feature_matrix([feature], {}, vocab, list("abcdefg"), np.zeros(7), sentence_starts=[0, 2, 5])[:, 0]
    np.testing.assert_array_equal(values, [1, 0, 1, 0, 0, 1, 0])
    with pytest.raises(ParameterError, match="needs sentence punctuation"):
        feature_matrix([feature], {}, vocab, list("abc"), np.zeros(3))
    with pytest.raises(ParameterError, match="sentence starts must be word indices"):
        feature_matrix([feature], {}, vocab, list("abc"), np.zeros(3), sentence_starts=[3])
