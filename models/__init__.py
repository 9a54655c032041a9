"""Speech models: the catalogue of Vosk models, and the manager that finds, downloads, verifies and loads them.

This package never imports Qt or ``app`` (an import-linter contract in
``pyproject.toml`` enforces it).
"""

from models.catalogue import CATALOGUE, RECOMMENDED, CatalogueEntry, find_entry
from models.manager import ModelManager
from models.records import InstalledModel, ModelSpec

__all__ = ["CATALOGUE", "RECOMMENDED", "CatalogueEntry", "InstalledModel", "ModelManager", "ModelSpec", "find_entry"]
