"""Installed-model records and the small JSON files the manager keeps in its root folder.

The root holds one folder per downloaded model (its manifest written last, so
a folder without one is never listed), one ``NAME.link.json`` per folder the
user registered with ``use()``, ``settings.json`` (the default model), and
hidden working folders (``.partial``, ``.staging-*``, ``.removing-*``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from engine.jobs import CancelToken

Engine = Literal["whisper", "vosk"]
Source = Literal["download", "linked", "package", "embedded"]

MANIFEST_NAME = "earshot-model.json"
LINK_SUFFIX = ".link.json"
SETTINGS_NAME = "settings.json"
RECORD_FORMAT = 1


@dataclass(frozen=True)
class ModelSpec:
    """Which engine and model folder to load.

    Attributes
    ----------
    engine : ``"whisper"`` or ``"vosk"`` (the benches' baseline also uses ``"pocketsphinx"``).
    name : the model's name as the model manager lists it.
    path : the model folder.
    language : language code, e.g. ``"en"`` or ``"ko"``.
    note : a hint for the user (e.g. that a better model can be downloaded).
    """

    engine: str
    name: str
    path: str
    language: str = ""
    note: str = ""


@dataclass(frozen=True)
class InstalledModel:
    """A speech model Earshot can use now.

    Attributes
    ----------
    name : the name to pass to ``resolve``, e.g. ``"vosk-model-small-en-us-0.15"``.
    path : the model folder.
    engine : ``"whisper"`` or ``"vosk"``.
    language : language code, e.g. ``"en-us"``; ``"und"`` when unknown.
    source : ``"download"`` (unpacked into the models folder), ``"linked"`` (a folder
        the user registered, not copied), ``"package"`` (a ``vosk_model_*`` Python
        package) or ``"embedded"`` (Whisper tiny.en, shipped with Earshot).
    size : bytes of the files in ``path``.
    """

    name: str
    path: Path
    engine: Engine
    language: str
    source: Source
    size: int

    def spec(self, note: str = "") -> ModelSpec:
        """What the recognition engines load."""
        return ModelSpec(engine=self.engine, name=self.name, path=str(self.path), language=self.language, note=note)


def now_iso() -> str:
    """The current UTC time, ISO 8601, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None if it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically (temporary file, then rename); raises OSError."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, sort_keys=True)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def folder_size(folder: Path) -> int:
    """Total bytes of the regular files under ``folder`` (symbolic links not followed)."""
    total = 0
    for dirpath, _dirnames, filenames in os.walk(folder):
        for filename in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, filename)).st_size
    return total


def sha256_file(path: Path, cancel: CancelToken | None = None) -> str:
    """SHA-256 of a file as 64 lowercase hex digits; checks ``cancel`` (if any) between 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(1 << 20):
            if cancel is not None:
                cancel.raise_if_cancelled()
            digest.update(block)
    return digest.hexdigest()
