"""Compact per-frame features of a recording, computed block by block.

:class:`FeatureExtractor` takes int16 (or float) mono blocks of any length in order
and keeps only a handful of float32 numbers per 10 ms frame, never the audio:
an hour costs about 16 MB of features, held in a temporary file past the first
megabyte of each (``config.FEATURE_SPILL_BYTES``). Frame ``t`` is centred on ``t * hop / sr``
seconds (the stream is padded with half a window of zeros at both ends, like
``librosa.stft(center=True)``). All the work per block is vectorised over its frames.

Features (each a float32 array of shape ``(n_frames,)``):

``energy_db``
    Level of the Hann-windowed frame, dB relative to full scale (RMS; a full-scale
    sine reads about -3 dB).
``vowel_db``
    Level of the 300-2500 Hz band (where vowel formants are), dB, same reference.
``flatness``
    log10 of the spectral flatness (geometric over arithmetic mean) of mel band
    power densities within 250-7000 Hz: 0 for white noise, about -3 for a chord.
``flux``
    Mean positive change of the log mel spectrum since the previous frame (onsets).
``voicing``
    Peak of the normalised autocorrelation over lags of 75-400 Hz (Boersma's window
    correction), in [0, 1]: near 1 in vowels and held notes, near 0.2 in noise.
``chroma_stability``
    Cosine similarity of the chroma vector with the one 100 ms earlier, in [0, 1].
``shape_stability``
    Cosine similarity of the spectral shape (log mel bands below 6 kHz, mean removed)
    with the one 50 ms earlier, in [-1, 1]: high within a held vowel or a noise,
    low across the quick articulation changes of speech.

Plus ``cepstrum``, float16 of shape ``(n_frames, N_CEPSTRA)``: cepstral coefficients
c1..c8 (orthonormal DCT-II of the natural-log mel band powers, the spectral envelope
without its level), and ``vad``, uint8 of shape ``(n_vad_frames,)``: webrtcvad's decision per 30 ms frame.

With an :class:`~engine.detect.audioset.AudioSetModel` given, also ``audioset``: float16 of
shape ``(n_patches, 521)``, YAMNet's AudioSet logits every 0.48 s (:mod:`engine.detect.audioset`; only the
columns of ``audioset_classes`` when the extractor was told them);
otherwise ``None``.
"""

from __future__ import annotations

import mmap
import tempfile
from dataclasses import dataclass, fields
from typing import IO

import numpy as np
import scipy.fft
import webrtcvad
from threadpoolctl import ThreadpoolController

from engine.detect import config
from engine.detect.audioset import PATCH_HOP_SECONDS, AudioSetModel, AudioSetStream
from engine.detect.frames import dc_block, periodic_hann
from engine.errors import ParameterError, StorageError

#: First-order DC blocker y[n] = x[n] - x[n-1] + DC_POLE * y[n-1].
DC_POLE = 0.995

#: Small per-block matrix products run on one BLAS thread: with more, OpenBLAS spends
#: far longer waking and spinning its threads than multiplying (30 s instead of 4 s an hour).
_BLAS: ThreadpoolController | None = None

FEATURE_NAMES = ("energy_db", "vowel_db", "flatness", "flux", "voicing", "chroma_stability", "shape_stability")
#: Every per-frame array kept: the scalar features and the cepstrum (c1..c8 per frame).
FRAME_ARRAYS = (*FEATURE_NAMES, "cepstrum")


def chroma_filters(*, sr: int, n_fft: int, n_chroma: int = 12, centre_octave: float = 5.0, octave_width: float = 2.0
                   ) -> np.ndarray:
    """Chroma filter bank, shape (n_chroma, 1 + n_fft // 2), rows from C: ``librosa.filters.chroma`` with
    its defaults (Gaussian bumps around each pitch class, columns of unit L2 norm, weighted by a Gaussian
    over octaves centred on ``centre_octave`` and ``octave_width`` octaves wide).

    Computed here because librosa's version imports ``librosa.util``, whose numba ufuncs compile on import
    (0.7 s of CPU in every recognition worker).
    """
    frequencies = np.linspace(0, sr, n_fft, endpoint=False)[1:]
    bins = n_chroma * np.log2(frequencies / (440.0 / 16))  # pitch classes above the C four octaves under A440
    bins = np.concatenate(([bins[0] - 1.5 * n_chroma], bins))
    widths = np.concatenate((np.maximum(bins[1:] - bins[:-1], 1.0), [1.0]))
    half = np.round(n_chroma / 2)
    distance = np.remainder(np.subtract.outer(bins, np.arange(n_chroma, dtype=np.float64)).T + half + 10 * n_chroma,
                            n_chroma) - half  # fmt: skip
    weights = np.exp(-0.5 * (2 * distance / widths[np.newaxis, :]) ** 2)
    norms = np.sqrt(np.sum(weights**2, axis=0))
    norms[norms < np.finfo(weights.dtype).tiny] = 1.0
    weights /= norms
    weights *= np.exp(-0.5 * ((bins / n_chroma - centre_octave) / octave_width) ** 2)[np.newaxis, :]
    weights = np.roll(weights, -3 * (n_chroma // 12), axis=0)  # rows from C, not A
    return np.ascontiguousarray(weights[:, : 1 + n_fft // 2])


_MEL_SPACING_HZ = 200.0 / 3  # Slaney's mel scale: one mel per 66.7 Hz up to 1 kHz,
_LOG_FROM_MEL = 1000.0 / _MEL_SPACING_HZ  # ... then a factor of 6.4 every 27 mels
_LOG_STEP = np.log(6.4) / 27.0


def _hz_to_slaney_mel(hz: np.ndarray) -> np.ndarray:
    """Frequencies in Hz (any shape) on Slaney's mel scale: linear below 1 kHz, logarithmic above."""
    hz = np.asarray(hz, dtype=np.float64)
    mels = hz / _MEL_SPACING_HZ
    log_t = hz >= 1000.0
    mels[log_t] = _LOG_FROM_MEL + np.log(hz[log_t] / 1000.0) / _LOG_STEP
    return mels


def slaney_mel_frequencies(n_mels: int, *, fmin: float, fmax: float) -> np.ndarray:
    """``n_mels`` frequencies in Hz (float64, shape ``(n_mels,)``) evenly spaced on Slaney's mel scale
    from ``fmin`` to ``fmax``: ``librosa.mel_frequencies`` with ``htk=False``, the same numbers."""
    lo, hi = _hz_to_slaney_mel(np.array([fmin, fmax]))
    mels = np.linspace(lo, hi, n_mels)
    freqs = _MEL_SPACING_HZ * mels
    log_t = mels >= _LOG_FROM_MEL
    freqs[log_t] = 1000.0 * np.exp(_LOG_STEP * (mels[log_t] - _LOG_FROM_MEL))
    return freqs


def slaney_mel_filters(*, sr: int, n_fft: int, n_mels: int, fmin: float = 0.0, fmax: float | None = None
                       ) -> np.ndarray:
    """Mel filter bank, float32 shape ``(n_mels, 1 + n_fft // 2)``: triangles on Slaney's mel scale, each
    scaled to about constant energy: ``librosa.filters.mel(norm="slaney")``, the same numbers.

    Computed here because importing ``librosa.filters`` imports SciPy's signal and statistics packages
    (half a second of CPU in every recognition worker).
    """
    fmax = sr / 2 if fmax is None else fmax
    weights = np.zeros((n_mels, 1 + n_fft // 2), dtype=np.float32)
    fftfreqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sr)
    mel_f = slaney_mel_frequencies(n_mels + 2, fmin=fmin, fmax=fmax)
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fftfreqs)
    for i in range(n_mels):
        weights[i] = np.maximum(0, np.minimum(-ramps[i] / fdiff[i], ramps[i + 2] / fdiff[i + 1]))
    weights *= (2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels]))[:, np.newaxis]
    return weights


@dataclass(frozen=True)
class FrameFeatures:
    """Per-frame features of one recording (see the module docstring for each field).

    ``sr`` is the sample rate in Hz, ``hop_length`` the hop between frames in samples
    and ``vad_frame_length`` the webrtcvad frame in samples.
    """

    energy_db: np.ndarray
    vowel_db: np.ndarray
    flatness: np.ndarray
    flux: np.ndarray
    voicing: np.ndarray
    chroma_stability: np.ndarray
    shape_stability: np.ndarray
    cepstrum: np.ndarray
    vad: np.ndarray
    sr: int
    hop_length: int
    vad_frame_length: int
    audioset: np.ndarray | None = None
    #: The AudioSet classes of ``audioset``'s columns, in order; None: all 521 in the tagger's order.
    audioset_classes: tuple[str, ...] | None = None

    @property
    def n_frames(self) -> int:
        return int(self.energy_db.shape[0])

    @property
    def frame_seconds(self) -> float:
        return self.hop_length / self.sr

    @property
    def vad_frame_seconds(self) -> float:
        return self.vad_frame_length / self.sr

    @property
    def duration(self) -> float:
        """Seconds of audio covered by the frames."""
        return self.n_frames * self.frame_seconds

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in fields(self) if isinstance(getattr(self, f.name), np.ndarray))

    def slice(self, start: float, end: float) -> FrameFeatures:
        """The frames between ``start`` and ``end`` seconds (a view, for tests and plots)."""
        a, b = round(start / self.frame_seconds), round(end / self.frame_seconds)
        va, vb = round(start / self.vad_frame_seconds), round(end / self.vad_frame_seconds)
        arrays = {name: getattr(self, name)[a:b] for name in FRAME_ARRAYS}
        audioset = None
        if self.audioset is not None:
            audioset = self.audioset[round(start / PATCH_HOP_SECONDS) : round(end / PATCH_HOP_SECONDS)]
        return FrameFeatures(**arrays, vad=self.vad[va:vb], sr=self.sr, hop_length=self.hop_length,
                             vad_frame_length=self.vad_frame_length, audioset=audioset,
                             audioset_classes=self.audioset_classes)  # fmt: skip


class _Growing:
    """An append-only float32/float16/uint8 column, one value per frame or ``width`` values a frame.

    Chunks are held in memory until they reach ``spill_bytes``; then they go to an anonymous
    temporary file (deleted when closed), so a long recording's features do not grow the process
    while it streams (about 16 MB an hour). :meth:`array` then maps that file read-only: pages are
    read as the analysis reaches them and belong to the page cache, not the heap.
    """

    def __init__(self, dtype: type, width: int = 0, spill_bytes: int | None = None) -> None:
        self._dtype = np.dtype(dtype)
        self._width = width  # 0: one value per frame; else this many per frame
        self._chunks: list[np.ndarray] = []
        self._held = 0  # bytes in self._chunks
        self._spill_bytes = config.FEATURE_SPILL_BYTES if spill_bytes is None else spill_bytes
        self._file: IO[bytes] | None = None
        self._spilled = 0  # bytes in self._file

    def append(self, values: np.ndarray) -> None:
        if values.size:
            chunk = np.ascontiguousarray(values, dtype=self._dtype)
            self._chunks.append(chunk)
            self._held += chunk.nbytes
            if self._held >= self._spill_bytes:
                self._spill()

    def _spill(self) -> None:
        """Write the held chunks to the column's temporary file."""
        try:
            if self._file is None:
                self._file = tempfile.TemporaryFile(prefix="earshot-features-")  # noqa: SIM115 (lives as long as the column)
            for chunk in self._chunks:
                self._file.write(chunk.data)
            self._file.flush()
        except OSError as error:
            raise StorageError(f"cannot keep a recording's sound features in the temporary folder "
                               f"{tempfile.gettempdir()}: {error.strerror or error}") from error  # fmt: skip
        self._spilled += self._held
        self._chunks, self._held = [], 0

    def array(self) -> np.ndarray:
        """Every value appended, shape (frames,) or (frames, width); read-only once spilled."""
        if self._file is not None:
            if self._chunks:
                self._spill()
            mapped = mmap.mmap(self._file.fileno(), self._spilled, access=mmap.ACCESS_READ)
            values = np.frombuffer(mapped, dtype=self._dtype)
            return values.reshape(-1, self._width) if self._width else values
        if not self._chunks:
            return np.zeros((0, self._width) if self._width else 0, dtype=self._dtype)
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0]


class FeatureExtractor:
    """Streaming front end: :meth:`feed` blocks in order, then :meth:`finish` once.

    Parameters
    ----------
    sr : sample rate in Hz, one of 8000, 16000, 32000, 48000.
    vad_aggressiveness : webrtcvad mode, 0 (least) to 3 (most aggressive in rejecting non-speech).
    audioset : when given, AudioSet logits are computed too (``FrameFeatures.audioset``).
    audioset_classes : with ``audioset``, the classes whose logits are kept (default all 521).
    """

    def __init__(self, *, sr: int = 16000, vad_aggressiveness: int = 2, audioset: AudioSetModel | None = None,
                 audioset_classes: tuple[str, ...] | None = None) -> None:  # fmt: skip
        if sr not in config.SAMPLE_RATES:
            raise ParameterError(f"sr must be one of {config.SAMPLE_RATES} Hz, got {sr}")
        if vad_aggressiveness not in (0, 1, 2, 3):
            raise ParameterError(f"vad_aggressiveness must be 0, 1, 2 or 3, got {vad_aggressiveness}")
        self.sr = sr
        self.hop_length = round(config.HOP_SECONDS * sr)
        self.win_length = round(config.WINDOW_SECONDS * sr)
        self.n_fft = 1 << int(np.ceil(np.log2(2 * self.win_length)))  # zero-padded: linear autocorrelation
        self.vad_frame_length = round(config.VAD_FRAME_SECONDS * sr)
        self._setup_filters()
        self._vad = webrtcvad.Vad(vad_aggressiveness)
        self._vad_pending = b""
        self._dc_state = 0.0
        # Half a window of zeros in front centres frame t on sample t * hop.
        self._pending = np.zeros(self.win_length // 2, dtype=np.float32)
        self._prev_logmel: np.ndarray | None = None
        self._chroma_history = np.zeros((self.chroma_lag, 12), dtype=np.float32)
        self._shape_history = np.zeros((self.shape_lag, self._shape_bands.size), dtype=np.float32)
        self._columns = {name: _Growing(np.float32) for name in FEATURE_NAMES}
        self._columns["cepstrum"] = _Growing(np.float16, width=config.N_CEPSTRA)
        self._vad_column = _Growing(np.uint8)
        self._audioset = AudioSetStream(audioset, sr=sr, keep=audioset_classes) if audioset is not None else None
        self._audioset_classes = audioset_classes if audioset is not None else None
        self.samples_seen = 0
        self._finished = False

    def _setup_filters(self) -> None:
        sr, n_fft, win = self.sr, self.n_fft, self.win_length
        self.window = periodic_hann(win).astype(np.float32)
        freqs = np.fft.rfftfreq(n_fft, 1.0 / sr)
        # Power-to-mean-square weights: rfft bins other than DC and Nyquist stand for two.
        weights = np.full(freqs.shape, 2.0)
        weights[0] = weights[-1] = 1.0
        norm = n_fft * float(np.sum(self.window.astype(np.float64) ** 2))
        lo, hi = config.VOWEL_BAND_HZ
        self._level_weights = np.stack([weights / norm, weights * ((freqs >= lo) & (freqs <= hi)) / norm], axis=1).astype(
            np.float32
        )
        mel = slaney_mel_filters(sr=sr, n_fft=n_fft, n_mels=config.N_MELS)
        centres = slaney_mel_frequencies(config.N_MELS + 2, fmin=0.0, fmax=sr / 2)[1:-1]
        flo, fhi = config.FLATNESS_BAND_HZ
        self._flat_bands = np.flatnonzero((centres >= flo) & (centres <= min(fhi, 0.45 * sr)))
        self._mel = np.ascontiguousarray(mel.T, dtype=np.float32)
        self._chroma = np.ascontiguousarray(chroma_filters(sr=sr, n_fft=n_fft).T, dtype=np.float32)
        self.chroma_lag = max(1, round(config.CHROMA_LAG_SECONDS / config.HOP_SECONDS))
        self.shape_lag = max(1, round(config.SHAPE_LAG_SECONDS / config.HOP_SECONDS))
        self._shape_bands = np.flatnonzero(centres <= min(config.SHAPE_TOP_HZ, 0.45 * sr))
        # Autocorrelation of the window itself, for Boersma's correction.
        w_pad = np.zeros(n_fft)
        w_pad[:win] = self.window
        r_w = np.fft.irfft(np.abs(np.fft.rfft(w_pad)) ** 2, n_fft)
        pmin, pmax = config.PITCH_RANGE_HZ
        self._lags = np.arange(int(sr // pmax), int(np.ceil(sr / pmin)) + 1)
        self._window_ac = (r_w[self._lags] / r_w[0]).astype(np.float32)
        self._eps = np.float32(10 ** (config.FLOOR_DBFS / 10))
        dct = scipy.fft.dct(np.eye(config.N_MELS), type=2, norm="ortho", axis=0)  # row k: DCT basis k
        self._dct = np.ascontiguousarray(dct[1 : 1 + config.N_CEPSTRA].T, dtype=np.float32)  # (n_mels, N_CEPSTRA)

    # --- streaming ---------------------------------------------------------------------------------

    def feed(self, block: np.ndarray) -> None:
        """Add the next block of samples (shape ``(n,)``; int16, or float in [-1, 1])."""
        if self._finished:
            raise ParameterError("feed() after finish(): make a new FeatureExtractor per recording")
        block = np.asarray(block)
        if block.ndim != 1:
            raise ParameterError(f"a block must be mono, shape (n,), got shape {block.shape}")
        if block.size == 0:
            return
        if np.issubdtype(block.dtype, np.integer):
            if block.dtype != np.int16:
                raise ParameterError(f"integer blocks must be int16, got {block.dtype}")
            pcm = block
            x = block.astype(np.float32) / np.float32(32768.0)
        else:
            x = block.astype(np.float32)
            pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype(np.int16)
        self.samples_seen += block.size
        self._feed_vad(pcm)
        if self._audioset is not None:
            self._audioset.feed(x)
        y, self._dc_state = dc_block(x, self._dc_state, pole=DC_POLE)
        self._pending = np.concatenate([self._pending, y.astype(np.float32)])
        self._drain()

    def finish(self) -> FrameFeatures:
        """Flush the tail and return every frame's features."""
        if not self._finished:
            self._finished = True
            n_frames = -(-self.samples_seen // self.hop_length)  # ceil: the last partial hop gets a frame
            pad = self.win_length // 2 + self.win_length
            self._pending = np.concatenate([self._pending, np.zeros(pad, dtype=np.float32)])
            self._drain(limit=n_frames - self._columns["energy_db"].array().shape[0])
        columns = {name: col.array() for name, col in self._columns.items()}
        audioset = self._audioset.finish() if self._audioset is not None else None
        return FrameFeatures(**columns, vad=self._vad_column.array(), sr=self.sr, hop_length=self.hop_length,
                             vad_frame_length=self.vad_frame_length, audioset=audioset,
                             audioset_classes=self._audioset_classes)  # fmt: skip

    def _feed_vad(self, pcm: np.ndarray) -> None:
        data = self._vad_pending + pcm.astype("<i2").tobytes()
        step = 2 * self.vad_frame_length
        n = len(data) // step
        decisions = np.fromiter(
            (self._vad.is_speech(data[i * step : (i + 1) * step], self.sr) for i in range(n)), dtype=np.uint8, count=n
        )
        self._vad_column.append(decisions)
        self._vad_pending = data[n * step :]

    def _drain(self, limit: int | None = None) -> None:
        hop, win = self.hop_length, self.win_length
        n = (self._pending.shape[0] - win) // hop + 1 if self._pending.shape[0] >= win else 0
        if limit is not None:
            n = max(0, min(n, limit))
        if n == 0:
            return
        frames = np.lib.stride_tricks.sliding_window_view(self._pending, win)[: n * hop : hop]
        with _blas().limit(limits=1, user_api="blas"):
            self._append(self._frame_block(frames))
        self._pending = self._pending[n * hop :]

    def _frame_block(self, frames: np.ndarray) -> dict[str, np.ndarray]:
        spectrum = scipy.fft.rfft(frames * self.window, n=self.n_fft, axis=1, workers=1)
        power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
        eps = self._eps
        levels = power @ self._level_weights
        energy_db = 10.0 * np.log10(levels[:, 0] + eps)
        vowel_db = 10.0 * np.log10(levels[:, 1] + eps)

        mel = power @ self._mel + eps
        logmel = np.log(mel)
        band = logmel[:, self._flat_bands]
        flatness = (band.mean(axis=1) - np.log(mel[:, self._flat_bands].mean(axis=1))) / np.float32(np.log(10.0))
        previous = logmel[:1] if self._prev_logmel is None else self._prev_logmel
        diff = np.diff(np.concatenate([previous, logmel]), axis=0)
        flux = np.maximum(diff, 0.0).mean(axis=1)
        self._prev_logmel = logmel[-1:]

        autocorr = scipy.fft.irfft(power, n=self.n_fft, axis=1, workers=1)
        r0 = autocorr[:, :1] + eps
        voicing = np.clip((autocorr[:, self._lags] / r0 / self._window_ac).max(axis=1), 0.0, 1.0)

        chroma = power @ self._chroma
        chroma /= np.sqrt((chroma**2).sum(axis=1, keepdims=True)) + eps
        lag = self.chroma_lag
        history = np.concatenate([self._chroma_history, chroma])
        stability = (history[lag:] * history[:-lag]).sum(axis=1)
        self._chroma_history = history[-lag:]

        shape = logmel[:, self._shape_bands]
        shape = shape - shape.mean(axis=1, keepdims=True)
        shape /= np.sqrt((shape**2).sum(axis=1, keepdims=True)) + eps
        lag = self.shape_lag
        history = np.concatenate([self._shape_history, shape])
        shape_stability = (history[lag:] * history[:-lag]).sum(axis=1)
        self._shape_history = history[-lag:]
        return {
            "energy_db": energy_db,
            "vowel_db": vowel_db,
            "flatness": flatness,
            "flux": flux,
            "voicing": voicing,
            "chroma_stability": np.clip(stability, 0.0, 1.0),
            "shape_stability": np.clip(shape_stability, -1.0, 1.0),
            "cepstrum": logmel @ self._dct,
        }

    def _append(self, values: dict[str, np.ndarray]) -> None:
        for name, column in self._columns.items():
            column.append(values[name])


def _blas() -> ThreadpoolController:
    global _BLAS
    if _BLAS is None:
        _BLAS = ThreadpoolController()
    return _BLAS


def frame_features(audio: np.ndarray, *, sr: int = 16000, vad_aggressiveness: int = 2,
                   block_seconds: float = 0.5, audioset: AudioSetModel | None = None) -> FrameFeatures:  # fmt: skip
    """Features of a whole signal (shape ``(n,)``, int16 or float in [-1, 1]), fed in blocks."""
    extractor = FeatureExtractor(sr=sr, vad_aggressiveness=vad_aggressiveness, audioset=audioset)
    step = max(1, round(block_seconds * sr))
    for i in range(0, len(audio), step):
        extractor.feed(audio[i : i + step])
    return extractor.finish()
