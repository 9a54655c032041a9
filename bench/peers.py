"""PocketSphinx, the benches' baseline recogniser (no longer a product engine).

``SphinxTranscriber`` implements the product's transcriber interface
(``engine.asr.base.Transcriber``) with the US-English model the ``pocketsphinx``
package ships, so the benches run it through the same ingest path as Whisper
and Vosk and score the same ``Word`` lists. The audio is cut into utterances by
PocketSphinx's own endpointer (voice activity), each decoded separately and
capped at ``MAX_UTTERANCE_SECONDS``. Needs the ``bench`` extra (``pocketsphinx``).

::

    from bench.peers import sphinx_spec, SphinxTranscriber
    words = [w for u in SphinxTranscriber(sphinx_spec()).transcribe(blocks, sr=16000) for w in u]
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from engine.asr.base import ModelSpec, Word
from engine.errors import ModelError

ENGINE = "pocketsphinx"
MODEL_NAME = "pocketsphinx-en-us"
#: Files the engine loads from the model folder.
MODEL_FILES = ("en-us", "en-us.lm.bin", "cmudict-en-us.dict")
#: Longest stretch of audio decoded as one utterance, in seconds. Its endpointer has no cap
#: of its own: continuous speech would otherwise grow the decoder's lattice without bound.
MAX_UTTERANCE_SECONDS = 30.0
_ALT_PRONUNCIATION = re.compile(r"\(\d+\)$")


def sphinx_spec() -> ModelSpec:
    """The US-English model inside the ``pocketsphinx`` package; ModelError if it is missing."""
    try:
        import pocketsphinx
    except ImportError:
        raise ModelError(f"{MODEL_NAME}: the pocketsphinx package is not installed (the bench extra)") from None
    folder = Path(pocketsphinx.get_model_path()) / "en-us"
    if not all((folder / name).exists() for name in MODEL_FILES):
        raise ModelError(f"{MODEL_NAME}: the model in {folder} is incomplete")
    return ModelSpec(ENGINE, MODEL_NAME, str(folder), "en-us")


def sphinx_transcriber() -> SphinxTranscriber:
    """The baseline recogniser, loaded."""
    return SphinxTranscriber(sphinx_spec())


def _is_filler(word: str) -> bool:
    return word.startswith(("<", "[", "+")) or word == ""


class SphinxTranscriber:
    """Word-timed recognition with a PocketSphinx acoustic model, dictionary and LM."""

    engine = ENGINE

    def __init__(self, spec: ModelSpec) -> None:
        from pocketsphinx import Decoder, Endpointer  # lazy: native library, loaded only with a model

        folder = Path(spec.path)
        hmm, lm, dic = folder / "en-us", folder / "en-us.lm.bin", folder / "cmudict-en-us.dict"
        missing = [p.name for p in (hmm, lm, dic) if not p.exists()]
        if missing:
            raise ModelError(f"{spec.name}: PocketSphinx model in {folder} lacks {', '.join(missing)}")
        try:
            self._decoder = Decoder(hmm=str(hmm), lm=str(lm), dict=str(dic), samprate=16000, loglevel="FATAL")
        except (RuntimeError, ValueError) as exc:
            raise ModelError(f"{spec.name}: PocketSphinx cannot load {folder}: {exc}") from None
        self._endpointer_cls = Endpointer
        self._frame_rate = int(self._decoder.config["frate"])
        self.model_name = spec.name
        self.language = spec.language or "en"
        self._in_utt = False

    def transcribe(
        self, blocks: Iterable[np.ndarray], *, sr: int, on_heard: Callable[[float], None] | None = None
    ) -> Iterator[list[Word]]:
        """Consume int16 blocks (shape (n,)); yield the words of each utterance.

        An utterance longer than ``MAX_UTTERANCE_SECONDS`` is ended
        and a new one started, so the decoder's lattice stays bounded. If the
        stream fails, the open utterance is closed before the error goes on, so
        the next file starts from a clean decoder.
        """
        if sr != 16000:
            raise ModelError(f"{self.model_name}: PocketSphinx needs 16000 Hz audio, got {sr} Hz")
        ep = self._endpointer_cls(sample_rate=sr)
        frame_bytes = ep.frame_bytes
        max_bytes = int(MAX_UTTERANCE_SECONDS * sr) * 2
        buf = b""
        self._in_utt = False
        utt_start, utt_bytes = 0.0, 0
        fed = 0  # samples consumed
        try:
            for block in blocks:
                fed += block.size
                if on_heard is not None:
                    on_heard(fed / sr)
                buf += np.ascontiguousarray(block, dtype=np.int16).tobytes()
                while len(buf) >= frame_bytes:
                    frame, buf = buf[:frame_bytes], buf[frame_bytes:]
                    speech = ep.process(frame)
                    if speech is None:
                        continue
                    if not self._in_utt:
                        self._start_utterance()
                        utt_start, utt_bytes = float(ep.speech_start), 0
                    elif utt_bytes >= max_bytes:
                        yield from self._end_utterance(utt_start)
                        self._start_utterance()
                        utt_start, utt_bytes = utt_start + utt_bytes / (2 * sr), 0
                    self._decoder.process_raw(speech, False, False)
                    utt_bytes += len(speech)
                    if not ep.in_speech:
                        yield from self._end_utterance(utt_start)
            # end_stream() cannot take an empty buffer (a stream ending exactly on a
            # frame boundary): give it one frame of silence instead.
            tail = ep.end_stream(buf or bytes(frame_bytes)) if ep.in_speech or self._in_utt else None
            if tail:
                if not self._in_utt:
                    self._start_utterance()
                    utt_start = float(ep.speech_start)
                self._decoder.process_raw(tail, False, False)
            if self._in_utt:
                yield from self._end_utterance(utt_start)
        finally:
            if self._in_utt:  # the stream failed or was abandoned mid-utterance
                with contextlib.suppress(RuntimeError):
                    self._decoder.end_utt()
                self._in_utt = False

    def _start_utterance(self) -> None:
        self._decoder.start_utt()
        self._in_utt = True

    def _end_utterance(self, offset: float) -> Iterator[list[Word]]:
        self._decoder.end_utt()
        self._in_utt = False
        words = []
        for seg in self._decoder.seg():
            if _is_filler(seg.word):
                continue
            words.append(
                Word(
                    start=offset + seg.start_frame / self._frame_rate,
                    end=offset + (seg.end_frame + 1) / self._frame_rate,
                    conf=float(min(1.0, max(0.0, seg.prob))),
                    text=_ALT_PRONUNCIATION.sub("", seg.word),
                )
            )
        if words:
            yield words
