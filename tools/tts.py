"""Speak a text with espeak-ng and say when each of its words starts and ends.

Every rendering is cached by (text, voice, speed, espeak-ng version) in a cache
folder, so a long broadcast that cycles its texts renders each one once.

Word times come from libespeak-ng's word events (the sample at which the
synthesizer starts each word), run in a fresh process (``tools._espeak_worker``).
A word ends where its speech energy stops before the next word starts. When the
library cannot be loaded, the ``espeak-ng`` command renders the audio and each
word gets a share of the duration in proportion to its syllables.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from engine.errors import EarshotError, ParameterError
from tools import _espeak_worker

#: Bumped when the cached files change meaning (renderings are lossless FLAC + JSON events).
CACHE_FORMAT = 1

#: Where renderings are cached unless a caller or ``EARSHOT_TTS_CACHE`` says otherwise.
DEFAULT_CACHE_DIR = Path("~/.cache/earshot-test-tts")

#: Frame used to measure speech energy, in seconds.
ENERGY_FRAME_SECONDS = 0.010

#: A frame is speech when its RMS is within this many dB of the loudest frames.
SPEECH_FLOOR_DB = 40.0

METHOD_EVENTS = "espeak-ng word events; word ends where speech energy stops"
METHOD_PROPORTIONAL = "proportional to syllables (espeak-ng command line, no word events)"

_REPO = Path(__file__).resolve().parent.parent
_TOKEN = re.compile(r"\S+")
_VOWEL_GROUP = re.compile(r"[aeiouy]+", re.IGNORECASE)


class SpeechSynthesisError(EarshotError):
    """espeak-ng is missing or failed to speak a text."""


@dataclass(frozen=True)
class Token:
    """One word of a text as written, with its character span ``[start, end)``."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Speech:
    """A spoken text, trimmed to its first and last sounds.

    ``audio`` has shape ``(n_samples,)``, float32 in [-1, 1] at ``sample_rate``.
    ``word_spans`` has shape ``(n_words, 2)``: start and end sample of each
    token, relative to ``audio``.
    """

    audio: np.ndarray
    sample_rate: int
    tokens: tuple[Token, ...]
    word_spans: np.ndarray
    method: str


def tokenize(text: str) -> list[Token]:
    """Whitespace-separated tokens that contain at least one letter or digit."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text) if any(c.isalnum() for c in m.group())]


def default_cache_dir() -> Path:
    override = os.environ.get("EARSHOT_TTS_CACHE")
    return Path(override) if override else DEFAULT_CACHE_DIR.expanduser()


@functools.cache
def espeak_version() -> str:
    """The installed espeak-ng's version, e.g. ``"1.51"``."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SpeechSynthesisError("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False).stdout
    match = re.search(r"text-to-speech:\s*(\S+)", out)
    return match.group(1) if match else out.strip()


def speak(text: str, voice: str, speed: int, *, sample_rate: int, cache_dir: Path | None = None) -> Speech:
    """Speak ``text`` with an espeak-ng ``voice`` at ``speed`` words per minute.

    Returns the audio resampled to ``sample_rate`` Hz, trimmed of leading and
    trailing silence, with one ``(start, end)`` span in samples per token of
    :func:`tokenize`.
    """
    tokens = tokenize(text)
    if not tokens:
        raise ParameterError(f"story has no words to speak: {text!r}")
    raw, native_rate, events, method = _render_cached(text, voice, speed, cache_dir or default_cache_dir())
    audio = raw.astype(np.float32) / 32768.0
    first, last = _active_bounds(audio, native_rate)
    if events is not None:
        starts = _starts_from_events(tokens, events, len(audio)) - first
        audio = audio[first:last]
    else:
        audio = audio[first:last]
        starts = _proportional_starts(tokens, len(audio))
    starts = np.clip(starts, 0, max(len(audio) - 1, 0))
    if native_rate != sample_rate:
        audio = soxr.resample(audio, native_rate, sample_rate, quality="HQ").astype(np.float32)
        starts = np.minimum(np.round(starts * (sample_rate / native_rate)).astype(np.int64), len(audio) - 1)
    spans = _word_spans(audio, sample_rate, starts, trim_ends=events is not None)
    return Speech(audio, sample_rate, tuple(tokens), spans, method)


def _render_cached(
    text: str, voice: str, speed: int, cache_dir: Path
) -> tuple[np.ndarray, int, list[tuple[int, int]] | None, str]:
    """Native espeak-ng samples (int16), their rate, word events (or None) and the timing method."""
    key_source = json.dumps([CACHE_FORMAT, espeak_version(), voice, speed, text], ensure_ascii=False)
    key = hashlib.sha256(key_source.encode("utf-8")).hexdigest()[:32]
    audio_path = cache_dir / f"{key}.flac"
    meta_path = cache_dir / f"{key}.json"
    if audio_path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        raw, rate = sf.read(audio_path, dtype="int16")
        events = [tuple(e) for e in meta["events"]] if meta["events"] is not None else None
        return raw, rate, events, meta["method"]

    raw, rate, events = _render_with_library(text, voice, speed)
    method = METHOD_EVENTS
    if raw is None:
        raw, rate = _render_with_command(text, voice, speed)
        events, method = None, METHOD_PROPORTIONAL
    cache_dir.mkdir(parents=True, exist_ok=True)
    meta = {"voice": voice, "speed": speed, "text": text, "method": method, "events": events}
    with replacing(audio_path) as partial:
        sf.write(partial, raw, rate, subtype="PCM_16", format="FLAC")
    with replacing(meta_path) as partial:
        partial.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    return raw, rate, events, method


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` that replaces it when the block succeeds.

    Readers never see a half-written file; a failed write leaves nothing behind.
    """
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        yield partial
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _render_with_library(text: str, voice: str, speed: int) -> tuple[np.ndarray | None, int, list | None]:
    """Render in a fresh worker process; ``(None, 0, None)`` when the library is missing."""
    with tempfile.TemporaryDirectory(prefix="earshot-tts-") as tmp:
        out = Path(tmp) / "speech.raw"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_REPO), os.environ.get("PYTHONPATH")]))}
        proc = subprocess.run(
            [sys.executable, "-m", "tools._espeak_worker", voice, str(speed), str(out)],
            input=text.encode("utf-8"),
            capture_output=True,
            env=env,
            check=False,
        )
        if proc.returncode == _espeak_worker.EXIT_NO_LIBRARY:
            return None, 0, None
        if proc.returncode == _espeak_worker.EXIT_UNKNOWN_VOICE:
            raise ParameterError(f"espeak-ng has no voice {voice!r} (see `espeak-ng --voices`)")
        if proc.returncode != 0:
            reason = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
            raise SpeechSynthesisError(f"espeak-ng failed on voice {voice!r}: {reason[0]}")
        info = json.loads(proc.stdout)
        raw = np.fromfile(out, dtype="<i2").astype(np.int16)
    return raw, int(info["sample_rate"]), [tuple(e) for e in info["events"]]


def _render_with_command(text: str, voice: str, speed: int) -> tuple[np.ndarray, int]:
    espeak_version()  # raises when espeak-ng is missing
    with tempfile.TemporaryDirectory(prefix="earshot-tts-") as tmp:
        out = Path(tmp) / "speech.wav"
        proc = subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(out), "--stdin"],
            input=text.encode("utf-8"),
            capture_output=True,
            check=False,
        )
        if proc.returncode != 0 or not out.exists():
            reason = proc.stderr.decode(errors="replace").strip() or f"exit status {proc.returncode}"
            raise SpeechSynthesisError(f"espeak-ng failed on voice {voice!r}: {reason}")
        raw, rate = sf.read(out, dtype="int16")
    return raw, rate


def _frame_rms(audio: np.ndarray, frame: int) -> np.ndarray:
    n = len(audio) // frame
    if n == 0:
        return np.zeros(1)
    frames = audio[: n * frame].astype(np.float64).reshape(n, frame)
    return np.sqrt(np.mean(frames**2, axis=1))


def _speech_threshold(rms: np.ndarray) -> float:
    loud = np.percentile(rms, 95) if len(rms) else 0.0
    return max(loud * 10 ** (-SPEECH_FLOOR_DB / 20), 1e-5)


def active_rms(audio: np.ndarray, sample_rate: int) -> float:
    """RMS of the frames that carry speech (pauses between words and sentences left out)."""
    frame = max(1, round(ENERGY_FRAME_SECONDS * sample_rate))
    rms = _frame_rms(audio, frame)
    active = rms[rms > _speech_threshold(rms)]
    return float(np.sqrt(np.mean(active**2))) if len(active) else 0.0


def _active_bounds(audio: np.ndarray, sample_rate: int) -> tuple[int, int]:
    """First and one-past-last sample of the frames that carry speech."""
    frame = max(1, round(ENERGY_FRAME_SECONDS * sample_rate))
    rms = _frame_rms(audio, frame)
    active = np.flatnonzero(rms > _speech_threshold(rms))
    if len(active) == 0:
        return 0, len(audio)
    return int(active[0] * frame), int(min(len(audio), (active[-1] + 1) * frame))


def _starts_from_events(tokens: list[Token], events: list[tuple[int, int]], n_samples: int) -> np.ndarray:
    """Start sample of each token: its first word event, else interpolated by characters."""
    starts = np.full(len(tokens), -1, dtype=np.int64)
    token_starts = np.array([t.start for t in tokens])
    for char, sample in events:
        i = int(np.searchsorted(token_starts, char, side="right")) - 1
        if i >= 0 and char < tokens[i].end and starts[i] < 0:
            starts[i] = sample
    known = np.flatnonzero(starts >= 0)
    if len(known) == 0:
        return _proportional_starts(tokens, n_samples)
    # espeak-ng occasionally reports a later word before an earlier one: keep starts monotonic.
    starts[known] = np.maximum.accumulate(starts[known])
    chars = np.array([t.start for t in tokens], dtype=np.float64)
    missing = np.flatnonzero(starts < 0)
    if len(missing):
        anchors_x = np.concatenate([chars[known], [tokens[-1].end]])
        anchors_y = np.concatenate([starts[known], [n_samples]]).astype(np.float64)
        if known[0] > 0:
            anchors_x = np.concatenate([[0.0], anchors_x])
            anchors_y = np.concatenate([[0.0], anchors_y])
        starts[missing] = np.round(np.interp(chars[missing], anchors_x, anchors_y)).astype(np.int64)
    return starts


def _syllables(word: str) -> float:
    hangul = sum(1 for c in word if "\uac00" <= c <= "\ud7a3")
    if hangul:
        return float(hangul)
    digits = sum(c.isdigit() for c in word)
    return max(1.0, len(_VOWEL_GROUP.findall(word)) + 1.5 * digits)


def _proportional_starts(tokens: list[Token], n_samples: int) -> np.ndarray:
    weights = np.array([_syllables(t.text) for t in tokens])
    edges = np.concatenate([[0.0], np.cumsum(weights)]) / weights.sum() * n_samples
    return np.round(edges[:-1]).astype(np.int64)


def _word_spans(audio: np.ndarray, sample_rate: int, starts: np.ndarray, *, trim_ends: bool) -> np.ndarray:
    """``(n_words, 2)`` start and end samples; an end is the last loud frame before the next start."""
    n = len(audio)
    nexts = np.concatenate([starts[1:], [n]])
    if not trim_ends:
        return np.stack([starts, np.maximum(nexts, starts + 1)], axis=1)
    frame = max(1, round(ENERGY_FRAME_SECONDS * sample_rate))
    rms = _frame_rms(audio, frame)
    loud = rms > _speech_threshold(rms)
    ends = np.empty_like(starts)
    for i, (start, nxt) in enumerate(zip(starts, nexts, strict=True)):
        first_frame, last_frame = start // frame, max(start // frame + 1, -(-nxt // frame))
        frames = np.flatnonzero(loud[first_frame:last_frame])
        end = (first_frame + frames[-1] + 1) * frame if len(frames) else start + frame
        ends[i] = min(max(end, start + 1), max(nxt, start + 1), n)
    return np.stack([starts, ends], axis=1)
