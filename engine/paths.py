"""Where Earshot keeps its files: the user data folder (platformdirs).

``EARSHOT_DATA_DIR`` overrides the location (tests, portable installs). Nothing
is ever written inside the application folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Earshot"


def data_dir() -> Path:
    """The user data folder; created on first use."""
    override = os.environ.get("EARSHOT_DATA_DIR")
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_db_path() -> Path:
    """The library index used when ``--db`` is not given."""
    return data_dir() / "library.sqlite"


def models_dir() -> Path:
    """Folder holding downloaded and linked speech models."""
    return data_dir() / "models"


def log_dir() -> Path:
    return data_dir() / "logs"


def cache_dir() -> Path:
    """Cache for compiled kernels and other rebuildable files."""
    override = os.environ.get("EARSHOT_CACHE_DIR")
    path = Path(override) if override else Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path
