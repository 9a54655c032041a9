"""AudioSet class scores of a recording, block by block: YAMNet through ONNX Runtime.

YAMNet (a MobileNet trained on AudioSet's 521 classes) sees 0.96 s patches of a
64-band log-mel spectrogram, one every 0.48 s, and gives a logit per class. The front
end follows YAMNet's: 16 kHz audio, 25 ms periodic Hann windows every 10 ms, a
512-point FFT magnitude, 64 HTK-mel triangles (built on the mel scale) over 125-7500 Hz
with the DC bin left out, ``log(mel + 0.001)``. The shipped network is quantised to 8
bits: patches are quantised on the way in and logits dequantised on the way out with the
scales and zero points of that file (``models/audioset.py`` pins it).

Patch ``i`` covers samples ``[i * PATCH_HOP_SECONDS, i * PATCH_HOP_SECONDS + PATCH_SECONDS)``
(plus the 15 ms of the last window); :func:`patch_centres` gives its centre in seconds.
Cost: 12.5 s of CPU per hour of audio on one core (`bench/detect_loso_bench.py`, a loaded machine).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import soxr

from engine.detect.frames import periodic_hann
from engine.errors import ParameterError
from models.audioset import audioset_files

SAMPLE_RATE = 16000
WINDOW = 400  # samples: 25 ms
HOP = 160  # samples: 10 ms
N_FFT = 512
N_MELS = 64
MEL_RANGE_HZ = (125.0, 7500.0)
LOG_OFFSET = 0.001
PATCH_FRAMES = 96
PATCH_HOP_FRAMES = 48
PATCH_SECONDS = PATCH_FRAMES * HOP / SAMPLE_RATE
PATCH_HOP_SECONDS = PATCH_HOP_FRAMES * HOP / SAMPLE_RATE
#: Quantisation of the pinned network's input (log-mel) and output (logits): real = scale * (q - zero point).
INPUT_SCALE, INPUT_ZERO = 0.047937885, 144
OUTPUT_SCALE, OUTPUT_ZERO = 0.7565417, 190


def patch_centres(n_patches: int) -> np.ndarray:
    """Centre of each patch in seconds, float64 shape ``(n_patches,)``."""
    return np.arange(n_patches) * PATCH_HOP_SECONDS + (PATCH_SECONDS + (WINDOW - HOP) / SAMPLE_RATE) / 2


def mel_matrix() -> np.ndarray:
    """YAMNet's mel filterbank, float32 shape ``(N_FFT // 2 + 1, N_MELS)``: triangles on the HTK mel scale."""

    def hz_to_mel(hz: np.ndarray | float) -> np.ndarray:
        return 1127.0 * np.log1p(np.asarray(hz, dtype=np.float64) / 700.0)

    bins_mel = hz_to_mel(np.linspace(0.0, SAMPLE_RATE / 2, N_FFT // 2 + 1))
    edges = np.linspace(hz_to_mel(MEL_RANGE_HZ[0]), hz_to_mel(MEL_RANGE_HZ[1]), N_MELS + 2)
    lower, centre, upper = edges[:-2], edges[1:-1], edges[2:]
    rising = (bins_mel[:, None] - lower) / (centre - lower)
    falling = (upper - bins_mel[:, None]) / (upper - centre)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    weights[0, :] = 0.0  # the DC bin carries no band
    return weights.astype(np.float32)


def class_columns(class_names: tuple[str, ...], names: tuple[str, ...]) -> list[int]:
    """Columns of ``names`` among the tagger's ``class_names`` (its output order); an unknown name raises
    ParameterError naming it."""
    missing = [n for n in names if n not in class_names]
    if missing:
        raise ParameterError(f"not AudioSet class names: {', '.join(map(repr, missing))}")
    return [class_names.index(n) for n in names]


class AudioSetModel:
    """The quantised YAMNet in an ONNX Runtime session on one thread.

    ``class_names`` holds the 521 AudioSet names in output order.
    """

    def __init__(self, model_path: str, class_names: tuple[str, ...]) -> None:
        import onnxruntime  # heavy: loaded only when a tagger is wanted

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name
        self.class_names = class_names

    @classmethod
    def shipped(cls) -> AudioSetModel:
        """The pinned network from the data package (raises ``ModelError`` when it is missing)."""
        global _SHIPPED
        if _SHIPPED is None:
            files = audioset_files()
            _SHIPPED = cls(str(files.model), files.class_names)
        return _SHIPPED

    def logits(self, patches: np.ndarray) -> np.ndarray:
        """Logits of log-mel ``patches`` (shape ``(n, 96, 64)``), float32 shape ``(n, 521)``."""
        quantised = np.clip(np.round(patches / INPUT_SCALE + INPUT_ZERO), 0, 255).astype(np.uint8)
        out = np.empty((patches.shape[0], len(self.class_names)), dtype=np.float32)
        for i in range(patches.shape[0]):  # the exported graph takes one patch at a time
            raw = self._session.run(None, {self._input: quantised[i][None, None]})[0]
            out[i] = OUTPUT_SCALE * (raw.reshape(-1).astype(np.float32) - OUTPUT_ZERO)
        return out


_SHIPPED: AudioSetModel | None = None


@dataclass
class _Buffer:
    samples: np.ndarray
    logmel: np.ndarray


class AudioSetStream:
    """Streaming tagger: :meth:`feed` mono blocks in order, then :meth:`finish` once for the logits.

    ``sr`` is the blocks' sample rate (resampled to 16 kHz inside). Keeps only the
    logits (float16, 521 per 0.48 s: 7.8 MB an hour; with ``keep``, those classes' only)
    and under a patch of log-mel frames.
    """

    def __init__(self, model: AudioSetModel, *, sr: int = SAMPLE_RATE, keep: tuple[str, ...] | None = None) -> None:
        self.model = model
        self.sr = sr
        #: Output columns kept (``keep``'s classes, in ``keep``'s order); None: all of them.
        self._columns = None if keep is None else np.array(class_columns(model.class_names, keep), dtype=np.intp)
        self._resampler = None if sr == SAMPLE_RATE else soxr.ResampleStream(sr, SAMPLE_RATE, 1, dtype="float32")
        self._window = periodic_hann(WINDOW).astype(np.float32)
        self._mel = mel_matrix()
        self._buffer = _Buffer(np.zeros(0, np.float32), np.zeros((0, N_MELS), np.float32))
        self._chunks: list[np.ndarray] = []
        self._finished = False

    def feed(self, block: np.ndarray) -> None:
        """Add the next block (shape ``(n,)``; float in [-1, 1] or int16)."""
        if self._finished:
            raise ParameterError("feed() after finish(): make a new AudioSetStream per recording")
        x = np.asarray(block)
        x = x.astype(np.float32) / np.float32(32768.0) if np.issubdtype(x.dtype, np.integer) else x.astype(np.float32)
        if self._resampler is not None:
            x = self._resampler.resample_chunk(x)
        self._push(x)

    def finish(self) -> np.ndarray:
        """Logits of every patch, float16 shape ``(n_patches, 521)`` (or ``len(keep)``); the tail is padded with
        silence."""
        if not self._finished:
            self._finished = True
            if self._resampler is not None:
                self._push(self._resampler.resample_chunk(np.zeros(0, np.float32), last=True))
            # Frames after the last patch's first half are not yet in any patch: pad them with
            # silence into one more patch (also the only patch of audio shorter than a patch).
            left = self._buffer.logmel.shape[0]
            if left > PATCH_FRAMES - PATCH_HOP_FRAMES or (left > 0 and not self._chunks):
                pad = np.full((PATCH_FRAMES - left, N_MELS), np.log(LOG_OFFSET), np.float32)
                self._buffer.logmel = np.concatenate([self._buffer.logmel, pad])
                self._emit()
        if not self._chunks:
            return np.zeros((0, len(self.model.class_names) if self._columns is None else len(self._columns)), np.float16)
        return np.concatenate(self._chunks).astype(np.float16)

    def _push(self, x: np.ndarray) -> None:
        samples = np.concatenate([self._buffer.samples, x])
        n = (samples.shape[0] - WINDOW) // HOP + 1 if samples.shape[0] >= WINDOW else 0
        if n > 0:
            frames = np.lib.stride_tricks.sliding_window_view(samples, WINDOW)[: n * HOP : HOP]
            magnitude = np.abs(np.fft.rfft(frames * self._window, n=N_FFT, axis=1)).astype(np.float32)
            logmel = np.log(magnitude @ self._mel + np.float32(LOG_OFFSET))
            self._buffer.logmel = np.concatenate([self._buffer.logmel, logmel])
            samples = samples[n * HOP :]
        self._buffer.samples = samples
        self._emit()

    def _emit(self) -> None:
        logmel = self._buffer.logmel
        n = (logmel.shape[0] - PATCH_FRAMES) // PATCH_HOP_FRAMES + 1 if logmel.shape[0] >= PATCH_FRAMES else 0
        if n == 0:
            return
        windows = np.lib.stride_tricks.sliding_window_view(logmel, (PATCH_FRAMES, N_MELS))
        patches = windows[: n * PATCH_HOP_FRAMES : PATCH_HOP_FRAMES, 0]
        logits = self.model.logits(np.ascontiguousarray(patches))
        self._chunks.append((logits if self._columns is None else logits[:, self._columns]).astype(np.float16))
        self._buffer.logmel = logmel[n * PATCH_HOP_FRAMES :]


def audioset_logits(audio: np.ndarray, *, sr: int = SAMPLE_RATE, model: AudioSetModel | None = None) -> np.ndarray:
    """Logits of a whole recording (mono, shape ``(n,)``), float16 shape ``(n_patches, 521)``."""
    stream = AudioSetStream(model or AudioSetModel.shipped(), sr=sr)
    stream.feed(audio)
    return stream.finish()
