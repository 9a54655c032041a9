"""Fixtures for the GUI tests: an immediate task pool, a generated broadcast, a library built from its truth.

The library fixture stores the broadcast's ground-truth words (with their
times) as a transcript and fills the stories, events and entities tables the
way the analysis engines will, so panels can be checked without running
recognition. The tests that need recognition ingest through the GUI itself.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pytestqt")

from app.main_window import MainWindow
from app.tasks import ImmediatePool
from engine.storage.store import Store
from tests.app.gui_helpers import STORIES, Broadcast, store_truth
from tools.broadcast import BroadcastTruth, build_broadcast


@pytest.fixture(scope="session")
def _session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("earshot-cache")


@pytest.fixture(autouse=True)
def _private_cache_dir(_session_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Waveform envelopes are cached: keep them out of the user's cache folder (one folder per session,
    so compiled kernels are reused between tests)."""
    monkeypatch.setenv("EARSHOT_CACHE_DIR", str(_session_cache_dir))
    return _session_cache_dir


@pytest.fixture(scope="session")
def broadcast(tmp_path_factory: pytest.TempPathFactory) -> Broadcast:
    """Two short stories read by espeak-ng with a music bed between them (about 20 s)."""
    wav, truth = _spoken(tmp_path_factory, "broadcast/evening-news.wav", stories=STORIES, seed=0)
    return Broadcast(wav, truth)


@pytest.fixture(scope="session")
def one_story(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A single short story, no music: the quickest thing to ingest for real."""
    return _spoken(tmp_path_factory, "one-story/bulletin.wav", stories=STORIES[:1], seed=1, music_beds=False)[0]


def _spoken(tmp_path_factory: pytest.TempPathFactory, where: str, **options: Any) -> tuple[Path, BroadcastTruth]:
    """A broadcast read by espeak-ng, no noise bursts, written to ``where`` ("folder/name.wav", the folder made
    fresh in the session's temp tree), and its truth; ``options`` go to build_broadcast."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (tools/setup.sh installs it)")
    folder_name, wav_name = where.split("/")
    folder = tmp_path_factory.mktemp(folder_name)
    wav = folder / wav_name
    return wav, build_broadcast(wav, noise_bursts=False, tts_cache_dir=folder / "tts", **options)


@pytest.fixture
def library(tmp_path: Path, broadcast: Broadcast) -> Path:
    """An index holding the broadcast's true transcript with its analysis tables filled."""
    db = tmp_path / "library.sqlite"
    with Store(db) as store:
        store_truth(store, broadcast)
    return db


@pytest.fixture
def pool() -> ImmediatePool:
    return ImmediatePool()


@pytest.fixture
def make_window(qtbot, pool: ImmediatePool) -> Iterator[Callable[..., MainWindow]]:  # type: ignore[no-untyped-def]
    """``make_window(db, pool=...)``: a shown main window, closed after the test."""

    def make(db: Path, **kwargs: object) -> MainWindow:
        window = MainWindow(db, pool=kwargs.pop("pool", pool))  # type: ignore[arg-type]
        qtbot.addWidget(window)
        with qtbot.waitExposed(window):
            window.show()
        if not window.isActiveWindow():
            with qtbot.waitActive(window):  # shortcuts need the active window
                window.activateWindow()
        return window

    yield make
