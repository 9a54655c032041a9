"""Real Whisper recognition (the embedded tiny.en) on LibriVox read speech, and the
failed-file-then-good-file case for Whisper and Vosk."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import config
from engine.asr import ModelSpec, Word, load_transcriber
from engine.asr.whisper_engine import (
    HeldSpeech,
    WhisperTranscriber,
    drop_repeats,
    hold_in_speech,
    normalise_token,
    quietest_cut,
)
from engine.audio.decode import decode_all, iter_pcm_blocks
from engine.errors import AudioError, ModelError
from engine.evaluate.word_errors import scoring_tokens, word_errors

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def whisper(whisper_model: ModelSpec) -> WhisperTranscriber:
    tr = load_transcriber(whisper_model)
    assert isinstance(tr, WhisperTranscriber)
    return tr


def _words(tr, blocks) -> list[Word]:  # type: ignore[no-untyped-def]
    return [w for u in tr.transcribe(blocks, sr=16000) for w in u]


def test_whisper_transcribes_librivox_within_eight_percent(whisper, librivox: dict[Path, str]) -> None:  # type: ignore[no-untyped-def]
    total = None
    for path, ref in librivox.items():
        words = _words(whisper, iter_pcm_blocks(path))
        assert [w.start for w in words] == sorted(w.start for w in words)
        errors = word_errors(scoring_tokens([ref]), scoring_tokens(w.text for w in words))
        total = errors if total is None else total + errors
    assert total is not None and total.wer <= 0.08, total


def test_whisper_keeps_case_and_punctuation_beside_the_token(whisper, librivox: dict[Path, str]) -> None:  # type: ignore[no-untyped-def]
    path = next(p for p in librivox if p.name.endswith("0870.wav"))
    words = _words(whisper, iter_pcm_blocks(path))
    assert all(w.text == normalise_token(w.display) and w.text == w.text.lower() for w in words)
    assert words[0].display[0].isupper() and words[-1].display.endswith(".")
    assert any(w.display == "Dashwood" and w.text == "dashwood" for w in words), [w.display for w in words]


def test_whisper_hears_nothing_in_silence_or_a_steady_tone(whisper) -> None:  # type: ignore[no-untyped-def]
    t = np.arange(16000 * 20) / 16000
    tone = (3000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    assert _words(whisper, iter([np.zeros(16000 * 20, dtype=np.int16)])) == []
    assert len(_words(whisper, iter([tone]))) <= 2


def test_progress_moves_through_a_stream_without_speech(whisper: WhisperTranscriber) -> None:
    """No speech waits for the decoder, so each voice-activity piece heard is progress told."""
    told: list[float] = []
    silence = (np.zeros(16000, dtype=np.int16) for _ in range(int(2.5 * config.WHISPER_VAD_SECONDS)))
    assert [w for u in whisper.transcribe(silence, sr=16000, on_heard=told.append) for w in u] == []
    assert len(told) >= 3 and told == sorted(told) and told[-1] == 2.5 * config.WHISPER_VAD_SECONDS, told
    assert told[0] <= config.WHISPER_VAD_SECONDS, told


def test_whisper_decodes_a_long_stream_in_bounded_chunks(
    whisper_model: ModelSpec, librivox: dict[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two minutes of read speech with 4 s of silence after every 25 s, in 30 s chunks of speech and
    20 s voice-activity pieces (the shipped ones are longer than the stream): every chunk handed to the
    decoder is at most WHISPER_CHUNK_SECONDS of speech and holds the speech only, word times run on
    across chunks in the stream's time, the memory does not grow from chunk to chunk, and the progress
    told follows the decoder, never ahead of the blocks consumed."""
    psutil = pytest.importorskip("psutil")
    monkeypatch.setattr(config, "WHISPER_CHUNK_SECONDS", 30.0)
    monkeypatch.setattr(config, "WHISPER_VAD_SECONDS", 20.0)
    chunks: list[int] = []
    rss: list[int] = []

    class Recording(WhisperTranscriber):
        def decode_speech(self, speech: HeldSpeech, *, on_heard: Any = None) -> list[Word]:
            chunks.append(speech.size)
            assert speech.size == sum(b - a for a, b in speech.spans) and all(a < b for a, b in speech.spans)
            spans = [(a / 16000, b / 16000) for a, b in speech.spans]
            words = super().decode_speech(speech, on_heard=on_heard)
            assert all(any(a <= w.start <= w.end <= b for a, b in spans) for w in words)  # never in a pause
            assert speech.size == 0 and speech.buffer.size == 0  # let go
            rss.append(psutil.Process().memory_info().rss)
            return words

    clips = [decode_all(p) for p in sorted(librivox)]
    silence = np.zeros(4 * 16000, dtype=np.int16)
    stream = np.concatenate([*clips, silence] * 4)  # 4 x (25 s + 4 s)
    pulled = [0]
    heard: list[tuple[float, float]] = []  # (seconds told, seconds of blocks consumed by then)

    def blocks() -> Iterator[np.ndarray]:
        for i in range(0, stream.size, 8000):
            pulled[0] = min(stream.size, i + 8000)
            yield stream[i : i + 8000]

    words = [w for u in Recording(whisper_model).transcribe(blocks(), sr=16000,
                                                             on_heard=lambda t: heard.append((t, pulled[0] / 16000)))
             for w in u]  # fmt: skip
    told = [t for t, _ in heard]
    assert told == sorted(told) and all(t <= p + 0.01 for t, p in heard), heard
    assert told[-1] == pytest.approx(stream.size / 16000) and len(heard) > 2 * len(chunks)
    assert any(p - t > 10 for t, p in heard), heard  # decoding lags the blocks taken for a chunk
    assert max(chunks) <= config.WHISPER_CHUNK_SECONDS * 16000
    assert 0.7 * stream.size < sum(chunks) < stream.size - 4 * 2 * 16000  # most of each silence is left out
    assert max(rss[2:]) - rss[1] < 64 * 2**20, [r // 2**20 for r in rss]  # flat after the first chunks warm up
    assert len(chunks) >= sum(chunks) / 16000 / config.WHISPER_CHUNK_SECONDS
    assert words[-1].end > stream.size / 16000 - 5 and [w.start for w in words] == sorted(w.start for w in words)
    ref = scoring_tokens(list(librivox[p] for p in sorted(librivox)) * 4)
    assert word_errors(ref, [w.text for w in words]).wer < 0.15


def test_a_word_stretched_over_a_pause_is_held_in_its_speech() -> None:
    from faster_whisper.transcribe import Word as Piece

    bounds = np.array([[10.0, 29.2], [30.5, 40.0], [44.0, 50.0]])
    over = [hold_in_speech(Piece(a, b, " w", 0.9), bounds) for a, b in [(24.56, 33.26), (30.2, 31.0), (35.0, 36.0)]]
    assert [(w.start, w.end) for w in over] == [(24.56, 29.2), (30.5, 31.0), (35.0, 36.0)]
    before = hold_in_speech(Piece(5.0, 6.0, " w", 0.9), bounds)  # before every stretch: left alone
    assert (before.start, before.end) == (5.0, 6.0)


def _fails_midway(path: Path, after_seconds: float) -> Iterator[np.ndarray]:
    """The blocks of ``path`` up to ``after_seconds``, then the error a truncated file raises."""
    done = 0
    for block in iter_pcm_blocks(path):
        yield block
        done += block.size
        if done >= after_seconds * 16000:
            raise AudioError(path, "truncated file (simulated cut in the stream)")


def test_a_failed_file_never_fails_the_next(whisper_model: ModelSpec, librivox: dict[Path, str]) -> None:
    tr = load_transcriber(whisper_model)
    paths = sorted(librivox)
    with pytest.raises(AudioError, match="truncated file"):
        _words(tr, _fails_midway(paths[0], 2.5))
    words = _words(tr, iter_pcm_blocks(paths[2]))
    errors = word_errors(scoring_tokens([librivox[paths[2]]]), scoring_tokens(w.text for w in words))
    assert errors.wer < 0.2, (errors, [w.text for w in words])
    # an abandoned stream (the consumer stops reading) leaves a clean state too
    gen = tr.transcribe(iter_pcm_blocks(paths[0]), sr=16000)
    next(gen, None)
    gen.close()
    assert _words(tr, iter_pcm_blocks(paths[2]))


def test_a_failed_file_never_fails_the_next_vosk(ko_model: ModelSpec, tmp_path: Path) -> None:
    from tests.fixtures.audio import espeak

    speech = espeak("오늘 날씨가 좋습니다 내일은 비가 내리겠습니다", tmp_path / "ko.wav", voice="ko", speed=160)
    tr = load_transcriber(ko_model)
    good = _words(tr, iter_pcm_blocks(speech))
    with pytest.raises(AudioError, match="truncated file"):
        _words(tr, _fails_midway(speech, 1.0))
    after = _words(tr, iter_pcm_blocks(speech))
    # Kaldi's decoding of this sentence varies a little from run to run, failure or not
    similar = difflib.SequenceMatcher(None, [w.text for w in good], [w.text for w in after]).ratio()
    assert good and similar >= 0.6, ([w.text for w in good], [w.text for w in after])


@pytest.mark.parametrize(
    ("display", "token"),
    [(" Hello,", "hello"), ("Don't", "don't"), ("U.S.", "u.s"), ("—", ""), ("$5", "5"), ("twenty-five", "twenty-five")],
    ids=["comma", "apostrophe", "abbreviation", "dash-only", "currency", "hyphen"],
)
def test_normalise_token(display: str, token: str) -> None:
    assert normalise_token(display) == token


def test_drop_repeats_cuts_decoding_loops_only() -> None:
    def ws(text: str) -> list[Word]:
        return [Word(i, i + 0.5, 0.9, t) for i, t in enumerate(text.split())]

    assert [w.text for w in drop_repeats(ws("thank you thank you thank you thank you thank you so"))] == \
        ["thank", "you"] * 4 + ["so"]
    assert [w.text for w in drop_repeats(ws("no no no no no no"))] == ["no", "no", "no", "no"]
    assert [w.text for w in drop_repeats(ws("words words words words"))] == ["words"] * 4  # genuine: kept
    assert [w.text for w in drop_repeats(ws("very good very good very good very good"))] == ["very", "good"] * 4
    assert [w.text for w in drop_repeats(ws("that that is is what it is"))] == ["that", "that", "is", "is", "what", "it", "is"]


def test_quietest_cut_falls_in_the_pause() -> None:
    rng = np.random.default_rng(7)
    audio = rng.normal(0, 0.3, 16000 * 30).astype(np.float32)
    audio[16000 * 25 : 16000 * 25 + 3200] = 0.0
    cut = quietest_cut(audio, sr=16000, earliest=16000 * 22)
    assert 16000 * 25 <= cut <= 16000 * 25 + 3200


def test_a_folder_without_whisper_files_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"^w: Whisper model in .* lacks model.bin, config.json$"):
        load_transcriber(ModelSpec("whisper", "w", str(tmp_path)))
