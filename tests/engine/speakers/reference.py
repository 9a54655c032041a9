"""The segmentation network as it ran before its layers were made fast: channels first, one
unfolded matrix for the SincNet filters, and an LSTM step with the gates in PyTorch's order.
The fast path must give the same powerset log-probabilities on real audio."""

from __future__ import annotations

import numpy as np

from engine.speakers.nn import conv1d, leaky_relu
from engine.speakers.segmentation import LSTM_LAYERS, Segmentation


def _instance_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(batch, channels, time), each row normalised over time."""
    y = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)
    return y * weight[None, :, None] + bias[None, :, None]


def _max_pool(x: np.ndarray, size: int) -> np.ndarray:
    count = x.shape[-1] // size
    return x[..., : count * size].reshape(*x.shape[:-1], count, size).max(axis=-1)


def _bilstm(x: np.ndarray, w: dict[str, np.ndarray], layer: int) -> np.ndarray:
    """(batch, time, in) -> (batch, time, 256), each direction stepped on its own."""
    outputs = []
    for suffix, seq in (("", x), ("_reverse", x[:, ::-1])):
        w_ih, w_hh = w[f"lstm.weight_ih_l{layer}{suffix}"], w[f"lstm.weight_hh_l{layer}{suffix}"]
        bias = w[f"lstm.bias_ih_l{layer}{suffix}"] + w[f"lstm.bias_hh_l{layer}{suffix}"]
        hidden = w_hh.shape[1]
        h = np.zeros((x.shape[0], hidden), dtype=np.float32)
        c = np.zeros_like(h)
        steps = []
        for t in range(seq.shape[1]):
            z = seq[:, t] @ w_ih.T + h @ w_hh.T + bias
            i, f, g, o = (z[:, k * hidden : (k + 1) * hidden] for k in range(4))
            c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(g)
            h = 1 / (1 + np.exp(-o)) * np.tanh(c)
            steps.append(h)
        out = np.stack(steps, axis=1)
        outputs.append(out if suffix == "" else out[:, ::-1])
    return np.concatenate(outputs, axis=2)


def segmentation_log_probs(model: Segmentation, windows: np.ndarray) -> np.ndarray:
    """(batch, samples) -> (batch, frames, 7), the previous way."""
    w = model.w
    x = _instance_norm(windows[:, None, :].astype(np.float32), w["sincnet.wav_norm1d.weight"], w["sincnet.wav_norm1d.bias"])
    x = np.abs(conv1d(x, model.filters[:, None, :], stride=10))
    x = leaky_relu(_instance_norm(_max_pool(x, 3), w["sincnet.norm1d.0.weight"], w["sincnet.norm1d.0.bias"]))
    for index in (1, 2):
        x = _max_pool(conv1d(x, w[f"sincnet.conv1d.{index}.weight"], w[f"sincnet.conv1d.{index}.bias"]), 3)
        x = leaky_relu(_instance_norm(x, w[f"sincnet.norm1d.{index}.weight"], w[f"sincnet.norm1d.{index}.bias"]))
    x = x.transpose(0, 2, 1)
    for layer in range(LSTM_LAYERS):
        x = _bilstm(x, w, layer)
    for index in (0, 1):
        x = leaky_relu(x @ w[f"linear.{index}.weight"].T + w[f"linear.{index}.bias"])
    logits = x @ w["classifier.weight"].T + w["classifier.bias"]
    logits = logits - logits.max(axis=-1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
