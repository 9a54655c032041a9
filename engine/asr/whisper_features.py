"""Whisper's log-mel features a block of frames at a time, so their memory is the output's.

faster-whisper's own extractor takes the short-time Fourier transform of the whole input at
once: about 850 bytes of temporaries per sample, 0.5 GB for ten minutes of audio, which is what
kept ingest's decode chunks short. :func:`log_mel` computes the same numbers (same framing,
window, filter bank and dynamic-range clamp) ``BLOCK_FRAMES`` frames at a time, each block's
samples padded on their own, into one (80, frames) float32 array: 32 KB per second of audio. :func:`lean_extractor` wraps a loaded
model's extractor so that ``WhisperModel.transcribe`` uses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

BLOCK_FRAMES = 1000  # frames per Fourier block (10 s of audio): a few MB of temporaries
END_PADDING = 160  # samples of zeros faster-whisper appends before framing


def log_mel(
    audio: np.ndarray, mel_filters: np.ndarray, *, n_fft: int = 400, hop: int = 160, padding: int = END_PADDING,
) -> np.ndarray:  # fmt: skip
    """Whisper's normalised log-mel spectrogram of mono float samples (n,) -> (mels, frames) float32.

    Frames are centred (reflect padding of ``n_fft // 2``) every ``hop`` samples after ``padding``
    zeros are appended, Hann-windowed; the last frame is dropped, as Whisper does. Each value is
    ``(max(log10(power), peak - 8) + 4) / 4`` with ``peak`` the largest over the whole input.
    """
    samples = np.asarray(audio, dtype=np.float32).ravel()
    half = n_fft // 2
    n_frames = 1 + (samples.size + padding + 2 * half - n_fft) // hop
    window = np.hanning(n_fft + 1)[:-1].astype(np.float32)
    filters = np.asarray(mel_filters, dtype=np.float32)
    out = np.empty((filters.shape[0], n_frames - 1), dtype=np.float32)
    for start in range(0, n_frames - 1, BLOCK_FRAMES):
        stop = min(start + BLOCK_FRAMES, n_frames - 1)
        piece = _padded(samples, padding, half, start * hop, (stop - 1) * hop + n_fft)
        frames = np.lib.stride_tricks.as_strided(
            piece, (stop - start, n_fft), (hop * piece.strides[0], piece.strides[0]), writeable=False
        )
        spectrum = np.fft.rfft(frames * window, n=n_fft, axis=-1).astype(np.complex64)
        power = np.abs(spectrum) ** 2  # (frames, bins)
        out[:, start:stop] = np.log10(np.clip(filters @ power.T, 1e-10, None))
    if out.size:
        np.maximum(out, out.max() - 8.0, out=out)
    out += 4.0
    out /= 4.0
    return out


def _padded(samples: np.ndarray, padding: int, half: int, lo: int, hi: int) -> np.ndarray:
    """Samples ``lo:hi`` (float32) of ``samples`` with ``padding`` zeros appended and ``half`` samples
    reflected at each end (numpy's "reflect" padding, as faster-whisper's), the whole never padded."""
    size = samples.size + padding
    if size <= half:  # shorter than the reflection: numpy reflects it back and forth
        return np.pad(np.pad(samples, (0, padding)), (half, half), mode="reflect")[lo:hi]
    at = np.abs(np.arange(lo - half, hi - half))
    at = np.where(at > size - 1, 2 * (size - 1) - at, at)
    inside = at < samples.size
    return np.where(inside, samples[np.where(inside, at, 0)] if samples.size else 0, 0).astype(np.float32)


def lean_extractor(extractor: Any) -> Any:
    """A ``faster_whisper.FeatureExtractor`` computing what ``extractor`` computes, through :func:`log_mel`."""
    from faster_whisper.feature_extractor import FeatureExtractor  # lazy: imported with the model

    class LeanFeatureExtractor(FeatureExtractor):  # type: ignore[misc]
        def __call__(self, waveform: np.ndarray, padding: int = END_PADDING, chunk_length: int | None = None) -> np.ndarray:
            if chunk_length is not None:  # what the library's extractor does with it
                self.n_samples = chunk_length * self.sampling_rate
                self.nb_max_frames = self.n_samples // self.hop_length
            return log_mel(waveform, self.mel_filters, n_fft=self.n_fft, hop=self.hop_length, padding=padding)

    lean = LeanFeatureExtractor.__new__(LeanFeatureExtractor)
    lean.__dict__.update(vars(extractor))
    return lean
