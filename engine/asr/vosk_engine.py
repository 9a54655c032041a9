"""Vosk (Kaldi) recognition, streamed block by block."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from engine import config
from engine.asr.base import ModelSpec, Word
from engine.errors import ModelError
from engine.heap import release_heap


class VoskTranscriber:
    """Word-timed recognition with a Vosk model folder."""

    engine = "vosk"

    def __init__(self, spec: ModelSpec) -> None:
        import vosk  # lazy: native library, loaded only with a model

        vosk.SetLogLevel(-1)
        path = Path(spec.path)
        if not path.is_dir():
            raise ModelError(f"{spec.name}: model folder not found: {path}")
        try:
            self._model = vosk.Model(str(path))
        except Exception as exc:  # vosk raises a bare Exception when Kaldi refuses the folder
            raise ModelError(f"{spec.name}: Vosk cannot load the model in {path}: {exc}") from None
        self._vosk = vosk
        self.model_name = spec.name
        self.language = spec.language

    def transcribe(
        self, blocks: Iterable[np.ndarray], *, sr: int, on_heard: Callable[[float], None] | None = None
    ) -> Iterator[list[Word]]:
        """Recognise a stream; the recogniser is renewed at an utterance end every
        ``config.VOSK_RENEW_SECONDS`` of audio, because Kaldi's online feature
        pipeline keeps growing with the stream and memory must stay flat, and the
        old one's freed heap is handed back to the system (glibc keeps it otherwise)."""
        rec = self._new_recognizer(sr)
        offset = 0.0  # seconds of audio fed to earlier recognisers
        fed = 0  # samples fed to the current one
        for block in blocks:
            fed += block.size
            if rec.AcceptWaveform(np.ascontiguousarray(block, dtype=np.int16).tobytes()):
                words = _parse(rec.Result(), offset)
                if words:
                    yield words
            if on_heard is not None:
                on_heard(offset + fed / sr)
                if fed >= config.VOSK_RENEW_SECONDS * sr:
                    del rec
                    release_heap()  # the dropped recogniser's pages
                    rec = self._new_recognizer(sr)
                    offset += fed / sr
                    fed = 0
        words = _parse(rec.FinalResult(), offset)
        if words:
            yield words

    def _new_recognizer(self, sr: int):  # type: ignore[no-untyped-def]
        rec = self._vosk.KaldiRecognizer(self._model, float(sr))
        rec.SetWords(True)
        return rec


def _parse(result_json: str, offset: float) -> list[Word]:
    result = json.loads(result_json)
    return [
        Word(start=offset + float(w["start"]), end=offset + float(w["end"]), conf=float(w.get("conf", 1.0)),
             text=str(w["word"]))
        for w in result.get("result", ())
    ]
