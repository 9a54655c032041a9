"""Language identification: the windows it hears, how it votes, and what each model does with the result."""

from __future__ import annotations

import numpy as np
import pytest

from engine import config
from engine.asr.language import LanguageGuess, decide_language, identify_language, window_starts
from engine.errors import LanguageMismatch


def test_a_file_shorter_than_a_window_is_one_window() -> None:
    assert window_starts(7.0) == [0.0]
    assert window_starts(30.0) == [0.0]


def test_windows_cover_the_file_from_its_start_to_its_end() -> None:
    # 40 s: two windows, the second ending at the file's end (a 30 s intro cannot hide the speech).
    assert window_starts(40.0, window=30.0, max_windows=3) == [0.0, 10.0]
    # Three hours: the start, the middle and the last 30 s.
    starts = window_starts(10800.0, window=30.0, max_windows=3)
    assert starts == [0.0, pytest.approx(5385.0), pytest.approx(10770.0)]


def test_an_empty_file_has_no_window() -> None:
    assert window_starts(0.0) == []


class _Scripted:
    """Stands in for the WhisperModel's feature extractor, encoder and detector: one probability list per
    window, in order; ``frames`` records how many frames the encoder heard for each."""

    nb_max_frames = 3000

    def __init__(self, answers: list[list[tuple[str, float]]]) -> None:
        self.answers = answers
        self.frames: list[int] = []
        self.feature_extractor = self.model = self

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        return np.zeros((80, audio.size // 160 + 1), np.float32)  # Whisper's 10 ms frames

    def encode(self, features: np.ndarray) -> np.ndarray:
        self.frames.append(features.shape[-1])
        return features

    def detect_language(self, encoded: np.ndarray) -> list[list[tuple[str, float]]]:
        return [[(f"<|{code}|>", p) for code, p in self.answers.pop(0)]]


def test_windows_vote_by_probability_not_by_count() -> None:
    # Two windows lean Spanish a little, one is sure of French: French has the larger mean.
    model = _Scripted([[("es", 0.4), ("fr", 0.35)], [("es", 0.4), ("fr", 0.35)], [("fr", 0.95), ("es", 0.01)]])
    second = np.zeros(16000 * 2, np.float32)
    guess = identify_language(model, [second, second, second])
    assert guess.language == "fr" and guess.windows == 3
    assert guess.probability == pytest.approx((0.35 + 0.35 + 0.95) / 3)
    assert guess.confident  # 0.55 >= config.LANGUAGE_MIN_PROBABILITY
    assert guess.scores == {"fr": 0.55, "es": pytest.approx(0.27)}


def test_the_encoder_hears_a_window_s_own_length_up_to_30_s() -> None:
    # Not padded to 30 s: a 5 s file's window costs a sixth of the encoder's 30 s pass.
    model = _Scripted([[("en", 0.9)], [("en", 0.9)]])
    identify_language(model, [np.zeros(16000 * 5, np.float32), np.zeros(16000 * 40, np.float32)])
    assert model.frames == [501, 3000]


def test_too_short_windows_are_not_heard() -> None:
    short = np.zeros(int(16000 * config.LANGUAGE_MIN_SPEECH_SECONDS) - 1, np.float32)
    assert identify_language(_Scripted([]), [short]) == LanguageGuess("", 0.0, 0)


FRENCH = LanguageGuess("fr", 0.96, 2, {"fr": 0.96, "en": 0.02})
UNSURE = LanguageGuess("fr", 0.41, 2, {"fr": 0.41, "en": 0.38, "it": 0.1})


def test_an_english_only_model_refuses_french_in_one_line() -> None:
    with pytest.raises(LanguageMismatch) as err:
        decide_language(FRENCH, own="en", model_name="whisper-tiny.en", multilingual=False, path="/r/a.wav")
    assert str(err.value) == (
        "/r/a.wav: heard French (fr, p=0.96), but whisper-tiny.en transcribes only English; choose the "
        "whisper-base model (earshot ingest --model whisper-base, or Settings > Models)")


@pytest.mark.parametrize(("guess", "own", "multilingual", "language", "note"), [
    (FRENCH, "", True, "fr", ""),
    (UNSURE, "", True, "fr", "language uncertain (fr 0.41, en 0.38, it 0.10); transcribed as fr"),
    (UNSURE, "en", False, "en", "language uncertain (fr 0.41, en 0.38, it 0.10); transcribed as en"),
    (LanguageGuess("en", 0.9, 1, {"en": 0.9}), "en-us", False, "en", ""),
    (FRENCH, "de", True, "de", "heard French (fr, p=0.96); transcribed as de, the language the model was told"),
    (LanguageGuess("", 0.0, 0), "en", False, "en", "language not identified (too little speech)"),
    (FRENCH, "und", False, "fr", ""),
], ids=["multilingual-told-what-was-heard", "multilingual-uncertain", "english-only-uncertain-keeps-en",
        "vosk-en-us-agrees", "told-a-language-keeps-it", "no-speech",
        "model-of-unknown-language-stores-what-was-heard"])
def test_what_each_model_transcribes_in(guess: LanguageGuess, own: str, multilingual: bool, language: str,
                                        note: str) -> None:
    decision = decide_language(guess, own=own, model_name="m", multilingual=multilingual, path="a.wav")
    assert (decision.language, decision.note) == (language, note)
