"""Whisper recognition through CTranslate2 (``faster-whisper``), decoded in bounded chunks of speech.

The stream is cut into pieces of at most ``config.WHISPER_VAD_SECONDS`` at the quietest
moment near each piece's end, and the Silero voice-activity filter that ships with
``faster-whisper`` finds each piece's speech as it arrives; music, silence and noise go no
further. The speech is joined into chunks of at most ``config.WHISPER_CHUNK_SECONDS`` and each
chunk is decoded on its own (no text carried over from the previous chunk, which is what lets
Whisper fall into repetition loops), its times mapped back to the stream's. So memory stays flat
however long the recording: a piece, a chunk of speech and its features (computed a block at a
time, ``engine/asr/whisper_features.py``). A chunk holds many of Whisper's 30 s windows; its last
window is decoded over whatever speech is left, so short chunks cost extra passes
(``bench/chunk_bench.py``). The recogniser reports how far it has heard segment by segment
(``on_heard``), since it takes a whole chunk of blocks before it decodes any. Runs of repeated
words that survive are cut by ``drop_repeats``, and alternating loops by ``drop_loops``. Sub-word
pieces are joined into written words (``join_pieces``). Every word keeps Whisper's cased,
punctuated form in ``Word.display``; ``Word.text`` is the normalised token search uses.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from engine import config
from engine.asr.base import ModelSpec, Word
from engine.asr.whisper_features import lean_extractor
from engine.asr.whisper_load import load_whisper_model
from engine.errors import ModelError

#: Silence (ms) the voice-activity filter needs before it ends a stretch of speech (faster-whisper's default:
#: 2000).
VAD_MIN_SILENCE_MS = 500
_TOKEN_CHARS = re.compile(r"[^\w'’.-]+")
_EDGE_CHARS = "'’.-_"


def normalise_token(display: str) -> str:
    """The search token for a word as Whisper wrote it: ``" Hello,"`` -> ``"hello"``,
    ``"Don't"`` -> ``"don't"``, ``"U.S."`` -> ``"u.s"``; ``""`` for punctuation alone."""
    token = _TOKEN_CHARS.sub("", display.strip().lower()).replace("’", "'")
    return token.strip(_EDGE_CHARS)


def drop_repeats(words: Sequence[Word], *, max_repeats: int = config.WHISPER_MAX_REPEATS, max_n: int = 4) -> list[Word]:
    """``words`` without the copies beyond ``max_repeats`` of any n-gram (n <= ``max_n``)
    repeated back to back, the signature of a decoder stuck in a loop."""
    out: list[Word] = []
    for word in words:
        out.append(word)
        for n in range(1, max_n + 1):
            span = n * (max_repeats + 1)
            if len(out) < span:
                break
            tail = [w.text for w in out[-span:]]
            if all(tail[i] == tail[i % n] for i in range(span)):
                del out[-n:]
                break
    return out


def drop_loops(words: Sequence[Word], *, span: int = config.WHISPER_LOOP_WORDS,
               distinct: int = config.WHISPER_LOOP_DISTINCT, keep: int = config.WHISPER_MAX_REPEATS) -> list[Word]:
    """``words`` without the loops :func:`drop_repeats` cannot see because they alternate ("3, 4, 3, 4,
    4, 3, ..."): a stretch in which every ``span`` words in a row hold at most ``distinct`` different
    tokens keeps its first ``keep`` words."""
    looping = [False] * len(words)
    for i in range(len(words) - span + 1):
        counts = Counter(w.text for w in words[i : i + span])
        if len(counts) <= distinct:  # a word said once in the stretch ("right 3 4 3 4 ...") is not the loop
            for k in range(i, i + span):
                looping[k] = looping[k] or counts[words[k].text] > 1
    out: list[Word] = []
    run = 0
    for word, loop in zip(words, looping, strict=True):
        run = run + 1 if loop else 0
        if run <= keep:
            out.append(word)
    return out


def quietest_cut(samples: np.ndarray, *, sr: int, earliest: int, frame_seconds: float = 0.1) -> int:
    """Sample index in ``samples[earliest:]`` (float32, shape (n,)) at the centre of the
    quietest ``frame_seconds`` frame: where a chunk can end without splitting a word."""
    hop = max(1, int(frame_seconds * sr))
    tail = samples[earliest:]
    n_frames = tail.size // hop
    if n_frames < 2:
        return samples.size
    energy = np.square(tail[: n_frames * hop].reshape(n_frames, hop), dtype=np.float64).mean(axis=1)
    return earliest + int(np.argmin(energy)) * hop + hop // 2


class WhisperTranscriber:
    """Word-timed recognition with a CTranslate2 Whisper model folder (e.g. the bundled tiny.en)."""

    engine = "whisper"

    def __init__(self, spec: ModelSpec) -> None:
        self._model = load_whisper_model(spec)
        self._model.feature_extractor = lean_extractor(self._model.feature_extractor)  # long chunks, flat memory
        self.model_name = spec.name
        self._multilingual = bool(self._model.model.is_multilingual)
        # "en-us" -> "en"; "und" (unknown) lets a multilingual model detect the language per chunk
        language = spec.language.split("-")[0].lower() if spec.language not in ("", "und") else ""
        if not self._multilingual and language not in ("", "en"):
            raise ModelError(f"{spec.name}: an English-only Whisper model cannot transcribe language {spec.language!r}")
        self.language = language or ("" if self._multilingual else "en")

    @property
    def whisper_model(self) -> Any:
        """The loaded ``faster_whisper.WhisperModel`` (language identification reuses a multilingual one)."""
        return self._model

    def transcribe(
        self, blocks: Iterable[np.ndarray], *, sr: int, on_heard: Callable[[float], None] | None = None
    ) -> Iterator[list[Word]]:
        """Consume int16 blocks (shape (n,)); yield the words of each decoded chunk. ``on_heard(seconds)``
        follows the decoder segment by segment (the blocks consumed run up to a chunk ahead of it).

        The stream is cut into pieces of at most ``WHISPER_VAD_SECONDS`` at their quietest moment, and
        each piece's speech is found by the voice-activity filter as it arrives. The speech is decoded
        in chunks of at most ``WHISPER_CHUNK_SECONDS`` of speech, each ending where a piece's speech
        does; word times are those of the stream.
        """
        if sr != 16000:
            raise ModelError(f"{self.model_name}: Whisper needs 16000 Hz audio, got {sr} Hz")
        heard = _Heard(on_heard)
        speech = HeldSpeech(limit=int(config.WHISPER_CHUNK_SECONDS * sr))
        for offset, piece in _pieces(blocks, sr=sr):
            for start, end in speech_spans(piece):
                if not speech.fits(end - start) and speech.spans:
                    if words := self.decode_speech(speech, on_heard=heard):
                        yield words
                    heard((offset + start) / sr)
                speech.add(piece[start:end], offset + start, offset + end)
            heard.ahead = (offset + piece.size) / sr
            if not speech.spans:  # nothing waits for the decoder: it has heard the stream this far
                heard(heard.ahead)
        if speech.spans and (words := self.decode_speech(speech, on_heard=heard)):
            yield words
        heard(heard.ahead)

    def decode_speech(self, speech: HeldSpeech, *, on_heard: Callable[[float], None] | None = None) -> list[Word]:
        """Words of the speech held (times the stream's), which is let go as soon as its features are
        made: the decoder runs without it. ``on_heard(seconds)`` after each of the decoder's segments."""
        audio, spans = speech.take()
        if audio.size < int(0.1 * 16000):
            return []
        from faster_whisper.transcribe import restore_speech_timestamps  # lazy: imported with the model

        segments, _info = self._model.transcribe(audio, **self.decode_options())
        del audio  # the segments are decoded from the features alone
        pieces: list[Any] = []
        bounds = np.asarray(spans, dtype=np.float64).reshape(-1, 2) / 16000
        for segment in restore_speech_timestamps(segments, [{"start": a, "end": b} for a, b in spans], 16000):
            pieces.extend(hold_in_speech(word, bounds) for word in segment.words or ())
            if on_heard is not None:
                on_heard(float(segment.end))
        return drop_loops(drop_repeats([w for w in join_pieces(pieces) if w.text]))

    def decode_options(self) -> dict[str, Any]:
        """Keyword arguments given to ``WhisperModel.transcribe`` for every chunk of speech (already
        found: faster-whisper's own voice-activity filter is off)."""
        return {
            "language": self.language or None,
            "beam_size": config.WHISPER_BEAM_SIZE,
            # no temperature fallback: sampling at a higher temperature gives other words on every run
            "temperature": 0.0,
            "word_timestamps": True,
            "condition_on_previous_text": False,
            "vad_filter": False,
        }

    def whole_file_options(self) -> dict[str, Any]:
        """The same decoding as one ``WhisperModel.transcribe`` call over a whole file would make it, its
        voice-activity filter finding the speech with the silence :func:`speech_spans` uses (for peers)."""
        return {**self.decode_options(), "vad_filter": True,
                "vad_parameters": {"min_silence_duration_ms": VAD_MIN_SILENCE_MS}}  # fmt: skip


def hold_in_speech(word: Any, bounds: np.ndarray) -> Any:
    """``word`` (start and end in s, changed in place) held inside the stretch of speech its middle
    lies in; ``bounds``: (n, 2) start and end of each stretch in s, in order. The aligner can stretch
    the word before a pause over the pause, which the decoder never heard (one "the" of 8.7 s over a
    0.5 s pause), and the stream's time would then put it in the silence."""
    k = int(np.searchsorted(bounds[:, 0], (word.start + word.end) / 2, side="right")) - 1
    if k >= 0:
        word.start = min(max(word.start, bounds[k, 0]), bounds[k, 1])
        word.end = max(min(word.end, bounds[k, 1]), word.start)
    return word


def speech_spans(piece: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) sample spans of the speech in ``piece`` (float32, shape (n,), 16 kHz), as the Silero
    voice-activity filter inside faster-whisper finds them (padded as it pads them)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps  # lazy: loads the VAD's ONNX model

    found = get_speech_timestamps(piece, VadOptions(min_silence_duration_ms=VAD_MIN_SILENCE_MS))
    return [(int(c["start"]), int(c["end"])) for c in found]


def _pieces(blocks: Iterable[np.ndarray], *, sr: int) -> Iterator[tuple[int, np.ndarray]]:
    """(first sample, float32 samples) of the stream cut into pieces of at most ``WHISPER_VAD_SECONDS``,
    each ending at the quietest moment of its last ``WHISPER_CUT_WINDOW_SECONDS``."""
    limit = int(config.WHISPER_VAD_SECONDS * sr)
    earliest = int((config.WHISPER_VAD_SECONDS - config.WHISPER_CUT_WINDOW_SECONDS) * sr)
    pending: list[np.ndarray] = []
    held = offset = 0
    for block in blocks:
        pending.append(np.asarray(block, dtype=np.int16).astype(np.float32) / 32768.0)
        held += block.size
        while held >= limit:
            audio = np.concatenate(pending)
            cut = quietest_cut(audio[:limit], sr=sr, earliest=earliest)
            yield offset, audio[:cut]
            pending, held, offset = [audio[cut:]], audio.size - cut, offset + cut
    if held:
        yield offset, np.concatenate(pending)


class HeldSpeech:
    """The speech waiting for the next decode, written into one buffer of up to ``limit`` samples
    (float32; pages never written cost no memory), and its [start, end) spans in the stream."""

    def __init__(self, *, limit: int) -> None:
        self.limit = limit
        self.buffer = np.empty(0, dtype=np.float32)
        self.spans: list[tuple[int, int]] = []
        self.size = 0

    def fits(self, count: int) -> bool:
        return self.size + count <= self.limit

    def add(self, samples: np.ndarray, start: int, end: int) -> None:
        if self.buffer.size < self.size + samples.size:
            grown = np.empty(max(self.limit, self.size + samples.size), dtype=np.float32)
            grown[: self.size] = self.buffer[: self.size]
            self.buffer = grown
        self.buffer[self.size : self.size + samples.size] = samples
        self.spans.append((start, end))
        self.size += samples.size

    def take(self) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """The samples held (shape (size,)) and their spans; the buffer is handed over, not kept."""
        audio, spans = self.buffer[: self.size], self.spans
        self.buffer, self.spans, self.size = np.empty(0, dtype=np.float32), [], 0
        return audio, spans


class _Heard:
    """Tells ``on_heard`` how far the decoder has heard, never backwards."""

    def __init__(self, on_heard: Callable[[float], None] | None) -> None:
        self._on_heard = on_heard
        self._told = 0.0
        self.ahead = 0.0  # seconds of stream taken so far

    def __call__(self, seconds: float) -> None:
        if self._on_heard is not None and seconds >= self._told:
            self._told = seconds
            self._on_heard(seconds)


def join_pieces(pieces: Sequence[Any]) -> list[Word]:
    """One ``Word`` per written word from faster-whisper's word list.

    faster-whisper starts each new word with a space (``" U"``); a piece without one
    (``".S."``, ``"-year"``, ``",000"``) continues the word before it. The joined word runs
    from its first piece's start to its last piece's end, with the mean of the pieces'
    probabilities (as faster-whisper makes a piece's from its tokens'). Pieces of scripts
    written without spaces (Chinese, Japanese, Thai, ...) stay words of their own.
    """
    groups: list[list[Any]] = []
    for piece in pieces:
        text = str(piece.word)
        if groups and text[:1] and not text[:1].isspace() and not _unspaced_script(text[:1]):
            groups[-1].append(piece)
        else:
            groups.append([piece])
    return [_word(group) for group in groups]


def _unspaced_script(char: str) -> bool:
    """True for a character of a script written without spaces between words."""
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _UNSPACED_RANGES)


# Thai, Lao, Tibetan, Myanmar, Khmer, CJK punctuation and kana, CJK ideographs, full-width forms
# (Korean is written with spaces).
_UNSPACED_RANGES = ((0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF),
                    (0x3000, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF))


def _word(pieces: Sequence[Any]) -> Word:
    display = "".join(str(p.word) for p in pieces).strip()
    conf = sum(float(p.probability) for p in pieces) / len(pieces)
    return Word(
        start=round(float(pieces[0].start), 3), end=round(float(pieces[-1].end), 3),
        conf=min(1.0, max(0.0, conf)), text=normalise_token(display), display=display,
    )
