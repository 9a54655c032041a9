"""Training, saving, loading and the public segment_words API."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.errors import ModelError, ParameterError
from engine.research.segment.experiments import score
from engine.research.segment.fit import train_model
from engine.segment import Hyperparameters, SegmentationModel, segment_words
from engine.segment.text import choi_documents, concatenate_articles


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_model_round_trips_through_its_file(small_model, newsscape_days, tmp_path):
    path = small_model.save(tmp_path / "m")
    assert path.name == "m.npz"
    loaded = SegmentationModel.load(path)
    day = newsscape_days[0].slice(0, 3000)
    a = segment_words(day.words, starts=day.starts, ends=day.ends, model=small_model)
    b = segment_words(day.words, starts=day.starts, ends=day.ends, model=loaded)
    np.testing.assert_array_equal(a.story_starts, b.story_starts)
    np.testing.assert_allclose(a.confidence, b.confidence, rtol=1e-5)
    assert loaded.hyper == small_model.hyper and loaded.max_state == 120


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_segmentation_result_is_consistent(small_model, newsscape_days):
    day = newsscape_days[0].slice(0, 5000)
    result = segment_words(day.words, starts=day.starts, ends=day.ends, model=small_model)
    assert result.story_starts[0] == 0 and np.all(np.diff(result.story_starts) > 0)
    assert result.confidence.shape == result.story_starts.shape
    assert np.all((result.confidence >= 0) & (result.confidence <= 1)) and result.confidence[0] == 1.0
    assert result.boundary_posterior.shape == (5000,)
    assert np.all((result.boundary_posterior >= 0) & (result.boundary_posterior <= 1 + 1e-12))
    spans = result.spans()
    assert spans[0][0] == 0 and spans[-1][1] == 5000
    # More penalty, more stories.
    more = segment_words(day.words, starts=day.starts, ends=day.ends, model=small_model,
                         log_penalty=small_model.hyper.log_penalty + 3, with_posteriors=False)
    assert more.story_starts.size > result.story_starts.size


def test_lee_model_finds_article_boundaries(lee_articles, rng):
    train = concatenate_articles(lee_articles[:200], per_document=40)
    model = train_model(train, hyper=Hyperparameters(n_bins=8, state_bandwidth=0.2, length_bandwidth=0.2, log_penalty=3.0))
    test = choi_documents(lee_articles[300:], n_documents=6, articles_per_document=8, rng=rng)
    hyps = [segment_words(t.words, model=model, with_posteriors=False).story_starts for t in test]
    scores = score(test, hyps)
    nothing = score(test, [np.zeros(1, dtype=np.int64)] * len(test))
    assert scores.tdt_cost < 0.75 * nothing.tdt_cost
    assert scores.pk < 0.8 * nothing.pk


def test_shipped_default_model_loads_and_runs():
    from engine.segment.loader import load_model
    from models.segmentation import DEFAULT_MODEL_PATH

    if not DEFAULT_MODEL_PATH.is_file():
        pytest.skip("default model not built")
    model = load_model()
    assert model.max_state == 250 and len(model.feature_names) == 8
    words = ["the", "fire", "burned", "all", "night", "in", "the", "hills", "firefighters", "said", "today"] * 20
    result = segment_words(words)
    assert result.story_starts[0] == 0


def test_unknown_model_name(tmp_path, monkeypatch):
    monkeypatch.setenv("EARSHOT_DATA_DIR", str(tmp_path))
    with pytest.raises(ModelError, match=r"no-such-model.npz: no such segmentation model"):
        segment_words(["a"], model="no-such-model")


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not a zip", b"\x93NUMPY not an archive"],
                         ids=["empty", "damaged-zip", "an-array"])
def test_a_file_that_is_no_model_is_refused_in_one_line(tmp_path, content: bytes) -> None:
    path = tmp_path / "model.npz"
    path.write_bytes(content)
    with pytest.raises(ModelError, match=r"model.npz: not a readable segmentation model"):
        SegmentationModel.load(path)


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_empty_input_gives_no_stories(small_model):
    result = segment_words([], model=small_model)
    assert result.story_starts.size == 0 and result.spans() == []


@pytest.mark.parametrize(
    ("words", "message"),
    [("one string", "must be a sequence of words, not one string"), (["a", "b c"], "word 1 is empty or contains")],
    ids=["string", "word-with-space"],
)
@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_bad_words(small_model, words, message):
    with pytest.raises(ParameterError, match=message):
        segment_words(words, model=small_model)


def test_bad_hyperparameters(newsscape_days):
    with pytest.raises(ParameterError, match="n_bins must be an integer >= 2, got 1"):
        train_model([newsscape_days[0].slice(0, 2000)], hyper=Hyperparameters(n_bins=1))
    with pytest.raises(ParameterError, match="max_state \\(L\\) must be >= 1, got 0"):
        train_model([newsscape_days[0].slice(0, 2000)], max_state=0)


def test_sentence_starts_lower_misses_on_written_articles(lee_articles, rng):
    """SENTENCE-START (punctuation the peers get too) must find more article starts at no more false alarms."""
    from engine.segment.features import PUNCTUATED_FEATURES
    from engine.segment.segmenter import segment_transcript

    train = concatenate_articles(lee_articles[:200], per_document=40)
    hyper = Hyperparameters(n_bins=8, state_bandwidth=0.2, length_bandwidth=0.2, log_penalty=3.0)
    paper = train_model(train, hyper=hyper)
    punctuated = train_model(train, hyper=hyper, features=PUNCTUATED_FEATURES)
    assert punctuated.feature_names[-1] == "sentence_start" and "sentence_start" not in paper.feature_names
    test = choi_documents(lee_articles[300:], n_documents=6, articles_per_document=8, rng=rng)
    a = score(test, [segment_transcript(t, model=paper, with_posteriors=False).story_starts for t in test])
    b = score(test, [segment_transcript(t, model=punctuated, with_posteriors=False).story_starts for t in test])
    assert b.tdt_cost < a.tdt_cost and b.p_false_alarm <= a.p_false_alarm + 0.02
    # Every story the punctuated model finds starts a sentence.
    for t in test:
        found = segment_transcript(t, model=punctuated, with_posteriors=False).story_starts
        assert set(found.tolist()) <= set(t.sentence_starts.tolist()) | {0}
    with pytest.raises(ParameterError, match="needs sentence punctuation"):
        segment_words(test[0].words, model=punctuated)


def test_shipped_model_is_chosen_by_punctuation():
    from engine.segment.segmenter import resolve_model
    from models.segmentation import DEFAULT_MODEL_PATH, PUNCTUATED_MODEL_NAME, model_path

    if not (DEFAULT_MODEL_PATH.is_file() and model_path(PUNCTUATED_MODEL_NAME).is_file()):
        pytest.skip("shipped segmentation models not built")
    assert "sentence_start" not in resolve_model(None).feature_names
    assert "sentence_start" in resolve_model(None, punctuated=True).feature_names
    words = ["the", "fire", "burned", "all", "night", "in", "the", "hills", "firefighters", "said", "today"] * 20
    result = segment_words(words, sentence_starts=np.arange(0, len(words), 11))
    assert set(result.story_starts.tolist()) <= set(range(0, len(words), 11))


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_matching_a_peers_number_of_boundaries(small_model, newsscape_days):
    from engine.research.segment.experiments import hmm_starts_matching

    day = newsscape_days[0].slice(0, 4000)
    counts = {n: int((hmm_starts_matching(small_model, day, n) > 0).sum()) for n in (0, 7, 40)}
    # A penalty step can add two boundaries at once, so a count may be missed by one.
    assert counts[0] == 0 and all(abs(c - n) <= 1 for n, c in counts.items()), counts


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_words_heard_in_sound_are_left_out_of_the_model(small_model, newsscape_days):
    day = newsscape_days[0].slice(0, 3000)
    rng = np.random.default_rng(5)
    transcribed = rng.random(3000) > 0.1
    transcribed[:3] = False  # sound before the first real word
    keep = np.flatnonzero(transcribed)
    result = segment_words(day.words, starts=day.starts, ends=day.ends, model=small_model, transcribed=transcribed)
    alone = segment_words([day.words[i] for i in keep], starts=day.starts[keep], ends=day.ends[keep],
                          model=small_model)
    # The same decode as on the real words alone, mapped back; no story starts at a left-out word.
    np.testing.assert_array_equal(result.story_starts[1:], keep[alone.story_starts[1:]])
    assert result.story_starts[0] == 0 and transcribed[result.story_starts[1:]].all()
    np.testing.assert_array_equal(result.states[keep], alone.states)
    assert result.states[3 + np.argmax(~transcribed[3:])] == result.states[2 + np.argmax(~transcribed[3:])]
    np.testing.assert_allclose(result.boundary_posterior[keep], alone.boundary_posterior)
    assert (result.boundary_posterior[~transcribed] == 0).all()
    nothing = segment_words(day.words[:5], model=small_model, transcribed=np.zeros(5, dtype=bool))
    assert nothing.story_starts.tolist() == [0] and nothing.states.shape == (5,)
    with pytest.raises(ParameterError, match="transcribed must be a bool array of shape"):
        segment_words(day.words[:5], model=small_model, transcribed=[1, 0, 1, 1, 1])


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_feature_weights_scale_the_log_likelihoods(small_model, newsscape_days, tmp_path):
    from dataclasses import replace

    from engine.segment import config

    groups = {getattr(f, "group", f.name) for f in small_model.features}
    assert set(small_model.hyper.weights) <= groups
    assert all(w in config.GRID_FEATURE_WEIGHT for w in small_model.hyper.weights.values())
    day = newsscape_days[0].slice(0, 4000)
    values = small_model.feature_values(day.words, starts=day.starts, ends=day.ends)
    bins = small_model.bins_of(values)
    # Weight 0 switches a group off: scrambling its bins changes nothing.
    muted = replace(small_model, hyper=replace(small_model.hyper, weights={"coherence": 0.0, "trigger": 0.0}))
    scrambled = bins.copy()
    rng = np.random.default_rng(3)
    for j, f in enumerate(muted.features):
        if f.group in ("coherence", "trigger"):
            scrambled[:, j] = rng.permutation(scrambled[:, j])
    np.testing.assert_array_equal(muted.decode(bins), muted.decode(scrambled))
    assert not np.array_equal(small_model.decode(bins), small_model.decode(scrambled))
    half = replace(small_model, hyper=replace(small_model.hyper, weights={"x_duration": 0.5}))
    j = small_model.feature_names.index("x_duration")
    np.testing.assert_allclose(half.weighted_log_emission[j], 0.5 * small_model.log_emission[j])
    loaded = SegmentationModel.load(half.save(tmp_path / "half"))
    assert loaded.hyper.weights == {"x_duration": 0.5}
    with pytest.raises(ParameterError, match="weight of trigger must be a finite number >= 0"):
        Hyperparameters(weights={"trigger": -1.0}).validate()


def test_each_recogniser_gets_its_shipped_model():
    from engine.segment.loader import load_model
    from models.segmentation import ACOUSTIC_MODEL_NAME, DEFAULT_MODEL_NAME, model_for_recognizer, model_path

    assert model_for_recognizer("pocketsphinx") == ACOUSTIC_MODEL_NAME
    assert model_for_recognizer("vosk") == DEFAULT_MODEL_NAME == model_for_recognizer(None)
    if not model_path(ACOUSTIC_MODEL_NAME).is_file():
        pytest.skip("shipped segmentation models not built")
    assert load_model(ACOUSTIC_MODEL_NAME).feature_names == ["x_duration"]


def test_shipped_recogniser_model_takes_whisper_text_and_refuses_unpunctuated_input(newsscape_days):
    """Whisper's output goes to the recogniser model (Viterbi, its blocks, the floor); bare words are refused."""
    from engine.segment.loader import load_model
    from engine.segment.segmenter import segment_recognised, segment_words
    from models.segmentation import PUNCTUATED_MODEL_NAME, RECOGNISER_MODEL_NAME, model_path

    if not model_path(RECOGNISER_MODEL_NAME).is_file():
        pytest.skip("shipped segmentation models not built")
    model = load_model(RECOGNISER_MODEL_NAME)
    assert "sentence_start" in model.feature_names
    assert 0.0 < model.info["posterior_threshold"] < 1.0 and model.info["block_seconds"] >= 0.0
    day = newsscape_days[0].slice(0, 4000)
    shown = list(day.words)
    for i in day.sentence_starts[1::3]:  # one caption sentence end in three, about Whisper's rate
        shown[i - 1] += "."
    seg = segment_recognised(day.words, shown, engine="whisper", starts=day.starts, ends=day.ends)
    named = segment_recognised(day.words, shown, engine=None, starts=day.starts, ends=day.ends,
                               model=RECOGNISER_MODEL_NAME)
    np.testing.assert_array_equal(seg.story_starts, named.story_starts)
    caption_model = segment_recognised(day.words, shown, engine=None, starts=day.starts, ends=day.ends,
                                       model=PUNCTUATED_MODEL_NAME)
    assert not np.array_equal(seg.boundary_posterior, caption_model.boundary_posterior)
    assert seg.story_starts.size > 1 and np.diff(np.append(seg.story_starts, len(day))).min() >= 30
    with pytest.raises(ParameterError, match="needs sentence punctuation"):
        segment_words(day.words, starts=day.starts, ends=day.ends, model=model)


def test_recogniser_model_threshold_has_a_smooth_operating_range(newsscape_days):
    """Story counts against the posterior threshold fall step by step, never from thousands to a handful."""
    from engine.research.segment.recogniser_like import whisper_like
    from engine.segment.segmenter import segment_transcript
    from models.segmentation import RECOGNISER_MODEL_NAME, model_path

    if not model_path(RECOGNISER_MODEL_NAME).is_file():
        pytest.skip("shipped segmentation models not built")
    day = whisper_like(newsscape_days[0].slice(0, 8000), rng=np.random.default_rng(5))
    thresholds = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
    counts = [segment_transcript(day, model=RECOGNISER_MODEL_NAME, posterior_threshold=p).story_starts.size
              for p in thresholds]
    assert all(a >= b for a, b in itertools.pairwise(counts))
    assert counts[0] > 2 * counts[-1] > 2
    # no step of 0.1 or less in the threshold removes more than a third of the stories
    assert all(b >= 2 * a / 3 for a, b in itertools.pairwise(counts)), counts
