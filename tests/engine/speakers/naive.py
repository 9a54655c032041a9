"""Slow, obvious twins of the speaker models' layers (loops over every output element)."""

from __future__ import annotations

import numpy as np


def conv1d(x: np.ndarray, w: np.ndarray, *, stride: int = 1, padding: int = 0, dilation: int = 1) -> np.ndarray:
    batch, _, _ = x.shape
    out_ch, in_ch, kernel = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    steps = (x.shape[2] - dilation * (kernel - 1) - 1) // stride + 1
    y = np.zeros((batch, out_ch, steps))
    for b in range(batch):
        for o in range(out_ch):
            for t in range(steps):
                for i in range(in_ch):
                    for k in range(kernel):
                        y[b, o, t] += w[o, i, k] * x[b, i, t * stride + k * dilation]
    return y


def conv2d(x: np.ndarray, w: np.ndarray, *, stride: tuple[int, int], padding: int) -> np.ndarray:
    batch = x.shape[0]
    out_ch, _in_ch, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    rows = (x.shape[2] - kh) // stride[0] + 1
    cols = (x.shape[3] - kw) // stride[1] + 1
    y = np.zeros((batch, out_ch, rows, cols))
    for b in range(batch):
        for o in range(out_ch):
            for r in range(rows):
                for c in range(cols):
                    patch = x[b, :, r * stride[0] : r * stride[0] + kh, c * stride[1] : c * stride[1] + kw]
                    y[b, o, r, c] = float((patch * w[o]).sum())
    return y


def lstm(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray, b_hh: np.ndarray) -> np.ndarray:
    """One forward LSTM direction, one sequence (time, in) -> (time, hidden), the textbook equations."""
    hidden = w_hh.shape[1]
    h = np.zeros(hidden)
    c = np.zeros(hidden)
    out = []
    for x_t in x:
        z = w_ih @ x_t + b_ih + w_hh @ h + b_hh
        i, f, g, o = (z[k * hidden : (k + 1) * hidden] for k in range(4))
        i, f, o = (1 / (1 + np.exp(-v)) for v in (i, f, o))
        c = f * c + i * np.tanh(g)
        h = o * np.tanh(c)
        out.append(h)
    return np.array(out)


def sinc_bandpass(low: float, high: float, kernel: int, sr: int) -> np.ndarray:
    """The even (cosine) SincNet filter from its band edges in Hz, one tap at a time."""
    half = kernel // 2
    taps = []
    window = np.hamming(kernel)
    for n in range(-half, half + 1):
        if n == 0:
            value = 2 * (high - low)
        else:
            t = 2 * np.pi * n / sr
            value = (np.sin(high * t) - np.sin(low * t)) / (t / 2)
        taps.append(value * (window[n + half] if n != 0 else 1.0))
    return np.array(taps) / (2 * (high - low))
