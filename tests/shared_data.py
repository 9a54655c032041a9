"""The shared data sets beside the checkout (``../shared/data``), for the tests that read them."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def shared_data(name: str, what: str) -> Path:
    """The folder ``../shared/data/<name>``; the test is skipped, naming ``what``, when it is absent."""
    path = SHARED_DATA / name
    if not path.is_dir():
        pytest.skip(f"shared {what} absent ({path})")
    return path
