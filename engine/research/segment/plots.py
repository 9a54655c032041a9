"""PNG renderings of :func:`engine.research.segment.explain.explain` data (matplotlib, Agg only).

Figures are built with ``matplotlib.figure.Figure`` and the Agg canvas directly,
never through ``pyplot``, so no GUI backend (and no Qt) is ever imported.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine.errors import EarshotError, ParameterError


def _figure(rows: int = 1, height: float = 3.2):
    try:
        # lazy: matplotlib only when a figure is drawn
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise EarshotError("matplotlib is not installed: cannot draw the explanation plots") from exc
    fig = Figure(figsize=(10, height * rows), constrained_layout=True)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=100)
    return path


def plot_length_histogram(data: dict, path: Path) -> Path:
    hist = data["length_histogram"]
    fig = _figure(2)
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.bar(hist["lengths"], hist["raw"], width=1.0, color="0.4")
    top.set_title(f"Story lengths up to {data['max_state']} words (raw); {hist['longer_than_max']} longer")
    top.set_ylabel("stories")
    bottom.plot(hist["lengths"], hist["smoothed"], color="C0")
    bottom.set_title("smoothed")
    bottom.set_xlabel("story length (words)")
    bottom.set_ylabel("stories")
    return _save(fig, path)


def plot_emission(data: dict, feature: str, path: Path) -> Path:
    info = data["emission"][feature]
    prob = np.asarray(info["probability"])
    fig = _figure(1, 4.0)
    ax = fig.subplots()
    states = np.arange(1, prob.shape[1] + 1)  # the paper numbers states from 1
    for b, label in enumerate(info["bins"]):
        ax.plot(states, prob[b], label=label)
    ax.set_yscale("log")
    ax.set_xlabel("state (word position in story; last = beyond)")
    ax.set_ylabel("p(value bin | state)")
    ax.set_title(f"{feature}: p(feature value | state)")
    ax.legend(fontsize="small", ncol=2)
    return _save(fig, path)


def plot_state_path(data: dict, path: Path) -> Path:
    paths = data["state_path"]
    fig = _figure(3, 2.4)
    axes = fig.subplots(3, 1, sharex=True)
    words = np.arange(len(paths["true"]))
    true = np.asarray(paths["true"]) + 1
    predicted = np.asarray(paths["predicted"]) + 1
    axes[0].plot(words, true, color="k", lw=0.8)
    axes[0].set_title("true state path")
    axes[1].plot(words, predicted, color="C3", lw=0.8)
    axes[1].set_title("predicted state path")
    axes[2].plot(words, true, color="k", lw=2.0, alpha=0.5, label="true")
    axes[2].plot(words, predicted, color="C3", lw=0.8, label="predicted")
    axes[2].legend(fontsize="small")
    axes[2].set_xlabel("word")
    for ax in axes:
        ax.set_ylabel("state")
    return _save(fig, path)


def plot_likelihood_ratio(data: dict, feature: str, path: Path) -> Path:
    ratio = data["likelihood_ratio"][feature]
    fig = _figure(3 if feature in data["feature_values"] else 2, 2.4)
    axes = fig.subplots(3 if feature in data["feature_values"] else 2, 1, sharex=True)
    words = np.arange(len(ratio["per_word"]))
    i = 0
    if feature in data["feature_values"]:
        axes[0].scatter(words, data["feature_values"][feature], s=1, color="0.3")
        axes[0].set_title(f"{feature} value")
        i = 1
    axes[i].scatter(words, ratio["per_word"], s=1, color="C0")
    axes[i].set_title("log p(value | true state) - log p(value | predicted state)")
    axes[i + 1].plot(words, ratio["cumulative"], color="C0")
    axes[i + 1].set_title("cumulative sum")
    axes[i + 1].set_xlabel("word")
    return _save(fig, path)


def write_explanation(data: dict, out_dir: str | Path) -> list[Path]:
    """Write ``explain.json`` and one PNG per plot into ``out_dir``; return the paths.

    An empty ``out_dir`` is refused: ``Path("")`` is the current folder, which no one named.
    """
    if not str(out_dir).strip():
        raise ParameterError("the folder for the figures is an empty name; give one ('.' for this folder)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "explain.json"
    json_path.write_text(json.dumps(data), encoding="utf-8")
    written = [json_path]
    written.append(plot_length_histogram(data, out_dir / "length_histogram.png"))
    written.append(plot_state_path(data, out_dir / "state_path.png"))
    for feature in data["features"]:
        written.append(plot_emission(data, feature, out_dir / f"emission_{feature}.png"))
    for feature in [*data["features"], "total"]:
        written.append(plot_likelihood_ratio(data, feature, out_dir / f"likelihood_ratio_{feature}.png"))
    return written
