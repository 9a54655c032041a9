"""Fixtures for the model manager tests: a temporary data folder, a local model server, a fake model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.models.model_testkit import CURRENT_LAYOUT, ModelServer, build_zip, model_files, running_server


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh Earshot data folder per test; the local server is never reached through a proxy."""
    folder = tmp_path / "data"
    monkeypatch.setenv("EARSHOT_DATA_DIR", str(folder))
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    return folder


@pytest.fixture
def server() -> Iterator[ModelServer]:
    """A running local model server."""
    with running_server() as state:
        yield state


@pytest.fixture
def good_files() -> dict[str, bytes]:
    """The files of a fake model in the current layout."""
    return model_files(CURRENT_LAYOUT)


@pytest.fixture
def good_zip(good_files: dict[str, bytes]) -> bytes:
    """A correct archive of the fake model, the way Alpha Cephei packs them: one top folder."""
    return build_zip(good_files)
