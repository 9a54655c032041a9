"""The few neural-network layers the speaker models need, in numpy (float32, inference only).

Arrays are batch-first: 1-D signals (batch, channels, time), 2-D maps
(batch, channels, height, width). Convolutions are cross-correlations as in
PyTorch, computed as one matrix product over unfolded windows.
"""

from __future__ import annotations

import numpy as np

BN_EPS = 1e-5


def batchnorm(x: np.ndarray, weights: dict[str, np.ndarray], prefix: str) -> np.ndarray:
    """Inference batch norm over axis 1 with running statistics ``prefix.running_mean`` etc.

    A missing ``prefix.weight``/``prefix.bias`` means no affine part.
    """
    scale = 1.0 / np.sqrt(weights[f"{prefix}.running_var"] + BN_EPS)
    shift = -weights[f"{prefix}.running_mean"] * scale
    if f"{prefix}.weight" in weights:
        scale = scale * weights[f"{prefix}.weight"]
        shift = shift * weights[f"{prefix}.weight"] + weights[f"{prefix}.bias"]
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x * scale.reshape(shape) + shift.reshape(shape)).astype(np.float32)


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, dtype=np.float32)


def leaky_relu(x: np.ndarray, slope: float = 0.01) -> np.ndarray:
    return np.where(x > 0, x, slope * x).astype(np.float32)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return (0.5 * (1.0 + np.tanh(0.5 * x))).astype(np.float32)


def conv1d(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None = None,
    *,
    stride: int = 1,
    padding: int = 0,
    dilation: int = 1,
) -> np.ndarray:
    """(batch, in, time) * (out, in, kernel) -> (batch, out, time')."""
    _out_channels, _in_channels, kernel = weight.shape
    if kernel == 1 and stride == 1 and padding == 0:
        y = np.einsum("oi,bit->bot", weight[:, :, 0], x, optimize=True)
    else:
        if padding:
            x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
        span = dilation * (kernel - 1) + 1
        windows = np.lib.stride_tricks.sliding_window_view(x, span, axis=2)[:, :, ::stride, ::dilation]
        # windows: (batch, in, time', kernel)
        y = np.tensordot(windows, weight, axes=([1, 3], [1, 2])).transpose(0, 2, 1)
    if bias is not None:
        y = y + bias[None, :, None]
    return np.ascontiguousarray(y, dtype=np.float32)


def conv2d(x: np.ndarray, weight: np.ndarray, *, stride: tuple[int, int] = (1, 1), padding: int = 0) -> np.ndarray:
    """(batch, in, H, W) * (out, in, kh, kw) -> (batch, out, H', W'), no bias."""
    _, _, kh, kw = weight.shape
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, :: stride[0], :: stride[1]]
    # windows: (batch, in, H', W', kh, kw)
    y = np.tensordot(windows, weight, axes=([1, 4, 5], [1, 2, 3]))  # (batch, H', W', out)
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2), dtype=np.float32)


def max_pool1d(x: np.ndarray, size: int) -> np.ndarray:
    """Non-overlapping max over ``size`` steps of the last axis (a partial tail is dropped)."""
    count = x.shape[-1] // size
    return x[..., : count * size].reshape(*x.shape[:-1], count, size).max(axis=-1)


def instance_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = BN_EPS) -> np.ndarray:
    """Normalise each (batch, channel) row over time, then scale and shift per channel."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return (y * weight[None, :, None] + bias[None, :, None]).astype(np.float32)


def lstm_direction(
    x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray, b_hh: np.ndarray, *, reverse: bool
) -> np.ndarray:
    """One LSTM direction (gates i, f, g, o as PyTorch): (batch, time, in) -> (batch, time, hidden)."""
    batch, steps, _ = x.shape
    hidden = w_hh.shape[1]
    inputs = (x @ w_ih.T + (b_ih + b_hh)).astype(np.float32)
    h = np.zeros((batch, hidden), dtype=np.float32)
    c = np.zeros((batch, hidden), dtype=np.float32)
    out = np.empty((batch, steps, hidden), dtype=np.float32)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        gates = inputs[:, t] + h @ w_hh_t
        i = sigmoid(gates[:, :hidden])
        f = sigmoid(gates[:, hidden : 2 * hidden])
        g = np.tanh(gates[:, 2 * hidden : 3 * hidden])
        o = sigmoid(gates[:, 3 * hidden :])
        c = f * c + i * g
        h = o * np.tanh(c)
        out[:, t] = h
    return out
