"""The boundary combiner at run time: candidates, cues, the greedy decode, saving and ingest's use."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.segment.combiner import (
    ALL_CUE_NAMES,
    CUE_NAMES,
    SPEAKER_CUE,
    SPEAKER_CUE_NAMES,
    BoundaryCombiner,
    apply_model_combiner,
    boundary_cues,
    candidate_positions,
    cohesion_gap,
    decode_candidates,
    speaker_turn_cues,
    spot_seconds,
)
from engine.segment.segmentation import Segmentation


def _combiner(**changes) -> BoundaryCombiner:
    k = len(CUE_NAMES)
    values = {"weights": (-3.0, *([0.5] * k)), "mean": (0.0,) * k, "scale": (1.0,) * k, "threshold": 0.4,
              "min_words": 30, "block_seconds": 30.0, "gap_seconds": 3.0}
    return BoundaryCombiner(**{**values, **changes})


def naive_cohesion_gap(words: list[str], p: int, width: int) -> float:
    """1 - cosine of count vectors over the whole vocabulary (content words only)."""
    vocab = sorted({w for w in words if len(w) > 3})
    left = np.array([words[max(p - width, 0):p].count(w) for w in vocab], dtype=float)
    right = np.array([words[p:p + width].count(w) for w in vocab], dtype=float)
    if not left.any() or not right.any():
        return 1.0
    return 1.0 - float(left @ right / np.sqrt((left @ left) * (right @ right)))


def test_candidates_are_word_zero_sentence_starts_and_pauses():
    pause = np.array([0.0, 0.0, 0.5, 0.0, 0.01, 4.0, 0.0])
    np.testing.assert_array_equal(candidate_positions(pause, np.array([3])), [0, 2, 3, 5])
    np.testing.assert_array_equal(candidate_positions(pause, None), [0, 2, 5])


def test_cohesion_gap_matches_the_obvious_cosine(rng):
    words = [f"word{i}" if i >= 5 else "the" for i in rng.integers(0, 30, 400)]
    positions = np.sort(rng.choice(np.arange(1, 400), 40, replace=False))
    fast = cohesion_gap(words, positions, width=25)
    slow = [naive_cohesion_gap(words, int(p), 25) for p in positions]
    np.testing.assert_allclose(fast, slow, atol=1e-12)


def test_cohesion_gap_is_zero_for_a_repeat_and_one_for_a_change_of_topic():
    words = ["alpha", "bravo"] * 10 + ["charlie", "delta"] * 10
    np.testing.assert_allclose(cohesion_gap(words, np.array([10, 20]), width=10), [0.0, 1.0])


def test_spot_seconds_is_the_run_between_long_pauses():
    # words one second long back to back; long pauses before words 3 and 6
    starts = np.array([0.0, 1.0, 2.0, 10.0, 11.0, 12.0, 20.0, 21.0])
    ends = starts + 1.0
    pause = np.zeros(8)
    pause[1:] = starts[1:] - ends[:-1]
    np.testing.assert_allclose(spot_seconds(pause, starts, ends, gap_seconds=3.0), [3, 3, 3, 3, 3, 3, 2, 2])
    np.testing.assert_array_equal(spot_seconds(pause, None, None, gap_seconds=3.0), np.zeros(8))


def test_greedy_decode_places_the_strongest_first_and_keeps_stories_long():
    positions = np.array([0, 40, 50, 100, 150, 190])
    prob = np.array([0.1, 0.6, 0.9, 0.2, 0.7, 0.95])
    # 190 would leave a last story of 10 words; 50 beats 40, which is then too close
    np.testing.assert_array_equal(decode_candidates(positions, prob, n_words=200, threshold=0.5, min_words=30),
                                  [0, 50, 150])
    np.testing.assert_array_equal(decode_candidates(positions, prob, n_words=200, threshold=0.5, min_words=0),
                                  [0, 40, 50, 150, 190])
    counts = [len(decode_candidates(positions, prob, n_words=200, threshold=x, min_words=0))
              for x in np.linspace(0, 1, 11)]
    assert all(a >= b for a, b in itertools.pairwise(counts)) and counts[0] > counts[-1]


def test_decode_collapses_a_block_of_short_segments():
    times = np.arange(300, dtype=float)  # one word a second
    positions = np.array([0, 100, 120, 140, 160, 260])
    found = decode_candidates(positions, np.ones(6), n_words=300, threshold=0.5, min_words=10,
                              block_seconds=25.0, starts=times, ends=times + 1.0)
    np.testing.assert_array_equal(found, [0, 100, 160, 260])


def test_cues_have_one_row_per_candidate_in_the_named_order(rng):
    n = 300
    words = [f"w{i}" for i in rng.integers(0, 50, n)]
    starts = np.cumsum(np.full(n, 0.4))
    starts[150:] += 5.0
    ends = starts + 0.3
    pause = np.zeros(n)
    pause[1:] = starts[1:] - ends[:-1]
    posterior = np.zeros(n)
    posterior[150] = 0.9
    cues = boundary_cues(posterior=posterior, viterbi_starts=np.array([0, 150]), pause=pause, words=words,
                         sentence_starts=np.array([0, 75, 150]), starts=starts, ends=ends, gap_seconds=3.0)
    assert cues.values.shape == (cues.positions.size, len(ALL_CUE_NAMES))
    row = dict(zip(ALL_CUE_NAMES, cues.values[list(cues.positions).index(150)], strict=True))
    assert row["posterior"] == pytest.approx(0.9) and row["viterbi_near"] == 1 and row["gap_rule"] == 1
    assert row["sentence_start"] == 1 and row["log_pause"] == pytest.approx(np.log1p(pause[150]))


@pytest.mark.parametrize(("bad", "message"), [
    (lambda n: {"posterior": np.zeros(n - 1)}, "one length"),
    (lambda n: {"pause": np.full(n, np.nan)}, "must be finite"),
], ids=["short posterior", "nan pause"])
def test_cues_refuse_mismatched_or_missing_values(bad, message):
    n = 20
    kwargs = {"posterior": np.zeros(n), "viterbi_starts": np.array([0]), "pause": np.zeros(n),
              "words": ["w"] * n, "sentence_starts": None, "starts": None, "ends": None, "gap_seconds": 3.0}
    with pytest.raises(ParameterError, match=message):
        boundary_cues(**{**kwargs, **bad(n)})


def test_combiner_round_trips_through_a_dict():
    combiner = _combiner()
    assert BoundaryCombiner.from_dict(combiner.as_dict()) == combiner
    with pytest.raises(ParameterError, match="not a boundary combiner"):
        BoundaryCombiner.from_dict({"threshold": 0.5})


@pytest.mark.parametrize(("changes", "message"), [
    ({"threshold": 1.5}, "out of range"),
    ({"scale": (0.0,) * len(CUE_NAMES)}, "out of range"),
    ({"weights": (1.0,)}, "needs 10 weights"),
    ({"min_words": -1}, "non-negative lengths"),
    ({"cue_names": ("posterior",) * len(CUE_NAMES)}, "fitted on cues"),
], ids=["threshold above 1", "zero scale", "too few weights", "negative length", "other cues"])
def test_combiner_refuses_bad_settings(changes, message):
    with pytest.raises(ParameterError, match=message):
        _combiner(**changes)


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_ingest_places_boundaries_by_the_models_combiner(small_model, newsscape_days):
    from dataclasses import replace

    from engine.segment.segmenter import segment_recognised

    day = newsscape_days[0].slice(0, 3000)
    eager = _combiner(threshold=0.05, block_seconds=0.0)

    def stories(combiner):
        model = replace(small_model, info={**small_model.info, "boundary_combiner": combiner.as_dict()})
        return segment_recognised(day.words, None, engine="vosk", starts=day.starts, ends=day.ends,
                                  model=model).story_starts

    found = stories(eager)
    pause = np.zeros(len(day))
    pause[1:] = day.starts[1:] - day.ends[:-1]
    assert len(found) > 3 and set(found.tolist()) <= set(candidate_positions(pause, None).tolist())
    assert np.diff(found).min() >= 30
    np.testing.assert_array_equal(stories(_combiner(threshold=1.0)), [0])


def naive_speaker_turn_cues(positions: np.ndarray, changes: np.ndarray, n_words: int, reach: int) -> np.ndarray:
    """Per position: a change within reach, and log(1 + words) of the nearest change's turn and the turn before."""
    turns = sorted(set(int(c) for c in changes if 0 <= c < n_words))
    out = np.zeros((len(positions), 3))
    for k, p in enumerate(positions.tolist()):
        near = [c for c in turns if abs(c - p) <= reach]
        if not near:
            continue
        c = min(near, key=lambda x: (abs(x - p), x))
        j = turns.index(c)
        following = (turns[j + 1] if j + 1 < len(turns) else n_words) - c
        previous = c - (turns[j - 1] if j > 0 else 0)
        out[k] = [1.0, np.log1p(following), np.log1p(previous)]
    return out


def test_speaker_turn_cues_match_the_obvious_loop(rng):
    positions = np.sort(rng.choice(np.arange(500), 60, replace=False))
    changes = rng.choice(np.arange(-5, 505), 25, replace=False)
    for reach in (0, 1, 3, 10):
        np.testing.assert_allclose(speaker_turn_cues(positions, changes, n_words=500, reach=reach),
                                   naive_speaker_turn_cues(positions, changes, 500, reach), atol=1e-12)


def test_speaker_turn_cues_are_exact_at_the_edges_and_zero_without_turns():
    positions = np.array([0, 6, 7, 10, 14, 19])
    cues = speaker_turn_cues(positions, np.array([10]), n_words=20, reach=3)
    np.testing.assert_array_equal(cues[:, 0], [0, 0, 1, 1, 0, 0])
    np.testing.assert_allclose(cues[2:4, 1:], [[np.log1p(10), np.log1p(10)]] * 2)
    np.testing.assert_array_equal(speaker_turn_cues(positions, np.array([19, 40, -2]), n_words=20, reach=0)[:, 0],
                                  [0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(speaker_turn_cues(positions, None, n_words=20), np.zeros((6, 3)))


def _cues_with_turns(turns):
    n = 300
    words = [f"w{i % 37}" for i in range(n)]
    starts = np.arange(n) * 0.4
    pause = np.full(n, 0.1)
    return boundary_cues(posterior=np.full(n, 0.01), viterbi_starts=np.array([0]), pause=pause, words=words,
                         sentence_starts=None, starts=starts, ends=starts + 0.3, gap_seconds=3.0,
                         speaker_changes=turns)


def test_the_speaker_cue_is_read_only_by_a_combiner_fitted_with_it():
    with_turns = _cues_with_turns(np.array([100, 200]))
    column = with_turns.values[:, ALL_CUE_NAMES.index(SPEAKER_CUE)]
    assert column.sum() == 14 and set(with_turns.positions[column == 1].tolist()) == {*range(97, 104), *range(197, 204)}
    plain = _combiner()
    assert not plain.uses_speakers
    # a combiner without the cue gives the same probabilities whatever the turns say
    np.testing.assert_array_equal(plain.probability(with_turns.values),
                                  plain.probability(_cues_with_turns(None).values))
    k = len(SPEAKER_CUE_NAMES)
    speaker = BoundaryCombiner(weights=(-4.0, *([0.0] * (k - 1)), 8.0), mean=(0.0,) * k, scale=(1.0,) * k,
                               threshold=0.5, min_words=30, cue_names=SPEAKER_CUE_NAMES)
    assert speaker.uses_speakers
    found = speaker.story_starts(with_turns, n_words=300)
    np.testing.assert_array_equal(found, [0, 97, 197])  # the first candidate of each turn's neighbourhood
    np.testing.assert_array_equal(speaker.story_starts(_cues_with_turns(None), n_words=300), [0])


def test_a_speaker_combiner_reads_the_turns_given_at_run_time():
    n = 300
    posterior = np.full(n, 0.01)
    seg = Segmentation(story_starts=np.array([0]), confidence=np.ones(1), boundary_posterior=posterior,
                       states=np.zeros(n, dtype=np.int64))
    k = len(SPEAKER_CUE_NAMES)
    speaker = BoundaryCombiner(weights=(-4.0, *([0.0] * (k - 1)), 8.0), mean=(0.0,) * k, scale=(1.0,) * k,
                               threshold=0.5, min_words=30, cue_names=SPEAKER_CUE_NAMES).as_dict()
    starts = np.arange(n) * 0.4
    run = {"words": [f"w{i % 37}" for i in range(n)], "starts": starts, "ends": starts + 0.3}
    with_turns = apply_model_combiner(seg, speaker, **run, speaker_changes=np.array([150]))
    np.testing.assert_array_equal(with_turns.story_starts, [0, 147])
    np.testing.assert_array_equal(apply_model_combiner(seg, speaker, **run).story_starts, [0])


def test_a_saved_speaker_combiner_round_trips():
    k = len(SPEAKER_CUE_NAMES)
    speaker = BoundaryCombiner(weights=(0.0,) * (k + 1), mean=(0.0,) * k, scale=(1.0,) * k, cue_names=SPEAKER_CUE_NAMES)
    assert BoundaryCombiner.from_dict(speaker.as_dict()) == speaker
