"""The passage-search bench's held-out choice of the soft-extent configuration (nested leave-one-day-out)."""

from __future__ import annotations

import pytest

from bench.segment_landing_bench import held_out_values, nested_choice, paired, pooled

# R-precision per configuration and topic; topics t1, t2 aired on day A, t3 on B, t4 on C.
DAY = {"t1": "A", "t2": "A", "t3": "B", "t4": "C"}
SCORES = {
    "wide": {"t1": 0.9, "t2": 0.8, "t3": 0.2, "t4": 0.3},
    "tight": {"t1": 0.1, "t2": 0.2, "t3": 0.9, "t4": 0.9},
}


def per_topic(scores: dict[str, dict[str, float]]) -> dict[str, dict[str, dict[str, float]]]:
    return {c: {t: {"rprec": v, "psg_rprec": v / 2, "top_in_story": v > 0.5} for t, v in rows.items()}
            for c, rows in scores.items()}


def test_each_day_is_searched_with_the_configuration_best_on_the_other_days():
    chosen, final = nested_choice(per_topic(SCORES), DAY)
    # without A, "tight" wins (0.9, 0.9 against 0.2, 0.3); without B or C, A's two topics carry "wide"
    assert chosen == {"A": "tight", "B": "wide", "C": "wide"}
    assert final == "wide"  # all four topics: 0.55 against 0.525
    got = pooled(per_topic(SCORES), chosen, DAY)
    assert got["rprec_chars"] == pytest.approx((0.1 + 0.2 + 0.2 + 0.3) / 4)
    assert got["psg_rprec_chars"] == pytest.approx((0.1 + 0.2 + 0.2 + 0.3) / 8)
    assert got["top_hit_in_relevant_story_play_from"] == 0.0


def test_ties_go_to_the_earlier_configuration():
    chosen, final = nested_choice(per_topic({"before": {"t1": 0.5, "t3": 0.5}, "other": {"t1": 0.5, "t3": 0.5}}),
                                  {"t1": "A", "t3": "B"})
    assert set(chosen.values()) == {"before"} and final == "before"


def test_held_out_values_take_each_topic_from_the_configuration_chosen_without_its_day():
    chosen = {"A": "tight", "B": "wide", "C": "wide"}
    assert held_out_values(per_topic(SCORES), chosen, DAY) == {"t1": 0.1, "t2": 0.2, "t3": 0.2, "t4": 0.3}


def test_the_paired_test_compares_common_topics_only():
    got = paired({"t1": 0.9, "t2": 0.5, "t3": 0.4, "t5": 0.8}, {"t1": 0.1, "t2": 0.5, "t3": 0.6, "t4": 1.0})
    assert got["topics"] == 3 and got["better"] == 1 and got["worse"] == 1
    assert got["mean_a"] == pytest.approx(0.6) and got["mean_b"] == pytest.approx(0.4)
    assert 0 < got["t_test_p"] < 1 and 0 < got["wilcoxon_p"] <= 1
    assert paired({"t1": 0.5}, {"t1": 0.5})["wilcoxon_p"] == 1.0
