"""Why the model segmented a recording the way it did (paper section 7), as data.

:func:`explain` returns plain lists and numbers (JSON-ready) that the GUI can draw
and :mod:`engine.research.segment.plots` renders to PNG:

* ``length_histogram``: story-length counts 1..L, raw and smoothed (as counts).
* ``emission``: p(feature bin | state) for every feature, bin and state.
* ``state_path``: true and predicted state of every word.
* ``likelihood_ratio``: per feature (and for their total), the log of how much
  more likely the observed value is under the true state than under the
  predicted one, word by word, and its cumulative sum. A steady downward trend
  in the sum shows a feature that consistently favours the wrong path.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from engine.errors import ParameterError
from engine.research.segment.fit import true_states
from engine.segment.model import SegmentationModel
from engine.segment.text import Transcript


def _rounded(values: np.ndarray, digits: int = 5) -> list:
    return np.round(np.asarray(values, dtype=np.float64), digits).tolist()


def _bin_labels(edges: np.ndarray) -> list[str]:
    labels = ["0"]
    bounds = [0.0, *edges.tolist(), np.inf]
    for lo, hi in itertools.pairwise(bounds):
        labels.append(f"({lo:.3g}, {hi:.3g}]" if np.isfinite(hi) else f"> {lo:.3g}")
    return labels


def explain(
    model: SegmentationModel,
    transcript: Transcript,
    truth: Sequence[int] | np.ndarray,
    *,
    log_penalty: float | None = None,
) -> dict:
    """Diagnostic data for one transcript whose true story starts are known.

    Parameters
    ----------
    model : SegmentationModel
    transcript : Transcript
        Words (and times, if any) of the recording.
    truth : sequence of int
        True story starts (word indices); 0 is added if missing.
    log_penalty : float, optional
        Boundary penalty for the predicted path (default: the model's).

    Returns
    -------
    dict
        JSON-ready data; see the module docstring.
    """
    n = len(transcript)
    if n == 0:
        raise ParameterError(f"{transcript.name}: no words to explain")
    truth = np.unique(np.append(np.asarray(truth, dtype=np.int64), 0))
    if truth.max() >= n:
        raise ParameterError(f"true story start {truth.max()} is beyond the last word ({n - 1})")
    reference = Transcript(words=transcript.words, story_starts=truth, name=transcript.name)
    true_path = true_states(reference, model.max_state)
    sentences = transcript.sentence_starts if transcript.sentence_starts.size else None
    values = model.feature_values(transcript.words, starts=transcript.starts, ends=transcript.ends,
                                  sentence_starts=sentences)
    bins = model.bins_of(values)
    predicted = model.decode(bins, log_penalty=log_penalty)
    ratios = {}
    total = np.zeros(n)
    log_emission = model.weighted_log_emission  # the weighted terms the decoder adds up
    for j, name in enumerate(model.feature_names):
        table = log_emission[j]
        ratio = table[bins[:, j], true_path] - table[bins[:, j], predicted]
        total += ratio
        ratios[name] = {"per_word": _rounded(ratio), "cumulative": _rounded(np.cumsum(ratio))}
    ratios["total"] = {"per_word": _rounded(total), "cumulative": _rounded(np.cumsum(total))}
    n_stories = model.length_raw.sum() / max(1.0 - model.length_tail, 1e-12)
    emission = {}
    for j, name in enumerate(model.feature_names):
        n_real = model.bin_edges[j].size + 2
        emission[name] = {
            "bins": _bin_labels(model.bin_edges[j]),
            "probability": _rounded(np.exp(model.log_emission[j, :n_real]), 6),
            "counts": model.emission_counts[j, :n_real].astype(int).tolist(),
        }
    return {
        "name": transcript.name,
        "n_words": n,
        "max_state": model.max_state,
        "features": model.feature_names,
        "length_histogram": {
            "lengths": list(range(1, model.max_state + 1)),
            "raw": model.length_raw.astype(int).tolist(),
            "smoothed": _rounded(model.length_density * n_stories, 4),
            "longer_than_max": round(float(model.length_tail * n_stories)),
        },
        "emission": emission,
        "state_path": {
            "true": true_path.tolist(),
            "predicted": predicted.tolist(),
            "true_starts": truth.tolist(),
            "predicted_starts": np.flatnonzero(predicted == 0).tolist(),
        },
        "feature_values": {name: _rounded(values[:, j], 4) for j, name in enumerate(model.feature_names)},
        "likelihood_ratio": ratios,
    }
