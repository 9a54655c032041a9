"""The waveform overview: min/max envelope of a recording at a fixed number of bins per second, cached.

Not a widget; runs as a pool task. Audio is decoded block by block through
:func:`engine.audio.decode.iter_pcm_blocks` (flat memory however long the
recording), at a low rate since only the envelope is drawn. The envelope is
kept in the cache folder under the recording's content hash, so a recording is
decoded for the overview once.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

from engine.audio.decode import iter_pcm_blocks
from engine.jobs import JobReport
from engine.paths import cache_dir

#: Envelope resolution: bins per second of audio (one bin is 20 ms).
BINS_PER_SECOND = 50
#: Rate the overview decodes at, Hz (a multiple of BINS_PER_SECOND).
ENVELOPE_SAMPLE_RATE = 8000
_BLOCK_SECONDS = 2.0


def envelope_cache_path(content_hash: str) -> Path:
    return cache_dir() / "waveforms" / f"{content_hash}-{BINS_PER_SECOND}.npy"


def load_envelope(path: str, content_hash: str, duration: float, report: JobReport) -> np.ndarray:
    """The recording's envelope, shape (n_bins, 2), int16 columns (min, max); from the cache when there.

    ``report.progress`` gets (seconds decoded, duration); cancelling raises Cancelled between blocks.
    """
    cached = envelope_cache_path(content_hash) if content_hash else None
    if cached is not None and cached.is_file():
        with contextlib.suppress(OSError, ValueError, EOFError):  # a damaged cache file is computed again
            envelope = np.load(cached)
            if envelope.ndim == 2 and envelope.shape[1] == 2:
                return envelope
    envelope = compute_envelope(path, duration, report)
    if cached is not None:
        _save(cached, envelope)
    return envelope


def compute_envelope(path: str, duration: float, report: JobReport) -> np.ndarray:
    """Decode ``path`` and reduce each bin of samples to its minimum and maximum."""
    per_bin = ENVELOPE_SAMPLE_RATE // BINS_PER_SECOND
    parts: list[np.ndarray] = []
    carry = np.zeros(0, dtype=np.int16)
    done = 0.0
    for block in iter_pcm_blocks(path, sr=ENVELOPE_SAMPLE_RATE, block_seconds=_BLOCK_SECONDS):
        report.cancel.raise_if_cancelled()
        samples = np.concatenate([carry, block]) if carry.size else block
        whole = samples.size - samples.size % per_bin
        if whole:
            parts.append(_min_max(samples[:whole], per_bin))
        carry = samples[whole:]
        done += block.size / ENVELOPE_SAMPLE_RATE
        report.progress(done, max(duration, done))
    if carry.size:
        parts.append(_min_max(carry, carry.size))
    return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int16)


def _min_max(samples: np.ndarray, per_bin: int) -> np.ndarray:
    bins = samples.reshape(-1, per_bin)
    return np.stack([bins.min(axis=1), bins.max(axis=1)], axis=1).astype(np.int16)


def columns(envelope: np.ndarray, start: float, span: float, width: int) -> np.ndarray:
    """Reduce the envelope to ``width`` pixel columns covering [start, start + span) seconds.

    Returns float array shape (width, 2) in [-1, 1]; columns outside the audio are 0.
    """
    out = np.zeros((max(0, width), 2), dtype=np.float64)
    n = envelope.shape[0]
    if width <= 0 or n == 0 or span <= 0:
        return out
    edges = np.floor((start + span * np.arange(width + 1) / width) * BINS_PER_SECOND).astype(np.int64)
    lo, hi = np.clip(edges[:-1], 0, n), np.clip(edges[1:], 0, n)
    hi = np.maximum(hi, np.minimum(lo + 1, n))  # every column shows at least the bin it falls in
    valid = lo < hi
    if not valid.any():
        return out
    starts = lo[valid]
    # reduceat reduces from each start to the next one; cutting the array at the last end bounds the last column.
    clipped = envelope[: hi[valid][-1]]
    mins = np.minimum.reduceat(clipped[:, 0], starts)
    maxs = np.maximum.reduceat(clipped[:, 1], starts)
    out[valid, 0] = mins / 32768.0
    out[valid, 1] = maxs / 32768.0
    return out


def _save(path: Path, envelope: np.ndarray) -> None:
    """Write atomically; a cache that cannot be written is not an error."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, envelope)
        os.replace(tmp, path)
