"""What a Vosk model folder must hold, checked on disk and inside a zip archive.

Layout validity is what is checked here, not whether Kaldi can load the files:
current models hold ``am/final.mdl`` and ``conf/model.conf``; older ones hold
``final.mdl`` at the top of the model folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Literal

Layout = Literal["am", "flat"]

#: How the accepted layouts read in an error message.
LAYOUT_HINT = "am/final.mdl and conf/model.conf (or final.mdl)"


#: What a CTranslate2 Whisper model folder holds, for an error message.
WHISPER_HINT = "model.bin, config.json and tokenizer.json or vocabulary.*"


def whisper_layout(folder: Path) -> Literal["ctranslate2"] | None:
    """``"ctranslate2"`` if ``folder`` holds a CTranslate2 Whisper model (as faster-whisper loads it), else None."""
    has = [(folder / name).is_file() for name in ("model.bin", "config.json")]
    vocabulary = (folder / "tokenizer.json").is_file() or any(folder.glob("vocabulary.*"))
    return "ctranslate2" if all(has) and vocabulary else None


class ArchiveError(Exception):
    """Why a zip archive cannot be installed; the caller adds the model name."""


def layout_of(has_file: Callable[[str], bool]) -> Layout | None:
    """Which Vosk layout a folder has, given a test for a file at a relative POSIX path."""
    if has_file("am/final.mdl") and has_file("conf/model.conf"):
        return "am"
    if has_file("final.mdl"):
        return "flat"
    return None


def folder_layout(folder: Path) -> Layout | None:
    """The Vosk layout of ``folder`` on disk, or None if it is not a Vosk model."""
    return layout_of(lambda rel: (folder / rel).is_file())


def archive_model_root(names: Iterable[str]) -> str:
    """The prefix inside a zip under which the model lies: ``"top/"``, or ``""`` for files at the root.

    Raises ArchiveError for unsafe member paths and for archives without a
    Vosk layout at the single top folder (or at the root).
    """
    names = list(names)
    for member in names:
        parts = PurePosixPath(member).parts
        if member.startswith(("/", "\\")) or "\\" in member or ".." in parts or (parts and ":" in parts[0]):
            raise ArchiveError(f"the archive holds an unsafe path: {member}")
    tops = {PurePosixPath(member).parts[0] for member in names if member.strip("/")}
    files = {member for member in names if not member.endswith("/")}
    nested = len(tops) == 1 and not any("/" not in member for member in files)
    root = f"{next(iter(tops))}/" if nested else ""
    if layout_of(lambda rel: f"{root}{rel}" in files) is None:
        raise ArchiveError(f"not a Vosk model: the archive needs one top folder holding {LAYOUT_HINT}")
    return root
