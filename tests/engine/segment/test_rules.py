"""The caption-gap rule, the story-length floor, Whisper sentence starts and the held-out protocol."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.research.segment.experiments import nested_leave_one_out
from engine.research.segment.gap_rule import fit_gap_threshold
from engine.segment.rules import enforce_min_length, gap_rule_starts, pauses
from engine.segment.text import Transcript, sentence_starts_from_display


def _timed(rng, n_stories: int, *, story_gap: float, word_gap: float, name: str) -> Transcript:
    """A transcript of ``n_stories`` stories of 20-60 words; stories open after a pause of ``story_gap`` s."""
    words, starts, ends, story_starts = [], [], [], []
    t = 0.0
    for k in range(n_stories):
        story_starts.append(len(words))
        t += story_gap if k else 0.0
        for i in range(int(rng.integers(20, 60))):
            t += word_gap if i else 0.0
            words.append(f"w{rng.integers(0, 200)}")
            starts.append(t)
            t += 0.3
            ends.append(t)
    return Transcript(words=words, story_starts=np.asarray(story_starts, dtype=np.int64),
                      starts=np.asarray(starts), ends=np.asarray(ends), name=name)


def test_gap_rule_cuts_after_long_pauses_only():
    tr = Transcript(words=list("abcde"), starts=np.array([0.0, 1.0, 5.0, 5.5, 12.0]),
                    ends=np.array([0.5, 1.5, 5.2, 6.0, 12.5]), name="x")
    np.testing.assert_allclose(pauses(tr), [0.0, 0.5, 3.5, 0.3, 6.0])
    np.testing.assert_array_equal(gap_rule_starts(tr, threshold=3.0), [0, 2, 4])
    np.testing.assert_array_equal(gap_rule_starts(tr, threshold=5.0), [0, 4])
    np.testing.assert_array_equal(gap_rule_starts(Transcript(words=["a", "b"]), threshold=1.0), [0])


@pytest.mark.parametrize("threshold", [-1.0, float("nan")], ids=["negative", "nan"])
def test_gap_rule_refuses_bad_threshold(threshold):
    tr = Transcript(words=["a"], starts=np.zeros(1), ends=np.ones(1))
    with pytest.raises(ParameterError, match="gap threshold must be a non-negative number of seconds"):
        gap_rule_starts(tr, threshold=threshold)


def test_gap_threshold_is_chosen_between_word_and_story_pauses(rng):
    days = [_timed(rng, 12, story_gap=4.2, word_gap=0.2, name=f"d{i}") for i in range(3)]
    threshold = fit_gap_threshold(days)
    assert 0.5 <= threshold < 4.2 - 0.3
    for day in days:
        np.testing.assert_array_equal(gap_rule_starts(day, threshold=threshold), day.story_starts)


@pytest.mark.parametrize(
    ("starts", "strength", "min_words", "expected"),
    [
        ([0, 10, 12, 30], None, 5, [0, 10, 30]),          # story 10..12 is short: the later boundary goes
        ([0, 10, 12, 30], [1, 0.2, 0.9, 1], 5, [0, 12, 30]),  # ... unless it is the stronger one
        ([0, 3, 30], None, 5, [0, 30]),                    # a short first story joins the next
        ([0, 20, 38], None, 5, [0, 20]),                   # a short last story joins the one before
        ([0, 2, 4, 6], None, 50, [0]),                     # all short: one story
        ([0, 10, 20], None, 1, [0, 10, 20]),               # floor 1: unchanged
    ],
    ids=["middle-weaker-later", "middle-weaker-earlier", "first", "last", "all-short", "no-floor"],
)
def test_story_floor(starts, strength, min_words, expected):
    got = enforce_min_length(np.asarray(starts), 40, min_words=min_words,
                             strength=None if strength is None else np.asarray(strength, dtype=float))
    np.testing.assert_array_equal(got, expected)


def test_story_floor_never_leaves_a_short_story(rng):
    for _ in range(50):
        starts = np.unique(np.concatenate([[0], rng.integers(1, 500, size=rng.integers(0, 60))]))
        kept = enforce_min_length(starts, 500, min_words=30, strength=rng.random(starts.size))
        assert kept[0] == 0 and set(kept.tolist()) <= set(starts.tolist())
        assert kept.size == 1 or np.diff(np.append(kept, 500)).min() >= 30


def test_whisper_display_forms_give_sentence_starts():
    display = ["Good", "evening.", "Tonight,", "rain", "\u2014", "again!\"", "What", "next?", "Nothing"]
    np.testing.assert_array_equal(sentence_starts_from_display(display), [0, 2, 6, 8])
    assert sentence_starts_from_display(["no", "punctuation", "here"]).size == 0


def test_model_for_recognizer_reads_whisper_as_punctuated_recogniser_text():
    from models.segmentation import (
        ACOUSTIC_MODEL_NAME,
        DEFAULT_MODEL_NAME,
        RECOGNISER_MODEL_NAME,
        model_for_recognizer,
        model_path,
    )

    if not model_path(RECOGNISER_MODEL_NAME).is_file():
        pytest.skip("shipped segmentation models not built")
    assert model_for_recognizer("whisper") == RECOGNISER_MODEL_NAME
    assert model_for_recognizer("vosk", punctuated=True) == RECOGNISER_MODEL_NAME
    assert model_for_recognizer("whisper", punctuated=False) == DEFAULT_MODEL_NAME
    assert model_for_recognizer("vosk") == DEFAULT_MODEL_NAME
    assert model_for_recognizer("pocketsphinx", punctuated=True) == ACOUSTIC_MODEL_NAME


def test_nested_leave_one_out_never_shows_a_system_its_test_day(rng):
    """The protocol on a small fixture: each fitter sees the other days only; the gap rule's T comes from them."""
    days = [_timed(rng, 10, story_gap=g, word_gap=0.2, name=f"day{i}") for i, g in enumerate((2.5, 2.5, 9.0))]
    seen: list[tuple[str, list[str]]] = []

    def gap(train):
        threshold = fit_gap_threshold(train)

        def decode(t):
            seen.append((t.name, [d.name for d in train]))
            assert t.name not in {d.name for d in train}
            return gap_rule_starts(t, threshold=threshold)
        return decode

    found = nested_leave_one_out(days, {"gap": gap, "none": lambda train: lambda t: np.zeros(1, dtype=np.int64)})
    assert [name for name, _ in seen] == ["day0", "day1", "day2"]
    assert all(len(train) == 2 for _, train in seen)
    # day 2's stories part after 9 s pauses; T fitted on days 0-1 (2.5 s) still finds them all
    np.testing.assert_array_equal(found[2]["gap"], days[2].story_starts)
    gap_cost = score_documents([d.story_starts for d in days], [f["gap"] for f in found], [len(d) for d in days])
    none_cost = score_documents([d.story_starts for d in days], [f["none"] for f in found], [len(d) for d in days])
    assert gap_cost.windowdiff < none_cost.windowdiff
    with pytest.raises(ParameterError, match="at least 2 transcripts"):
        nested_leave_one_out(days[:1], {"none": lambda train: lambda t: np.zeros(1, dtype=np.int64)})


def test_posterior_threshold_picks_separated_peaks():
    from engine.segment.rules import posterior_starts

    p = np.zeros(200)
    p[[60, 61, 120, 125]] = [0.5, 0.3, 0.35, 0.1]
    # windowed (±5) masses: about 0.8 at 60-61, 0.45 at 120-125
    np.testing.assert_array_equal(posterior_starts(p, threshold=0.7, half_window=5, min_words=30), [0, 60])
    np.testing.assert_array_equal(posterior_starts(p, threshold=0.4, half_window=5, min_words=30), [0, 60, 120])
    # a floor of 70 words: no story may start before word 70, so the weaker peak at 120 is the one left
    np.testing.assert_array_equal(posterior_starts(p, threshold=0.4, half_window=5, min_words=70), [0, 120])
    np.testing.assert_array_equal(posterior_starts(np.zeros(0), threshold=0.5), np.zeros(0, dtype=np.int64))
    with pytest.raises(ParameterError, match=r"posterior threshold must lie in \[0, 1\], got 1.5"):
        posterior_starts(p, threshold=1.5)


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_posterior_threshold_is_a_usable_knob(small_model, newsscape_days):
    """Story counts fall step by step as the threshold rises, with no cliff from a handful to thousands."""
    from engine.segment.segmenter import segment_transcript

    day = newsscape_days[0].slice(0, 8000)
    counts = [len(segment_transcript(day, model=small_model, posterior_threshold=t).story_starts)
              for t in (0.05, 0.2, 0.4, 0.6, 0.8, 0.95)]
    assert counts == sorted(counts, reverse=True)
    assert counts[0] <= 8000 // 30 + 1 and counts[-1] >= 1
    assert max(np.diff(counts[::-1])) < 8000 // 30 / 2
