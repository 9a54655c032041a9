"""Fitting the boundary combiner on held-out decodes: the logistic fit, the nested protocol, the oracle sweep."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.research.segment.combiner_fit import (
    DecodedDay,
    candidate_labels,
    fit_combiner,
    fit_logistic,
    held_out_probabilities,
    oracle_sweep,
    setting_cost,
)
from engine.research.segment.experiments import nested_leave_one_out
from engine.research.segment.gap_rule import fit_gap_threshold
from engine.segment.combiner import CUE_NAMES, TURN_CUE_NAMES
from engine.segment.rules import gap_rule_starts
from engine.segment.text import Transcript


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20060803)


def _day(rng: np.random.Generator, *, n_stories: int, name: str) -> DecodedDay:
    """A timed day of stories on their own topics, with pauses that mislead a gap rule, and a weak posterior.

    Each story (60-120 words, caption rows of 6-10 words after 0.2 s) draws its content words from
    a vocabulary of its own, mixed with short filler words. Two stories in three open after a 4 s
    pause, the others after 0.6 s; one story in three has a 4 s pause inside it. The start
    posterior is noise with a bump at a third of the true starts.
    """
    words: list[str] = []
    starts: list[float] = []
    truth: list[int] = []
    t = 0.0
    for k in range(n_stories):
        truth.append(len(words))
        length = int(rng.integers(60, 120))
        inner_pause = int(rng.integers(20, length - 20)) if rng.random() < 1 / 3 else -1
        row_left = 0
        for i in range(length):
            if i == 0 and words:
                t += 4.0 if rng.random() < 2 / 3 else 0.6
            elif i == inner_pause:
                t += 4.0
            elif row_left == 0:
                t += 0.2
            row_left = int(rng.integers(6, 11)) if row_left == 0 else row_left - 1
            topical = rng.random() < 0.5
            words.append(f"{name}topic{k}x{rng.integers(0, 12)}" if topical else f"f{rng.integers(0, 60)}")
            starts.append(t)
            t += 0.35
    n = len(words)
    begin = np.asarray(starts)
    posterior = rng.uniform(0.0, 0.003, n)
    for s in truth[1:]:
        if rng.random() < 1 / 3:
            posterior[s] += rng.uniform(0.3, 0.6)
    transcript = Transcript(words=words, story_starts=np.asarray(truth, dtype=np.int64), starts=begin,
                            ends=begin + 0.3, name=name)
    viterbi = np.flatnonzero(posterior > 0.2)
    return DecodedDay(transcript=transcript, viterbi=np.union1d([0], viterbi), posterior=posterior)


def _scores(found: np.ndarray, t: Transcript) -> np.ndarray:
    s = score_documents([t.story_starts], [found], [len(t)])
    return np.array([s.tdt_cost, s.pk, s.windowdiff])


def test_logistic_fit_is_the_minimum_of_the_penalised_loss(rng):
    x = rng.normal(size=(3000, 3)) * [1.0, 3.0, 0.5] + [0.0, 2.0, -1.0]
    truth = np.array([-2.0, 1.0, -0.5, 0.0])
    z = (x - x.mean(0)) / x.std(0)
    y = (rng.random(3000) < 1 / (1 + np.exp(-(truth[0] + z @ truth[1:])))).astype(float)
    w, mean, scale = fit_logistic(x, y, l2=2.0)
    design = np.column_stack([np.ones(len(y)), (x - mean) / scale])

    def loss(v):  # the slow twin: the same penalised likelihood, by a general optimiser
        s = design @ v
        return np.sum(np.logaddexp(0, s) - y * s) + 0.5 * 2.0 * np.sum(v[1:] ** 2)

    reference = minimize(loss, np.zeros(4), method="BFGS", options={"gtol": 1e-8}).x
    np.testing.assert_allclose(w, reference, atol=1e-4)
    np.testing.assert_allclose(w, truth, atol=0.25)


@pytest.mark.parametrize(("x", "y", "message"), [
    (np.zeros((4, 2)), np.zeros(4), "both classes"),
    (np.zeros((4, 2)), np.zeros(3), "needs x"),
    (np.zeros(4), np.zeros(4), "needs x"),
], ids=["one class", "length mismatch", "one-dimensional x"])
def test_logistic_fit_refuses_what_it_cannot_fit(x, y, message):
    with pytest.raises(ParameterError, match=message):
        fit_logistic(x, y)


def test_the_candidate_nearest_each_true_start_is_the_positive():
    np.testing.assert_array_equal(candidate_labels(np.array([0, 10, 12, 40, 80]), np.array([0, 11, 50, 79])),
                                  [1, 1, 0, 0, 1])


def test_cost_against_peers_is_the_worst_ratio():
    own = [np.array([0.5, 0.2, 0.3]), np.array([0.4, 0.1, 0.2])]
    peers = [np.array([[0.5, 0.2, 0.3]]), np.array([[0.8, 0.05, 0.4]])]
    assert setting_cost(own, peers) == pytest.approx((1.0 + 2.0) / 2)
    assert setting_cost(own, None) == pytest.approx((1.0 + 0.7) / 2)


def test_held_out_probabilities_never_read_the_labels_of_the_day_they_score(rng):
    days = [_day(rng, n_stories=12, name=f"d{i}") for i in range(3)]
    cues = [d.cues(3.0) for d in days]
    before = held_out_probabilities(cues, [d.transcript for d in days])
    moved = days[0].transcript
    relabelled = Transcript(words=moved.words, story_starts=np.array([0, 5, 300]), starts=moved.starts,
                            ends=moved.ends, name=moved.name)
    after = held_out_probabilities(cues, [relabelled, days[1].transcript, days[2].transcript])
    np.testing.assert_array_equal(before[0], after[0])  # day 0's own labels never reach its probabilities
    assert not np.allclose(before[1], after[1])  # while they do reach the other days'


def test_combiner_fitted_on_training_days_beats_the_gap_rule_on_every_held_out_day(rng):
    days = [_day(rng, n_stories=25, name=f"day{i}") for i in range(4)]
    by_name = {d.transcript.name: d for d in days}
    seen: list[set[str]] = []

    def combiner_system(train):
        seen.append({t.name for t in train})
        threshold = fit_gap_threshold(train)
        combiner = fit_combiner([by_name[t.name] for t in train], gap_seconds=threshold)

        def decode(t):
            cues = by_name[t.name].cues(combiner.gap_seconds)
            return combiner.story_starts(cues, n_words=len(t), starts=t.starts, ends=t.ends)
        return decode

    def gap_system(train):
        threshold = fit_gap_threshold(train)
        return lambda t: gap_rule_starts(t, threshold=threshold)

    transcripts = [d.transcript for d in days]
    found = nested_leave_one_out(transcripts, {"combiner": combiner_system, "gap": gap_system})
    assert seen == [{t.name for t in transcripts if t is not held} for held in transcripts]
    for held, hyps in zip(transcripts, found, strict=True):
        ours, gap = _scores(hyps["combiner"], held), _scores(hyps["gap"], held)
        assert np.all(ours < gap), (held.name, ours, gap)


def test_fit_refuses_too_few_days_and_mismatched_peers(rng):
    days = [_day(rng, n_stories=8, name=f"d{i}") for i in range(2)]
    with pytest.raises(ParameterError, match="at least 2 decoded days, got 1"):
        fit_combiner(days[:1], gap_seconds=3.0)
    with pytest.raises(ParameterError, match="peers has 1 entries for 2"):
        fit_combiner(days, gap_seconds=3.0, peers=[np.ones((1, 3))])


def test_oracle_sweep_finds_a_setting_only_when_one_exists(rng):
    days = [_day(rng, n_stories=15, name=f"d{i}") for i in range(3)]
    combiner = fit_combiner(days[:2], gap_seconds=3.0)
    held = days[2]
    gap = _scores(gap_rule_starts(held.transcript, threshold=3.0), held.transcript)
    found = oracle_sweep(combiner, held, gap[None, :], thresholds=(0.1, 0.3, 0.5))
    assert found["reachable"] and found["pk"] <= gap[1] and found["windowdiff"] <= gap[2]
    assert found["beats_first_peer"] == (found["c_seg"] < gap[0])
    assert oracle_sweep(combiner, held, np.full((1, 3), -1.0), thresholds=(0.3,)) == {
        "reachable": False, "beats_first_peer": False}


def test_shipped_combiner_is_fitted_against_the_gap_rule_and_no_boundary(rng):
    from engine.research.segment.combiner_fit import fit_shipped_combiner, gap_rule_and_no_boundary

    days = [_day(rng, n_stories=12, name=f"d{i}") for i in range(3)]
    transcripts = [d.transcript for d in days]
    peers = gap_rule_and_no_boundary(transcripts[1:], transcripts[0])
    gap = _scores(gap_rule_starts(transcripts[0], threshold=fit_gap_threshold(transcripts[1:])), transcripts[0])
    np.testing.assert_allclose(peers, [gap, _scores(np.zeros(1, dtype=np.int64), transcripts[0])])
    combiner = fit_shipped_combiner(days)
    assert combiner.gap_seconds == fit_gap_threshold(transcripts)
    found = combiner.story_starts(days[0].cues(combiner.gap_seconds), n_words=len(transcripts[0]),
                                  starts=transcripts[0].starts, ends=transcripts[0].ends)
    assert np.all(_scores(found, transcripts[0]) <= peers[0])


def test_a_combiner_fitted_with_speaker_turns_weighs_a_change_that_marks_stories(rng):
    days = []
    for i in range(3):
        day = _day(rng, n_stories=25, name=f"day{i}")
        t = day.transcript
        inside = rng.integers(1, len(t), 40)  # turns inside stories too, as interviews give them
        t.speaker_changes = np.union1d(t.story_starts[1:], inside).astype(np.int64)
        days.append(day)
    combiner = fit_combiner(days, gap_seconds=3.0, cue_names=TURN_CUE_NAMES)
    assert combiner.cue_names == TURN_CUE_NAMES and combiner.uses_speakers
    weight = dict(zip(("intercept", *TURN_CUE_NAMES), combiner.weights, strict=True))
    assert weight["speaker_change"] > 0.5
    plain = fit_combiner(days, gap_seconds=3.0)
    assert plain.cue_names == CUE_NAMES and not plain.uses_speakers and len(plain.weights) == len(CUE_NAMES) + 1
