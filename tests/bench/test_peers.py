"""The benches' PocketSphinx baseline (bench/peers.py): real recognition of LibriVox read speech,
streams that end mid-word, capped utterances, and a failed file that never fails the next."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from engine.asr import ModelSpec
from engine.audio.decode import decode_all, iter_pcm_blocks
from engine.errors import AudioError, ModelError
from engine.evaluate.word_errors import scoring_tokens, word_errors

pytest.importorskip("pocketsphinx", reason="pocketsphinx (the bench extra) is not installed")
from bench import peers

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sphinx() -> peers.SphinxTranscriber:
    return peers.sphinx_transcriber()


def _words(tr: peers.SphinxTranscriber, blocks: Iterator[np.ndarray]) -> list[str]:
    return [w.text for u in tr.transcribe(blocks, sr=16000) for w in u]


def test_librivox_is_recognised_with_timed_lower_case_words(sphinx: peers.SphinxTranscriber,
                                                             librivox: dict[Path, str]) -> None:  # fmt: skip
    ref: list[str] = []
    hyp: list[str] = []
    for path, text in sorted(librivox.items()):
        words = [w for u in sphinx.transcribe(iter_pcm_blocks(path), sr=16000) for w in u]
        assert all(w.text == w.text.lower() and "(" not in w.text and not w.text.startswith("<") for w in words)
        assert [w.start for w in words] == sorted(w.start for w in words)
        ref += scoring_tokens([text])
        hyp += scoring_tokens(w.text for w in words)
    assert word_errors(ref, hyp).wer < 0.45


@pytest.mark.parametrize("cut", [0, 1, 479], ids=["on-frame-boundary", "one-past", "one-short"])
def test_a_stream_ending_inside_speech(sphinx: peers.SphinxTranscriber, librivox: dict[Path, str], cut: int) -> None:
    """A stream that stops mid-word, wherever it falls against the 30 ms endpointer frames."""
    pcm = decode_all(sorted(librivox)[0])
    end = (pcm.size // 2) // 480 * 480 + cut
    words = [w for u in sphinx.transcribe(iter([pcm[:end]]), sr=16000) for w in u]
    assert words and words[-1].end <= end / 16000 + 0.05


def test_utterances_are_capped(sphinx: peers.SphinxTranscriber, librivox: dict[Path, str],
                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Continuous speech longer than the cap is decoded as several utterances, with times running on."""
    monkeypatch.setattr(peers, "MAX_UTTERANCE_SECONDS", 4.0)
    clip = decode_all(sorted(librivox)[0])  # 7 s of speech with no pause the endpointer ends on
    utterances = list(sphinx.transcribe(iter([clip]), sr=16000))
    assert len(utterances) >= 2
    words = [w for u in utterances for w in u]
    assert [w.start for w in words] == sorted(w.start for w in words) and words[-1].end <= clip.size / 16000 + 0.05


def test_a_failed_file_never_fails_the_next(sphinx: peers.SphinxTranscriber, librivox: dict[Path, str]) -> None:
    paths = sorted(librivox)

    def fails_midway() -> Iterator[np.ndarray]:
        for block in iter_pcm_blocks(paths[0]):
            yield block
            raise AudioError(paths[0], "truncated file (simulated cut in the stream)")

    with pytest.raises(AudioError, match="truncated file"):
        _words(sphinx, fails_midway())
    errors = word_errors(scoring_tokens([librivox[paths[2]]]), scoring_tokens(_words(sphinx, iter_pcm_blocks(paths[2]))))
    assert errors.wer < 0.6


def test_a_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    spec = ModelSpec("pocketsphinx", "pocketsphinx-en-us", str(tmp_path))
    with pytest.raises(ModelError, match=r"^pocketsphinx-en-us: PocketSphinx model in .* lacks en-us, en-us.lm.bin"):
        peers.SphinxTranscriber(spec)
