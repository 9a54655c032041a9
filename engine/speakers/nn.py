"""The few neural-network layers the speaker models need, in numpy (float32, inference only).

Arrays are batch-first: CAM++'s 1-D signals (batch, channels, time) and 2-D maps
(batch, channels, height, width); segmentation's time-major (batch, time, channels).
Convolutions are cross-correlations as in PyTorch, computed as matrix products over
unfolded windows, strided views or shifted slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BN_EPS = 1e-5
LSTM_CHUNK_STEPS = 64  # LSTM steps whose input projections are made at once (memory does not grow with the batch's length)


def batchnorm_affine(weights: dict[str, np.ndarray], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """Inference batch norm ``prefix`` as a per-channel ``(scale, shift)``, each (channels,) float32.

    Running statistics ``prefix.running_mean`` etc.; a missing ``prefix.weight``/``prefix.bias`` means no affine part.
    """
    scale = 1.0 / np.sqrt(weights[f"{prefix}.running_var"] + BN_EPS)
    shift = -weights[f"{prefix}.running_mean"] * scale
    if f"{prefix}.weight" in weights:
        scale = scale * weights[f"{prefix}.weight"]
        shift = shift * weights[f"{prefix}.weight"] + weights[f"{prefix}.bias"]
    return scale.astype(np.float32), shift.astype(np.float32)


def batchnorm(x: np.ndarray, weights: dict[str, np.ndarray], prefix: str) -> np.ndarray:
    """Inference batch norm over axis 1 (see :func:`batchnorm_affine`)."""
    scale, shift = batchnorm_affine(weights, prefix)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x * scale.reshape(shape) + shift.reshape(shape)).astype(np.float32)


def fold_batchnorm(weight: np.ndarray, weights: dict[str, np.ndarray], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """A bias-free convolution ``weight`` (out, ...) followed by batch norm ``prefix`` as one convolution: (weight, bias)."""
    scale, shift = batchnorm_affine(weights, prefix)
    return (weight * scale.reshape((-1,) + (1,) * (weight.ndim - 1))).astype(np.float32), shift


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, dtype=np.float32)


def leaky_relu(x: np.ndarray, slope: float = 0.01) -> np.ndarray:
    return np.maximum(x, slope * x).astype(np.float32, copy=False)  # slope < 1


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
    out_channels, in_channels, kernel = weight.shape
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    steps = (x.shape[2] - dilation * (kernel - 1) - 1) // stride + 1
    if kernel == 1 and stride == 1:
        cols = x
    else:  # (batch, in, kernel, time') -> (batch, in * kernel, time'), the weight's own order
        span = stride * (steps - 1) + 1
        taps = [x[:, :, j * dilation : j * dilation + span : stride] for j in range(kernel)]
        cols = np.stack(taps, axis=2).reshape(x.shape[0], in_channels * kernel, steps)
    y = np.matmul(weight.reshape(out_channels, in_channels * kernel), cols)
    if bias is not None:
        y += bias[None, :, None]
    return y.astype(np.float32, copy=False)


def conv2d(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None = None,
    *,
    stride: tuple[int, int] = (1, 1),
    padding: int = 0,
) -> np.ndarray:
    """(batch, in, H, W) * (out, in, kh, kw) (+ (out,)) -> (batch, out, H', W')."""
    out_channels, in_channels, kh, kw = weight.shape
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    rows = (x.shape[2] - kh) // stride[0] + 1
    cols = (x.shape[3] - kw) // stride[1] + 1
    taps = [
        x[:, :, i : i + stride[0] * (rows - 1) + 1 : stride[0], j : j + stride[1] * (cols - 1) + 1 : stride[1]]
        for i in range(kh)
        for j in range(kw)
    ]
    unfolded = np.stack(taps, axis=2).reshape(x.shape[0], in_channels * kh * kw, rows * cols)
    y = np.matmul(weight.reshape(out_channels, -1), unfolded)
    if bias is not None:
        y += bias[None, :, None]
    return y.reshape(x.shape[0], out_channels, rows, cols).astype(np.float32, copy=False)


def strided_conv_mono(x: np.ndarray, filters: np.ndarray, *, stride: int) -> np.ndarray:
    """(batch, time) * (out, kernel) -> (batch, time', out), time-major, one window at a time.

    Each window's frames are a strided view of its samples (no unfolded copy of the batch).
    """
    out_channels, kernel = filters.shape
    steps = (x.shape[1] - kernel) // stride + 1
    item = x.strides[1]
    taps = np.ascontiguousarray(filters.T, dtype=np.float32)
    y = np.empty((x.shape[0], steps, out_channels), dtype=np.float32)
    for b in range(x.shape[0]):
        frames = np.lib.stride_tricks.as_strided(x[b], shape=(steps, kernel), strides=(stride * item, item), writeable=False)
        np.matmul(frames, taps, out=y[b])
    return y


def conv1d_time_major(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(batch, time, in) * (out, in, kernel) + (out,) -> (batch, time - kernel + 1, out), stride 1.

    One matrix product per tap over contiguous time slices.
    """
    kernel = weight.shape[2]
    steps = x.shape[1] - kernel + 1
    y = np.matmul(x[:, :steps], weight[:, :, 0].T)
    for j in range(1, kernel):
        y += np.matmul(x[:, j : j + steps], weight[:, :, j].T)
    y += bias
    return y.astype(np.float32, copy=False)


def max_pool_time(x: np.ndarray, size: int) -> np.ndarray:
    """Non-overlapping max over ``size`` steps of axis 1 of (batch, time, channels); a partial tail is dropped."""
    count = x.shape[1] // size
    y = x[:, 0 : count * size : size].copy()
    for j in range(1, size):
        np.maximum(y, x[:, j : count * size : size], out=y)
    return y


def instance_norm_time(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = BN_EPS) -> np.ndarray:
    """Normalise each (batch, channel) over axis 1 of (batch, time, channels), then scale and shift per channel."""
    mean = x.mean(axis=1, keepdims=True)
    var = np.square(x - mean).mean(axis=1, keepdims=True)
    scale = weight / np.sqrt(var + eps)
    return (x * scale + (bias - mean * scale)).astype(np.float32, copy=False)


def bilstm(x: np.ndarray, forward: LstmWeights, backward: LstmWeights) -> np.ndarray:
    """One bidirectional LSTM layer (gates i, f, g, o as PyTorch): (batch, time, in) -> (batch, time, 2 * hidden).

    Both directions advance in the same loop, one batched matrix product per step. The gates are
    reordered i, f, o, g with i, f, o pre-scaled by 1/2, so one tanh gives all four:
    sigmoid(z) = (1 + tanh(z / 2)) / 2.
    """
    batch, steps, _ = x.shape
    hidden = forward.w_hh.shape[1]
    order = np.r_[0 : 2 * hidden, 3 * hidden : 4 * hidden, 2 * hidden : 3 * hidden]
    scale = np.ones(4 * hidden, dtype=np.float32)
    scale[: 3 * hidden] = 0.5
    w_ih = np.stack([w.w_ih[order].T * scale for w in (forward, backward)]).astype(np.float32)  # (2, in, 4 hidden)
    w_hh = np.stack([w.w_hh[order].T * scale for w in (forward, backward)]).astype(np.float32)  # (2, hidden, 4 hidden)
    bias = np.stack([(w.b_ih + w.b_hh)[order] * scale for w in (forward, backward)]).astype(np.float32)
    by_time = np.ascontiguousarray(x.transpose(1, 0, 2), dtype=np.float32)  # (time, batch, in)
    h = np.zeros((2, batch, hidden), dtype=np.float32)
    c = np.zeros((2, batch, hidden), dtype=np.float32)
    gates = np.empty((2, batch, 4 * hidden), dtype=np.float32)
    cell = np.empty_like(c)
    out = np.empty((steps, 2, batch, hidden), dtype=np.float32)
    for t0 in range(0, steps, LSTM_CHUNK_STEPS):
        inputs = _lstm_inputs(by_time, w_ih, bias, t0, min(LSTM_CHUNK_STEPS, steps - t0))
        for k, step_inputs in enumerate(inputs):
            np.matmul(h, w_hh, out=gates)
            gates += step_inputs
            np.tanh(gates, out=gates)
            sig = gates[..., : 3 * hidden]
            sig *= 0.5
            sig += 0.5
            c *= gates[..., hidden : 2 * hidden]
            np.multiply(gates[..., :hidden], gates[..., 3 * hidden :], out=cell)
            c += cell
            np.tanh(c, out=cell)
            np.multiply(gates[..., 2 * hidden : 3 * hidden], cell, out=h)
            out[t0 + k] = h
    return np.concatenate([out[:, 0].transpose(1, 0, 2), out[::-1, 1].transpose(1, 0, 2)], axis=2)


def _lstm_inputs(by_time: np.ndarray, w_ih: np.ndarray, bias: np.ndarray, t0: int, count: int) -> np.ndarray:
    """Input projections of ``count`` steps from step ``t0``: (count, 2, batch, 4 hidden), the
    forward direction at steps t0.. beside the backward one at steps T-1-t0.. (it runs reversed)."""
    steps, batch, size = by_time.shape
    inputs = np.empty((count, 2, batch, w_ih.shape[2]), dtype=np.float32)
    rows = (by_time[t0 : t0 + count], by_time[steps - t0 - count : steps - t0])
    for direction, seq in enumerate(rows):
        projected = np.matmul(seq.reshape(-1, size), w_ih[direction]).reshape(count, batch, -1)
        projected += bias[direction]
        inputs[:, direction] = projected if direction == 0 else projected[::-1]
    return inputs


@dataclass(frozen=True)
class LstmWeights:
    """One LSTM direction's weights: (4 hidden, in), (4 hidden, hidden), two (4 hidden,) biases."""

    w_ih: np.ndarray
    w_hh: np.ndarray
    b_ih: np.ndarray
    b_hh: np.ndarray
