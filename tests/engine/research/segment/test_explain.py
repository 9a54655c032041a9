"""Explanation data: likelihood ratios add up and vanish where the paths agree."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.research.segment.explain import explain


@pytest.mark.slow  # over 2 s
def test_explanation_data_is_consistent(small_model, newsscape_days):
    day = newsscape_days[0].slice(0, 4000)
    data = explain(small_model, day, day.story_starts)
    true = np.asarray(data["state_path"]["true"])
    predicted = np.asarray(data["state_path"]["predicted"])
    total = np.asarray(data["likelihood_ratio"]["total"]["per_word"])
    parts = sum(np.asarray(data["likelihood_ratio"][f]["per_word"]) for f in data["features"])
    np.testing.assert_allclose(total, parts, atol=1e-4)
    assert np.all(total[true == predicted] == 0)
    np.testing.assert_allclose(np.cumsum(total), data["likelihood_ratio"]["total"]["cumulative"], atol=1e-2)
    assert true[0] == 0 and set(np.flatnonzero(true == 0)) == set(day.story_starts.tolist())
    hist = data["length_histogram"]
    assert len(hist["raw"]) == len(hist["smoothed"]) == small_model.max_state
    for name in data["features"]:
        prob = np.asarray(data["emission"][name]["probability"])
        np.testing.assert_allclose(prob.sum(axis=0), 1.0, atol=1e-4)


@pytest.mark.slow  # the trained model fixture costs ~5 s of CPU
def test_truth_beyond_the_words_is_rejected(small_model, newsscape_days):
    day = newsscape_days[0].slice(0, 100)
    with pytest.raises(ParameterError, match=r"true story start 500 is beyond the last word \(99\)"):
        explain(small_model, day, [0, 500])
