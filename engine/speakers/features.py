"""Kaldi-style log mel filterbank features, the input of CAM++ (numpy only).

The same recipe as Kaldi's ``compute-fbank-feats`` with its defaults and
``dither=0``: 25 ms frames every 10 ms (``snip_edges``), DC offset removed,
pre-emphasis 0.97, Povey window, 512-point power spectrum, 80 triangular bins
on the mel scale from 20 Hz to Nyquist, natural log floored at float epsilon.
"""

from __future__ import annotations

import numpy as np

from engine.errors import ParameterError

SAMPLE_RATE = 16_000
FRAME_LENGTH = 400  # samples (25 ms)
FRAME_SHIFT = 160  # samples (10 ms)
N_FFT = 512
N_MELS = 80
LOW_HZ = 20.0
PREEMPHASIS = 0.97


def _mel(hz: np.ndarray | float) -> np.ndarray:
    return 1127.0 * np.log1p(np.asarray(hz, dtype=np.float64) / 700.0)


def mel_banks(n_mels: int = N_MELS, n_fft: int = N_FFT, sr: int = SAMPLE_RATE) -> np.ndarray:
    """Triangular mel weights, shape (n_fft // 2 + 1, n_mels), Kaldi's construction (zero at Nyquist)."""
    mel_low, mel_high = _mel(LOW_HZ), _mel(sr / 2)
    delta = (mel_high - mel_low) / (n_mels + 1)
    left = mel_low + delta * np.arange(n_mels)
    centre, right = left + delta, left + 2 * delta
    bins = _mel(np.arange(n_fft // 2) * sr / n_fft)[:, None]
    up = (bins - left) / (centre - left)
    down = (right - bins) / (right - centre)
    weights = np.maximum(0.0, np.minimum(up, down))
    return np.vstack([weights, np.zeros((1, n_mels))]).astype(np.float32)


_BANKS = mel_banks()
_WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(FRAME_LENGTH) / (FRAME_LENGTH - 1))) ** 0.85


def n_frames(n_samples: int) -> int:
    """Number of 10 ms frames Kaldi makes of ``n_samples`` samples (``snip_edges``)."""
    return 0 if n_samples < FRAME_LENGTH else 1 + (n_samples - FRAME_LENGTH) // FRAME_SHIFT


def fbank(samples: np.ndarray) -> np.ndarray:
    """Log mel energies of mono 16 kHz ``samples`` (any scale), shape (n_frames, 80), float32."""
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim != 1:
        raise ParameterError(f"fbank needs mono samples, got shape {samples.shape}")
    count = n_frames(samples.size)
    if count == 0:
        return np.zeros((0, N_MELS), dtype=np.float32)
    frames = np.lib.stride_tricks.sliding_window_view(samples, FRAME_LENGTH)[::FRAME_SHIFT][:count]
    frames = frames.astype(np.float64)
    frames = frames - frames.mean(axis=1, keepdims=True)
    frames = np.concatenate([frames[:, :1] * (1 - PREEMPHASIS), frames[:, 1:] - PREEMPHASIS * frames[:, :-1]], axis=1)
    spectrum = np.fft.rfft(frames * _WINDOW, n=N_FFT)
    power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
    return np.log(np.maximum(power @ _BANKS, np.finfo(np.float32).eps))
