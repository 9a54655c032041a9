"""Stories at ingest: the model chosen by what the recogniser gives, and the story-length floor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engine.asr.base import Word
from engine.ingest.analyze import segment_stories
from engine.segment import config
from engine.segment.combiner import apply_model_combiner
from engine.segment.loader import load_model
from engine.segment.segmenter import segment_words
from models.segmentation import model_for_recognizer

NEWSSCAPE = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "newsscape"


@dataclass(frozen=True)
class CasedWord(Word):
    """A recogniser word with its cased, punctuated form, as Whisper gives it."""

    display: str = ""


@pytest.fixture(scope="module")
def day():
    from models.segmentation import DEFAULT_MODEL_PATH

    if not NEWSSCAPE.is_dir():
        pytest.skip(f"shared NewsScape data absent ({NEWSSCAPE})")
    if not DEFAULT_MODEL_PATH.is_file():
        pytest.skip("shipped segmentation models not built")
    from engine.segment.text import read_txt3

    return read_txt3(sorted(NEWSSCAPE.glob("*.txt3"))[0]).slice(0, 4000)


def _words(day, *, punctuated: bool) -> list[Word]:
    ends_sentence = set((day.sentence_starts[1:] - 1).tolist())
    out: list[Word] = []
    for i, w in enumerate(day.words):
        display = w.capitalize() + ("." if i in ends_sentence else "") if punctuated else ""
        out.append(CasedWord(float(day.starts[i]), float(day.ends[i]), 1.0, w, display))
    return out


@pytest.mark.slow  # the day and the story models cost ~5 s of CPU
@pytest.mark.parametrize(("engine", "punctuated"), [("whisper", True), ("vosk", False), ("whisper", False)],
                         ids=["whisper-punctuated", "vosk", "whisper-unpunctuated"])
def test_stories_cover_the_words_and_respect_the_floor(day, engine, punctuated):
    rows = segment_stories(_words(day, punctuated=punctuated), None, engine=engine)
    firsts = np.array([r.first_word for r in rows])
    lasts = np.array([r.last_word for r in rows])
    assert firsts[0] == 0 and lasts[-1] == len(day) - 1
    np.testing.assert_array_equal(firsts[1:], lasts[:-1] + 1)
    assert len(rows) == 1 or (lasts - firsts + 1).min() >= config.MIN_STORY_WORDS


def test_whisper_punctuation_reaches_the_segmenter(day):
    """Cased, punctuated output goes to Whisper's model with its sentence starts, then the model's
    boundary combiner, then the floor."""

    rows = segment_stories(_words(day, punctuated=True), None, engine="whisper")
    chosen = model_for_recognizer("whisper")
    direct = segment_words(day.words, starts=day.starts, ends=day.ends, model=chosen,
                           sentence_starts=day.sentence_starts)
    info = load_model(chosen).info
    assert "boundary_combiner" in info, "the shipped model for Whisper output carries its boundary combiner"
    direct = apply_model_combiner(direct, info["boundary_combiner"], words=[w.lower() for w in day.words],
                                  starts=day.starts, ends=day.ends, x_duration=None, transcribed=None,
                                  sentence_starts=day.sentence_starts)
    direct = direct.merged_short(config.MIN_STORY_WORDS)
    assert [r.first_word for r in rows] == direct.story_starts.tolist()
    np.testing.assert_allclose([r.confidence for r in rows], direct.confidence)
