"""pyannote segmentation-3.0 (PyanNet) in numpy: who speaks when inside a 10 s window.

Architecture (Bredin, "pyannote.audio 2.1", Interspeech 2023; Plaquet & Bredin,
"Powerset multi-class cross entropy", Interspeech 2023): SincNet (instance-normed
waveform, 80 parametrised band-pass filters of 251 taps at stride 10 taken in
absolute value, then two 5-tap convolutions to 60 channels, each stage
max-pooled by 3, instance-normed and leaky-ReLU'd), four bidirectional LSTM
layers of 128 units, two 128-unit linear layers with leaky ReLU and a
7-class log-softmax over the *powerset* of at most 2 of 3 local speakers.
One frame every 270 samples (16.875 ms); a 10 s window gives 589 frames.
Weights: pyannote's ``pytorch_model.bin`` (MIT), read with :mod:`engine.speakers.weights`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.errors import ModelError, ParameterError
from engine.speakers.nn import (
    LstmWeights,
    bilstm,
    conv1d_time_major,
    instance_norm_time,
    leaky_relu,
    max_pool_time,
    strided_conv_mono,
)
from engine.speakers.weights import read_state_dict

SAMPLE_RATE = 16_000
WINDOW_SAMPLES = 160_000  # 10 s
FRAME_STEP = 270  # samples between output frames
RECEPTIVE_FIELD = 991  # samples seen by one output frame
N_SPEAKERS = 3
#: Speakers active in each powerset class: none, one of three, or two of three.
POWERSET: tuple[tuple[int, ...], ...] = ((), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2))
SINC_MIN_LOW_HZ = 50.0
SINC_MIN_BAND_HZ = 50.0
LSTM_LAYERS = 4
#: Windows per SincNet pass: its first layer's output is 5 MB a window and its later layers' copies add
#: more; 2 windows took the diarizer's transient from about 160 to 110 MB RSS at the same CPU as 8.
SINCNET_BATCH = 2


def n_frames(n_samples: int) -> int:
    """Output frames for a window of ``n_samples`` samples (convolutions without padding)."""
    t = (n_samples - 251) // 10 + 1
    t = t // 3 - 4
    t = t // 3 - 4
    return max(0, t // 3)


def frame_centres(count: int) -> np.ndarray:
    """Centre of each output frame in seconds from the window start, shape (count,)."""
    return (np.arange(count) * FRAME_STEP + (RECEPTIVE_FIELD - 1) / 2) / SAMPLE_RATE


def sinc_filters(low_hz: np.ndarray, band_hz: np.ndarray, kernel: int = 251, sr: int = SAMPLE_RATE) -> np.ndarray:
    """The 80 SincNet band-pass filters (cosine then sine halves) from their learnt edges, (80, kernel)."""
    half = kernel // 2
    low = SINC_MIN_LOW_HZ + np.abs(low_hz.reshape(-1, 1).astype(np.float64))
    high = np.clip(low + SINC_MIN_BAND_HZ + np.abs(band_hz.reshape(-1, 1)), SINC_MIN_LOW_HZ, sr / 2)
    band = (high - low)[:, 0]
    t = 2 * np.pi * np.arange(-half, 0) / sr  # half time axis, radians per Hz
    window = np.hamming(kernel)[:half]
    cos_left = (np.sin(high * t) - np.sin(low * t)) / (t / 2) * window
    sin_left = (np.cos(low * t) - np.cos(high * t)) / (t / 2) * window
    cos = np.hstack([cos_left, 2 * band[:, None], cos_left[:, ::-1]])
    sin = np.hstack([sin_left, np.zeros((band.size, 1)), -sin_left[:, ::-1]])
    return (np.vstack([cos, sin]) / (2 * np.concatenate([band, band]))[:, None]).astype(np.float32)


class Segmentation:
    """The segmentation network with its weights; ``__call__`` maps windows to powerset log-probabilities."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.w = {k: v.astype(np.float32) for k, v in weights.items() if isinstance(v, np.ndarray) and v.ndim}
        try:
            self.filters = sinc_filters(
                self.w["sincnet.conv1d.0.filterbank.low_hz_"], self.w["sincnet.conv1d.0.filterbank.band_hz_"]
            )
        except KeyError as error:
            raise ModelError(f"segmentation weights lack {error}") from error

    @classmethod
    def load(cls, path: str | Path) -> Segmentation:
        """Read the checkpoint at ``path`` (its ``state_dict``)."""
        content = read_state_dict(path)
        return cls(content.get("state_dict", content))

    def _sincnet(self, x: np.ndarray) -> np.ndarray:
        """(batch, samples) -> (batch, frames, 60), time-major all through."""
        w = self.w
        x = instance_norm_time(x[:, :, None], w["sincnet.wav_norm1d.weight"], w["sincnet.wav_norm1d.bias"])[:, :, 0]
        x = np.abs(strided_conv_mono(np.ascontiguousarray(x), self.filters, stride=10))
        x = leaky_relu(instance_norm_time(max_pool_time(x, 3), w["sincnet.norm1d.0.weight"], w["sincnet.norm1d.0.bias"]))
        for index in (1, 2):
            x = conv1d_time_major(x, w[f"sincnet.conv1d.{index}.weight"], w[f"sincnet.conv1d.{index}.bias"])
            x = max_pool_time(x, 3)
            x = leaky_relu(instance_norm_time(x, w[f"sincnet.norm1d.{index}.weight"], w[f"sincnet.norm1d.{index}.bias"]))
        return x

    def __call__(self, windows: np.ndarray) -> np.ndarray:
        """Powerset log-probabilities of (batch, samples) float windows at 16 kHz -> (batch, frames, 7)."""
        if windows.ndim != 2 or windows.shape[1] < RECEPTIVE_FIELD:
            raise ParameterError(f"segmentation needs (batch, >= {RECEPTIVE_FIELD} samples), got {windows.shape}")
        w = self.w
        # SincNet a few windows at a time (its first layer is 80 channels at 1.6 kHz); the LSTM takes the
        # whole batch, whose per-step cost is mostly fixed overhead
        x = np.concatenate([self._sincnet(windows[i : i + SINCNET_BATCH].astype(np.float32))
                            for i in range(0, windows.shape[0], SINCNET_BATCH)])
        for layer in range(LSTM_LAYERS):
            directions = [
                LstmWeights(*(w[f"lstm.{n}_l{layer}{suffix}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))
                for suffix in ("", "_reverse")
            ]
            x = bilstm(x, *directions)
        for index in (0, 1):
            x = leaky_relu(x @ w[f"linear.{index}.weight"].T + w[f"linear.{index}.bias"])
        logits = x @ w["classifier.weight"].T + w["classifier.bias"]
        shifted = logits - logits.max(axis=-1, keepdims=True)
        return (shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))).astype(np.float32)


def powerset_to_speakers(log_probs: np.ndarray) -> np.ndarray:
    """Hard multi-label activity from powerset log-probabilities: (..., frames, 7) -> (..., frames, 3) of 0/1."""
    mapping = np.zeros((len(POWERSET), N_SPEAKERS), dtype=np.float32)
    for index, speakers in enumerate(POWERSET):
        mapping[index, list(speakers)] = 1.0
    return mapping[np.argmax(log_probs, axis=-1)]
