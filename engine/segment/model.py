"""The trained segmentation model: parameters, training, saving and loading.

A model file is a NumPy ``.npz`` archive of learned parameters only (per-word
tables keyed by the vocabulary, bin edges, log transition and emission
probabilities, the story-length histogram) plus a JSON header. It holds no
transcript text beyond the vocabulary.
"""

from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from engine.errors import ModelError, ParameterError
from engine.segment import config, estimate
from engine.segment.features import (
    FEATURES_BY_NAME,
    Vocabulary,
    XDuration,
    feature_matrix,
    x_duration_of,
)
from engine.segment.hmm import forward_backward, viterbi

log = logging.getLogger("earshot.segment")

FORMAT_VERSION = 1


@dataclass
class Hyperparameters:
    """Binning, smoothing and decoding settings (fit on development data)."""

    n_bins: int = config.DEFAULT_N_BINS
    state_bandwidth: float = config.DEFAULT_STATE_BANDWIDTH
    length_bandwidth: float = config.DEFAULT_LENGTH_BANDWIDTH
    log_penalty: float = config.DEFAULT_LOG_PENALTY
    #: Weight of each feature group's log-likelihood (``coherence``, ``x_duration``,
    #: ``trigger``, ``sentence_start``); a missing group weighs 1, the paper's model.
    weights: dict[str, float] = field(default_factory=dict)

    def weight_of(self, feature) -> float:
        """The weight of ``feature``'s log-likelihood (1 unless fitted)."""
        return float(self.weights.get(getattr(feature, "group", feature.name), 1.0))

    def validate(self) -> None:
        if int(self.n_bins) != self.n_bins or self.n_bins < 2:
            raise ParameterError(f"n_bins must be an integer >= 2, got {self.n_bins}")
        for name in ("state_bandwidth", "length_bandwidth"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ParameterError(f"{name} must be positive (log units), got {value}")
        if not np.isfinite(self.log_penalty):
            raise ParameterError(f"log_penalty must be finite, got {self.log_penalty}")
        for group, weight in self.weights.items():
            if not (np.isfinite(weight) and weight >= 0):
                raise ParameterError(f"weight of {group} must be a finite number >= 0, got {weight}")


@dataclass
class SegmentationModel:
    """Everything needed to segment a word sequence.

    Shapes use F features, B bins (padded to the largest feature), S = L + 1 states.
    """

    features: tuple
    vocabulary: Vocabulary
    word_tables: dict[str, np.ndarray]
    bin_edges: list[np.ndarray]
    emission_counts: np.ndarray  # (F, B, S) raw training counts
    log_emission: np.ndarray  # (F, B, S) log p(bin | state)
    log_next: np.ndarray  # (S,)
    log_restart: np.ndarray  # (S,)
    log_init: np.ndarray  # (S,)
    length_raw: np.ndarray  # (L,) story counts of lengths 1..L
    length_density: np.ndarray  # (L,) smoothed probabilities of lengths 1..L
    length_tail: float
    length_tail_excess: float
    hyper: Hyperparameters
    info: dict = field(default_factory=dict)

    @property
    def max_state(self) -> int:
        return int(self.log_init.shape[0] - 1)

    @property
    def feature_names(self) -> list[str]:
        return [f.name for f in self.features]

    @property
    def weighted_log_emission(self) -> np.ndarray:
        """``log p(bin | state)`` times each feature's weight, shape (F, B, S): what the decoder adds up."""
        return weighted(self.log_emission, self.features, self.hyper)

    def feature_values(
        self,
        words: Sequence[str],
        *,
        starts: np.ndarray | None = None,
        ends: np.ndarray | None = None,
        x_duration: np.ndarray | None = None,
        sentence_starts: np.ndarray | Sequence[int] | None = None,
    ) -> np.ndarray:
        """Raw feature values, shape (n_words, F); ``sentence_starts`` are word indices (None: unpunctuated)."""
        xd = x_duration_of(len(words), starts=starts, ends=ends, x_duration=x_duration)
        return feature_matrix(self.features, self.word_tables, self.vocabulary, words, xd,
                              sentence_starts=sentence_starts)

    def bins_of(self, values: np.ndarray) -> np.ndarray:
        """Bin indices, shape (n_words, F), int64."""
        return np.stack([estimate.apply_bins(values[:, j], e) for j, e in enumerate(self.bin_edges)], axis=1)

    def decode(self, bins: np.ndarray, *, log_penalty: float | None = None) -> np.ndarray:
        """Viterbi state path, shape (n_words,)."""
        penalty = self.hyper.log_penalty if log_penalty is None else log_penalty
        path, _ = viterbi(bins, self.weighted_log_emission, self.log_next, self.log_restart, self.log_init,
                          log_penalty=penalty)
        return path

    def boundary_posterior(self, bins: np.ndarray, *, log_penalty: float | None = None) -> np.ndarray:
        """P(word t starts a story | all words), shape (n_words,)."""
        penalty = self.hyper.log_penalty if log_penalty is None else log_penalty
        posterior, _ = forward_backward(bins, self.weighted_log_emission, self.log_next, self.log_restart, self.log_init,
                                        log_penalty=penalty)
        return posterior

    # ----------------------------------------------------------------- storage
    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` (``.npz`` appended if missing)."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "format_version": FORMAT_VERSION,
            "features": self.feature_names,
            "hyper": asdict(self.hyper),
            "length_tail": self.length_tail,
            "length_tail_excess": self.length_tail_excess,
            "x_duration_floor_seconds": x_duration_floor(self.features),
            "info": self.info,
        }
        arrays: dict[str, np.ndarray] = {
            "header": np.asarray(json.dumps(header)),
            "vocabulary": np.asarray("\n".join(self.vocabulary.words)),
            "emission_counts": self.emission_counts.astype(np.float32),
            "log_emission": self.log_emission,
            "log_next": self.log_next,
            "log_restart": self.log_restart,
            "log_init": self.log_init,
            "length_raw": self.length_raw.astype(np.int32),
            "length_density": self.length_density,
        }
        for name, table in self.word_tables.items():
            arrays[f"table/{name}"] = table.astype(np.float32)
        for j, edges in enumerate(self.bin_edges):
            arrays[f"edges/{j}"] = edges
        with path.open("wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]
        return path

    @classmethod
    def load(cls, path: str | Path) -> SegmentationModel:
        """Read a model written by :meth:`save`.

        Raises
        ------
        ModelError
            If the file is missing, unreadable or of another format.
        """
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as npz:
                data = {k: npz[k] for k in npz.files}
            header = json.loads(str(data["header"]))
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:  # EOFError: an empty file
            raise ModelError(f"{path}: not a readable segmentation model ({exc or type(exc).__name__})") from exc
        if header.get("format_version") != FORMAT_VERSION:
            raise ModelError(f"{path}: model format {header.get('format_version')}, expected {FORMAT_VERSION}")
        unknown = [n for n in header["features"] if n not in FEATURES_BY_NAME]
        if unknown:
            raise ModelError(f"{path}: model uses features this version does not know: {', '.join(unknown)}")
        words = str(data["vocabulary"])
        n_features = len(header["features"])
        return cls(
            features=features_from_header(header),
            vocabulary=Vocabulary(words.split("\n") if words else []),
            word_tables={k[6:]: v.astype(np.float64) for k, v in data.items() if k.startswith("table/")},
            bin_edges=[data[f"edges/{j}"] for j in range(n_features)],
            emission_counts=data["emission_counts"].astype(np.float64),
            log_emission=data["log_emission"],
            log_next=data["log_next"],
            log_restart=data["log_restart"],
            log_init=data["log_init"],
            length_raw=data["length_raw"].astype(np.float64),
            length_density=data["length_density"],
            length_tail=float(header["length_tail"]),
            length_tail_excess=float(header["length_tail_excess"]),
            hyper=Hyperparameters(**header["hyper"]),
            info=header.get("info", {}),
        )


def x_duration_floor(features: Sequence) -> float | None:
    """The X-DURATION floor (seconds) of a model's features, None without X-DURATION."""
    return next((float(f.floor_seconds) for f in features if isinstance(f, XDuration)), None)


def features_from_header(header: dict) -> tuple:
    """A saved model's features by name; X-DURATION with the floor it was trained with (0 before floors)."""
    floor = header.get("x_duration_floor_seconds") or 0.0
    return tuple(replace(FEATURES_BY_NAME[n], floor_seconds=float(floor)) if n == XDuration.name
                 else FEATURES_BY_NAME[n] for n in header["features"])


def weighted(log_emission: np.ndarray, features: Sequence, hyper: Hyperparameters) -> np.ndarray:
    """Each feature's log table times its weight (a copy only when some weight is not 1)."""
    w = np.array([hyper.weight_of(f) for f in features])
    return log_emission if np.all(w == 1.0) else log_emission * w[:, None, None]
