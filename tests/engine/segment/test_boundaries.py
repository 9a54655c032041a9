"""Story boundaries from posterior, pauses and blocks: the rule, its fit on held-out decodes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.research.segment.boundary_fit import fit_boundary_rule, rule_cost
from engine.segment.boundaries import BoundaryRule, collapse_blocks, evidence_peaks
from engine.segment.text import Transcript, read_commercial_blocks


def _day(rng, *, n_stories: int, name: str, ads_after: tuple[int, ...] = ()) -> tuple[np.ndarray, Transcript]:
    """A timed transcript and a noisy start posterior for it.

    Stories of 60-120 words open after a 4 s pause; the posterior is weak noise with a bump of
    0.3-0.6 near half the true starts. After the stories listed in ``ads_after`` comes one commercial
    block (one true segment) of three 20-word spots, each after a 4 s pause too; the transcript's
    ``ad_blocks`` attribute lists them as [first word, end) pairs.
    """
    words, starts, ends, truth, blocks = [], [], [], [], []
    t = 0.0

    def run(n_words: int, gap: float) -> None:
        nonlocal t
        for i in range(n_words):
            t += gap if i == 0 and words else 0.25
            words.append(f"w{rng.integers(0, 300)}")
            starts.append(t)
            t += 0.3
            ends.append(t)

    for k in range(n_stories):
        truth.append(len(words))
        run(int(rng.integers(60, 120)), 4.0)
        if k in ads_after:
            truth.append(len(words))
            blocks.append(len(words))
            for _ in range(3):
                run(20, 4.0)
            blocks.append(len(words))
    n = len(words)
    posterior = rng.uniform(0.0, 0.004, n)
    for s in truth[1:]:
        if rng.random() < 0.5:  # the words miss half the boundaries: the pause must find them
            posterior[s + int(rng.integers(-1, 2))] += rng.uniform(0.3, 0.6)
    tr = Transcript(words=words, story_starts=np.asarray(truth, dtype=np.int64), starts=np.asarray(starts),
                    ends=np.asarray(ends), name=name)
    tr.ad_blocks = np.asarray(blocks, dtype=np.int64).reshape(-1, 2)  # type: ignore[attr-defined]
    return posterior, tr


def test_collapse_keeps_only_the_edges_of_a_run_of_short_segments():
    # segments: 0-9 (10 s), 10-12 (3 s), 13-15 (3 s), 16-19 (4 s); times: one word a second
    times = np.arange(20, dtype=float)
    found = collapse_blocks(np.array([0, 10, 13, 16]), starts=times, ends=times + 1.0, max_seconds=3.5)
    np.testing.assert_array_equal(found, [0, 10, 16])
    # a single short segment is not a block
    np.testing.assert_array_equal(
        collapse_blocks(np.array([0, 10, 13]), starts=times, ends=times + 1.0, max_seconds=3.5), [0, 10, 13])


def test_a_long_pause_adds_its_weight_to_the_evidence():
    p = np.zeros(200)
    p[40] = 0.3
    bonus = np.zeros(200)
    bonus[70] = 0.5
    np.testing.assert_array_equal(evidence_peaks(p, bonus, threshold=0.4, min_words=10), [0, 70])
    np.testing.assert_array_equal(evidence_peaks(p, bonus, threshold=0.25, min_words=10), [0, 40, 70])
    np.testing.assert_array_equal(evidence_peaks(p, bonus, threshold=0.25, min_words=35), [0, 70])


def test_fewer_boundaries_as_the_threshold_rises(rng):
    posterior, tr = _day(rng, n_stories=20, name="d")
    counts = [len(BoundaryRule(threshold=x, min_words=0).on_transcript(posterior, tr))
              for x in np.linspace(0.0, 1.0, 11)]
    assert all(a >= b for a, b in itertools.pairwise(counts))
    assert counts[0] > counts[-1]


@pytest.mark.parametrize("field", ["threshold", "pause_seconds", "pause_weight", "block_seconds", "min_words"])
def test_rule_refuses_negative_settings(field):
    with pytest.raises(ParameterError, match="non-negative finite settings"):
        BoundaryRule(**{field: -1})


def test_rule_round_trips_through_a_dict():
    rule = BoundaryRule(threshold=0.3, pause_seconds=2.0, pause_weight=0.5, block_seconds=45.0, min_words=60)
    assert BoundaryRule.from_dict(rule.as_dict()) == rule
    with pytest.raises(ParameterError, match="not a boundary rule"):
        BoundaryRule.from_dict({"penalty": 1.0})


def test_rule_fitted_on_held_out_days_finds_the_stories_of_an_unseen_day(rng):
    train = [_day(rng, n_stories=25, name=f"d{i}", ads_after=(3, 9, 15)) for i in range(3)]
    held_post, held = _day(rng, n_stories=25, name="held", ads_after=(4, 12, 20))
    rule = fit_boundary_rule(train)
    found = rule.on_transcript(held_post, held)
    s = score_documents([held.story_starts], [found], [len(held)])
    default = BoundaryRule()
    assert rule_cost(rule, train) < rule_cost(default, train)
    assert s.p_miss < 0.1 and s.p_false_alarm < 0.05
    # the spots of a commercial block are one segment: no boundary between them
    inside = [b for b in found for a, e in held.ad_blocks if a < b < e]
    assert inside == []
    without_blocks = BoundaryRule(**{**rule.as_dict(), "block_seconds": 0.0, "min_words": 0})
    assert [b for b in without_blocks.on_transcript(held_post, held) for a, e in held.ad_blocks if a < b < e]


def test_fit_sees_only_the_decodes_it_is_given(rng):
    seen: list[str] = []

    def cost(rule, decoded, peers):
        seen.extend(t.name for _, t in decoded)
        return rule.threshold

    fit_boundary_rule([_day(rng, n_stories=5, name="train-a"), _day(rng, n_stories=5, name="train-b")], cost=cost)
    assert set(seen) == {"train-a", "train-b"}
    with pytest.raises(ParameterError, match="at least one decoded transcript"):
        fit_boundary_rule([])


def test_cost_against_peers_is_the_worst_ratio(rng):
    decoded = [_day(rng, n_stories=10, name="a"), _day(rng, n_stories=10, name="b")]
    rule = BoundaryRule(threshold=0.3, min_words=0)
    own = [score_documents([t.story_starts], [rule.on_transcript(p, t)], [len(t)]) for p, t in decoded]
    same = [np.array([[s.tdt_cost, s.pk, s.windowdiff]]) for s in own]
    assert rule_cost(rule, decoded, same) == pytest.approx(1.0)
    half_pk = [np.array([[s.tdt_cost, s.pk / 2, s.windowdiff]]) for s in own]
    assert rule_cost(rule, decoded, half_pk) == pytest.approx(2.0)
    with pytest.raises(ParameterError, match="peers has 1 entries for 2"):
        fit_boundary_rule(decoded, peers=same[:1])


def test_commercial_blocks_are_read_in_word_indices(tmp_path):
    rows = ["20060803000100.000|20060803000101.000|SEG_00|Type=Story start",
            "20060803000100.000|20060803000102.000|CC1|ONE TWO THREE.",
            "20060803000103.000|20060803000104.000|SEG_00|Type=Commercial",
            "20060803000103.000|20060803000105.000|CC1|Buy now, four five.",
            "20060803000106.000|20060803000107.000|SEG_00|Type=Story start",
            "20060803000106.000|20060803000108.000|CC1|SIX SEVEN."]
    path = tmp_path / "day.txt3"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    np.testing.assert_array_equal(read_commercial_blocks(path), [[3, 7]])


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_ingest_places_boundaries_by_the_models_rule(small_model, newsscape_days):
    from dataclasses import replace

    from engine.segment.rules import pauses
    from engine.segment.segmenter import segment_recognised

    day = newsscape_days[0].slice(0, 3000)
    cut = {"threshold": 1.0, "pause_seconds": 3.0, "pause_weight": 2.0, "block_seconds": 0.0, "min_words": 30}

    def stories(rule):
        model = replace(small_model, info={**small_model.info, "boundary_rule": rule})
        return segment_recognised(day.words, None, engine="vosk", starts=day.starts, ends=day.ends,
                                  model=model).story_starts

    long_pauses = set(np.flatnonzero(pauses(day) > 3.0).tolist())
    by_pause = stories(cut)
    assert len(by_pause) > 3 and set(by_pause[1:].tolist()) <= long_pauses
    np.testing.assert_array_equal(stories({**cut, "pause_weight": 0.0, "threshold": 5.0}), [0])
    viterbi = segment_recognised(day.words, None, engine="vosk", starts=day.starts, ends=day.ends,
                                 model=small_model).story_starts
    assert not np.array_equal(viterbi, by_pause)


def test_block_length_is_fitted_on_held_out_decodes_and_removes_the_spots(rng):
    from engine.research.segment.boundary_fit import fit_block_seconds, viterbi_with_blocks

    decoded = []
    for i in range(3):
        posterior, tr = _day(rng, n_stories=20, name=f"d{i}", ads_after=(2, 8, 14))
        long_pause = np.flatnonzero(np.diff(tr.starts) > 3.0) + 1  # a Viterbi path that cuts at every pause
        decoded.append((np.concatenate([[0], long_pause]), posterior, tr))
    seconds = fit_block_seconds(decoded)
    assert seconds > 0
    for viterbi, posterior, tr in decoded:
        found = viterbi_with_blocks(viterbi, posterior, tr, block_seconds=seconds)
        assert not [b for b in found for a, e in tr.ad_blocks if a < b < e]
        assert set(tr.story_starts.tolist()) <= set(found.tolist())
    with pytest.raises(ParameterError, match="at least one decoded transcript"):
        fit_block_seconds([])


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_ingest_collapses_blocks_by_the_models_block_length(small_model, newsscape_days):
    from dataclasses import replace

    from engine.segment.segmenter import segment_recognised, segment_words

    day = newsscape_days[0].slice(0, 4000)
    viterbi = segment_words(day.words, starts=day.starts, ends=day.ends, model=small_model, log_penalty=8.0)
    plain = segment_recognised(day.words, None, engine="vosk", starts=day.starts, ends=day.ends,
                               model=small_model, log_penalty=8.0).story_starts
    blocky = replace(small_model, info={**small_model.info, "block_seconds": 120.0})
    # an explicit penalty keeps the Viterbi path; the block length still applies to it
    merged = segment_recognised(day.words, None, engine="vosk", starts=day.starts, ends=day.ends,
                                model=blocky, log_penalty=8.0).story_starts
    assert set(merged.tolist()) <= set(viterbi.story_starts.tolist())
    assert len(merged) < len(plain)
