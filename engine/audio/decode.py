"""Probe, hash and stream-decode any recording to 16 kHz mono 16-bit PCM.

Decoding goes through PyAV (FFmpeg's libraries, shipped inside its wheels), so
wav, flac, ogg, mp3, m4a/aac and the audio track of mp4/mkv all take the same
path. Audio is decoded and resampled block by block: memory stays flat however
long the recording is.
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np

from engine import config
from engine.errors import AudioError, ParameterError, file_access_reason


@dataclass(frozen=True)
class AudioInfo:
    """What a recording's container says about its audio.

    Attributes
    ----------
    path : absolute path of the file.
    size_bytes : file size in bytes.
    duration : stated duration in seconds (0.0 when the container gives none).
    sample_rate : native sample rate of the audio stream, Hz.
    channels : native channel count.
    codec : FFmpeg codec name of the audio stream, e.g. ``"mp3"``.
    container : FFmpeg format name, e.g. ``"wav"`` or ``"matroska,webm"``.
    """

    path: str
    size_bytes: int
    duration: float
    sample_rate: int
    channels: int
    codec: str
    container: str


def _check_file(path: Path) -> os.stat_result:
    """Raise AudioError unless ``path`` is a non-empty, readable regular file."""
    try:
        st = path.stat()
    except OSError as exc:
        reason = file_access_reason(exc, "access", missing="file not found (missing or removed)")
        raise AudioError(path, reason) from None
    if path.is_dir():
        raise AudioError(path, "is a folder, not a recording")
    if not path.is_file():
        raise AudioError(path, "not a regular file")
    if st.st_size == 0:
        raise AudioError(path, "empty file (0 bytes)")
    if not os.access(path, os.R_OK):
        raise AudioError(path, "permission denied")
    return st


def _open(path: Path) -> av.container.InputContainer:
    try:
        return av.open(str(path), mode="r")
    except av.error.FileNotFoundError:
        raise AudioError(path, "file not found (missing or removed)") from None
    except av.error.PermissionError:
        raise AudioError(path, "permission denied") from None
    except (av.error.InvalidDataError, av.error.EOFError):
        raise AudioError(path, "not a recognised audio or video file") from None
    except av.error.FFmpegError as exc:
        raise AudioError(path, f"cannot open: {_ffmpeg_reason(exc)}") from None
    except OSError as exc:
        if exc.errno == errno.EACCES:
            raise AudioError(path, "permission denied") from None
        raise AudioError(path, f"cannot open: {exc.strerror or exc}") from None


def _ffmpeg_reason(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc)
    return text.split(";")[0].strip() or type(exc).__name__


def _stated_duration(container: av.container.InputContainer, stream: av.audio.AudioStream) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return 0.0


def _riff_declared_seconds(path: Path, container: av.container.InputContainer, stream: av.audio.AudioStream) -> float | None:
    """Duration a WAV header's data chunk declares, in seconds, or None.

    FFmpeg estimates a truncated WAV's duration from the file size, so the
    header is read here to notice a file cut short.
    """
    if container.format.name != "wav" or not stream.codec_context.name.startswith("pcm_"):
        return None
    with path.open("rb") as fh:
        head = fh.read(1 << 16)
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(head):
        tag, size = head[pos : pos + 4], int.from_bytes(head[pos + 4 : pos + 8], "little")
        if tag == b"data":
            if size in (0, 0xFFFFFFFF):  # streamed WAV: size unknown
                return None
            ctx = stream.codec_context
            bytes_per_second = ctx.sample_rate * ctx.channels * (ctx.format.bytes if ctx.format else 2)
            return size / bytes_per_second if bytes_per_second else None
        pos += 8 + size + (size & 1)
    return None


def probe(path: str | os.PathLike[str]) -> AudioInfo:
    """Read a recording's header without decoding it.

    Raises
    ------
    AudioError
        Missing, empty, unreadable, non-audio or corrupt file; the message
        names the file and the reason.
    """
    p = Path(path).absolute()
    st = _check_file(p)
    with _open(p) as container:
        if not container.streams.audio:
            raise AudioError(p, "no audio track")
        stream = container.streams.audio[0]
        rate = stream.codec_context.sample_rate or stream.rate or 0
        if rate <= 0:
            raise AudioError(p, "audio track has no sample rate (corrupt header)")
        return AudioInfo(
            path=str(p),
            size_bytes=st.st_size,
            duration=_stated_duration(container, stream),
            sample_rate=int(rate),
            channels=int(stream.codec_context.channels or 0),
            codec=stream.codec_context.name,
            container=container.format.name,
        )


def content_hash(path: str | os.PathLike[str]) -> str:
    """SHA-256 of the file's bytes, as hex; reads in 1 MiB chunks."""
    p = Path(path)
    digest = hashlib.sha256()
    try:
        with p.open("rb") as fh:
            while chunk := fh.read(config.HASH_CHUNK_BYTES):
                digest.update(chunk)
    except OSError as exc:
        raise AudioError(p, f"cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()


def iter_pcm_blocks(
    path: str | os.PathLike[str],
    *,
    sr: int = config.TARGET_SAMPLE_RATE,
    block_seconds: float = config.BLOCK_SECONDS,
) -> Iterator[np.ndarray]:
    """Decode a recording to mono 16-bit PCM at ``sr`` Hz, one block at a time.

    Parameters
    ----------
    path : the recording.
    sr : output sample rate in Hz.
    block_seconds : length of each yielded block in seconds (the last block
        may be shorter).

    Yields
    ------
    np.ndarray, shape (n,), dtype int16
        Consecutive samples; concatenated they are the whole recording.

    Raises
    ------
    AudioError
        The file cannot be opened, a packet cannot be decoded, no samples
        come out, or fewer samples come out than the header promises
        (truncated file).
    """
    if sr <= 0 or block_seconds <= 0:
        raise ParameterError(f"sr and block_seconds must be positive, got sr={sr}, block_seconds={block_seconds}")
    p = Path(path).absolute()
    _check_file(p)
    block_len = max(1, round(sr * block_seconds))
    pending: list[np.ndarray] = []
    pending_len = 0
    produced = 0
    with _open(p) as container:
        if not container.streams.audio:
            raise AudioError(p, "no audio track")
        stream = container.streams.audio[0]
        stated = _stated_duration(container, stream)
        declared = _riff_declared_seconds(p, container, stream)
        if declared is not None:
            stated = max(stated, declared)
        resampler = av.AudioResampler(format="s16", layout="mono", rate=sr)
        try:
            for frame in _decode_frames(p, container, stream):
                for out in resampler.resample(frame):
                    pcm = out.to_ndarray().reshape(-1)
                    pending.append(pcm)
                    pending_len += pcm.size
                while pending_len >= block_len:
                    block, pending, pending_len = _take(pending, block_len)
                    produced += block.size
                    yield block
            for out in resampler.resample(None):
                pcm = out.to_ndarray().reshape(-1)
                pending.append(pcm)
                pending_len += pcm.size
        except av.error.FFmpegError as exc:
            raise AudioError(p, f"corrupt audio data: {_ffmpeg_reason(exc)}") from None
    while pending_len > 0:
        block, pending, pending_len = _take(pending, min(block_len, pending_len))
        produced += block.size
        yield block
    if produced == 0:
        raise AudioError(p, "no audio samples could be decoded")
    decoded = produced / sr
    missing = stated - decoded
    if missing > max(config.TRUNCATION_MIN_SECONDS, config.TRUNCATION_TOLERANCE * stated):
        raise AudioError(p, f"truncated: decoded {decoded:.1f} s of the {stated:.1f} s its header states")


def _decode_frames(
    p: Path, container: av.container.InputContainer, stream: av.audio.AudioStream
) -> Iterator[av.AudioFrame]:
    """Decode packet by packet; a packet that fails to decode is corruption."""
    for packet in container.demux(stream):
        try:
            frames = packet.decode()
        except av.error.InvalidDataError as exc:
            raise AudioError(p, f"corrupt audio data: {_ffmpeg_reason(exc)}") from None
        yield from frames


def _take(pending: list[np.ndarray], n: int) -> tuple[np.ndarray, list[np.ndarray], int]:
    """Split the first ``n`` samples off a list of PCM chunks."""
    joined = np.concatenate(pending) if len(pending) > 1 else pending[0]
    block = joined[:n].astype(np.int16, copy=True)
    rest = joined[n:]
    return block, ([rest] if rest.size else []), int(rest.size)


def decode_all(path: str | os.PathLike[str], *, sr: int = config.TARGET_SAMPLE_RATE) -> np.ndarray:
    """The whole recording as one int16 array of shape (n,). For short files only."""
    blocks = list(iter_pcm_blocks(path, sr=sr))
    return np.concatenate(blocks)


def decode_range(path: str | os.PathLike[str], start: float, end: float, *,
                 sr: int = config.TARGET_SAMPLE_RATE) -> np.ndarray:
    """The samples of ``path`` from ``start`` to ``end`` seconds as int16 mono at ``sr`` Hz, shape (n,).

    Seeks to ``start`` rather than decoding what lies before it, so a window late in a
    three-hour file costs what the window costs. The first sample is within one resampler
    delay (a few ms) of ``start``. A container that cannot seek is read from its start.
    Past the end of the file the array is shorter, or empty. Raises AudioError as
    :func:`iter_pcm_blocks` does for a file that cannot be opened or decoded.
    """
    if sr <= 0 or not (0.0 <= start <= end):
        raise ParameterError(f"need sr > 0 and 0 <= start <= end, got sr={sr}, start={start}, end={end}")
    p = Path(path).absolute()
    _check_file(p)
    first, last = round(start * sr), round(end * sr)
    parts: list[np.ndarray] = []
    with _open(p) as container:
        if not container.streams.audio:
            raise AudioError(p, "no audio track")
        stream = container.streams.audio[0]
        try:
            if start > 0 and stream.time_base is not None:
                container.seek(int(start / stream.time_base), stream=stream, backward=True)
        except av.error.FFmpegError:
            container.seek(0, stream=stream)
        resampler = av.AudioResampler(format="s16", layout="mono", rate=sr)
        at: int | None = None  # output sample index of the next resampled sample
        try:
            for frame in _decode_frames(p, container, stream):
                if at is None:
                    at = round(frame.time * sr) if frame.time is not None else 0
                for out in resampler.resample(frame):
                    pcm = out.to_ndarray().reshape(-1)
                    lo, hi = max(first, at), min(last, at + pcm.size)
                    if lo < hi:
                        parts.append(pcm[lo - at:hi - at])
                    at += pcm.size
                if at >= last:
                    break
        except av.error.FFmpegError as exc:
            raise AudioError(p, f"corrupt audio data: {_ffmpeg_reason(exc)}") from None
    return np.concatenate(parts).astype(np.int16, copy=False) if parts else np.zeros(0, np.int16)
