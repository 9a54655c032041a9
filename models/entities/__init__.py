"""The shipped entity tagger for cased, punctuated words (``engine.entities.tagger`` loads it).

``conll-cased.npz`` beside this file is an averaged structured perceptron (learned weights
only) trained on the CoNLL-2003 English training set (Reuters news, 1996-97) with
``python -m tools.train_entities``: two passes (the second reads the first's answers for the same
word elsewhere in the text), epochs and minimum feature count chosen on the CoNLL development set
(testa), never on the test set. It is pinned by size and SHA-256 here.
Licence: the weights are Earshot's (same licence as the code); the CoNLL-2003 annotations are
free for research, while the Reuters text under them is licensed by NIST/Reuters (RCV1) to
research use, so a commercial redistributor should retrain on data they hold (see
``docs/entities.md``).
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import ModelError
from models.records import sha256_file

CASED_MODEL_PATH = Path(__file__).with_name("conll-cased.npz")
#: (bytes, SHA-256) of the shipped file; ``tools/train_entities.py`` prints both.
CASED_MODEL_PIN = (2_271_134, "1b2138c81c07659c6ab3211bf9b40f921723ffd617cec7d4fd72e6d8b9f59343")


def cased_model_path() -> Path:
    """The shipped cased model, after checking it is the pinned file; raises ModelError if not."""
    path = CASED_MODEL_PATH
    size, sha = CASED_MODEL_PIN
    if not path.is_file() or path.stat().st_size != size or sha256_file(path) != sha:
        raise ModelError(f"{path}: missing or not the pinned entity model (expected {size} bytes, SHA-256 {sha})")
    return path
