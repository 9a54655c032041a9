"""Finds story-segmentation models (``engine.segment.loader`` loads them).

The shipped default, ``newsscape.npz`` beside this file, was trained on four
NewsScape channel-days of broadcast-news captions with the paper's features, for
recognizer output; ``newsscape-punctuated.npz`` adds the SENTENCE-START feature
and is used for punctuated input (captions, text); ``newsscape-acoustic.npz`` keeps
X-DURATION alone, for recognisers too inaccurate for the word features. Both hold learned parameters
only (see ``docs/segmentation.md``). Models a user trains with ``segment train --out NAME``
live in ``<user data>/models/segmentation/NAME.npz``.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import ParameterError
from engine.paths import models_dir

#: The model shipped with Earshot.
DEFAULT_MODEL_PATH = Path(__file__).with_name("newsscape.npz")
DEFAULT_MODEL_NAME = "newsscape"
#: The shipped model for punctuated input (captions, text): the paper's features plus SENTENCE-START.
PUNCTUATED_MODEL_NAME = "newsscape-punctuated"
#: The shipped model of X-DURATION alone, for recognisers whose words are too often wrong
#: for the word features (see ``model_for_recognizer``).
ACOUSTIC_MODEL_NAME = "newsscape-acoustic"

#: Recognisers whose output goes to the X-DURATION-only model. PocketSphinx's bundled
#: English model gets most words of broadcast speech wrong; on its output the word
#: features, learnt from captions, pull every boundary away (bench/segment_asr_bench.py).
WEAK_RECOGNIZERS = frozenset({"pocketsphinx"})

#: Recognisers whose output is cased and punctuated (Whisper): their sentence ends feed the
#: SENTENCE-START feature, so their output goes to the punctuated model.
PUNCTUATING_RECOGNIZERS = frozenset({"whisper"})


def user_models_dir() -> Path:
    """Folder of segmentation models trained by the user."""
    return models_dir() / "segmentation"


def model_path(name: str | Path | None = None) -> Path:
    """Where the model called ``name`` lives (a path is returned as it is).

    Names are looked up among the user's models first, then the shipped ones.
    """
    if name is None or str(name) == DEFAULT_MODEL_NAME:
        return DEFAULT_MODEL_PATH
    text = str(name)
    if text.endswith(".npz") or "/" in text or "\\" in text:
        return Path(text)
    if not text.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise ParameterError(f"model name {text!r} may hold only letters, digits, '-', '_' and '.'")
    for folder in (user_models_dir(), DEFAULT_MODEL_PATH.parent):
        candidate = folder / f"{text}.npz"
        if candidate.is_file():
            return candidate
    return user_models_dir() / f"{text}.npz"


def model_for_recognizer(engine: str | None, *, punctuated: bool | None = None) -> str:
    """Name of the shipped model that segments the output of recogniser ``engine``.

    ``punctuated`` says whether this output really carries sentence punctuation; None
    assumes what the recogniser usually gives (Whisper: yes). A punctuating recogniser
    whose output has no sentence end falls back to the unpunctuated model.
    """
    if engine in WEAK_RECOGNIZERS:
        return ACOUSTIC_MODEL_NAME
    if punctuated is None:
        punctuated = engine in PUNCTUATING_RECOGNIZERS
    return PUNCTUATED_MODEL_NAME if punctuated else DEFAULT_MODEL_NAME
