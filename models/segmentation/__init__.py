"""Finds story-segmentation models (``engine.segment.loader`` loads them).

The shipped default, ``newsscape.npz`` beside this file, was trained on four
NewsScape channel-days of broadcast-news captions with the paper's features, for
recognizer output; ``newsscape-punctuated.npz`` adds the SENTENCE-START feature
and is used for punctuated input (captions, text); ``newsscape-recogniser.npz`` has the same
features trained on captions made recogniser-like (sentence ends thinned to Whisper's rate), for
Whisper output; ``newsscape-acoustic.npz`` keeps
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

#: The shipped model for recogniser text with Whisper-style punctuation (sentence ends and case only,
#: about one sentence end per 42 words), trained on captions made recogniser-like. It also carries a
#: boundary-posterior threshold fitted on held-out days (``info["posterior_threshold"]``, for ``--threshold``).
RECOGNISER_MODEL_NAME = "newsscape-recogniser"

#: Recognisers whose output goes to the X-DURATION-only model. PocketSphinx's bundled
#: English model gets most words of broadcast speech wrong; on its output the word
#: features, learnt from captions, pull every boundary away (bench/segment_asr_bench.py).
WEAK_RECOGNIZERS = frozenset({"pocketsphinx"})

#: Recognisers whose output is cased and punctuated (Whisper): their sentence ends feed the
#: SENTENCE-START feature, so their output goes to the recogniser model.
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
    assumes what the recogniser usually gives (Whisper: yes). Punctuated recogniser output
    goes to the recogniser model, trained on Whisper-like punctuation (captions punctuate
    three times as often, and ``newsscape-punctuated`` learnt from them waits for sentence
    ends Whisper does not write); a punctuating recogniser whose output has no sentence end
    falls back to the unpunctuated model.
    """
    if engine in WEAK_RECOGNIZERS:
        return ACOUSTIC_MODEL_NAME
    if punctuated is None:
        punctuated = engine in PUNCTUATING_RECOGNIZERS
    if not punctuated:
        return DEFAULT_MODEL_NAME
    # a build without the recogniser model (retrained separately) keeps the caption-punctuation model
    shipped = DEFAULT_MODEL_PATH.with_name(f"{RECOGNISER_MODEL_NAME}.npz").is_file()
    return RECOGNISER_MODEL_NAME if shipped else PUNCTUATED_MODEL_NAME
