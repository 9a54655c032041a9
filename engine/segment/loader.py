"""Loading segmentation models by name or path: :mod:`models.segmentation` says where a model
lives, this module reads it (kept per file and modification time, four at most)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from engine.errors import ModelError
from engine.segment.model import SegmentationModel
from models.segmentation import model_path


def load_model(name: str | Path | None = None) -> SegmentationModel:
    """Load a segmentation model by name or path; None gives the shipped default.

    Raises
    ------
    ModelError
        If there is no such model or it cannot be read.
    """
    path = model_path(name)
    if not path.is_file():
        raise ModelError(f"{path}: no such segmentation model")
    return _load_cached(str(path.resolve()), path.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _load_cached(path: str, mtime_ns: int) -> SegmentationModel:
    return SegmentationModel.load(path)
