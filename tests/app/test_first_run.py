"""A first run that guides: the empty state, a window that fits a small screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect

from engine.jobs import JobState
from engine.paths import data_dir
from engine.selftest import SAMPLE_NAME

pytestmark = pytest.mark.gui


@pytest.mark.slow  # transcribes the 20 s sample
def test_an_empty_library_shows_where_to_start(qtbot, make_window, tmp_path: Path, whisper_model) -> None:
    """Try the sample: the bundled recording is transcribed into the library, which then shows its table."""
    window = make_window(tmp_path / "lib.sqlite")
    panel = window.library_panel
    assert panel.pages.currentWidget() is panel.empty
    panel.empty.sample_button.click()
    qtbot.waitUntil(lambda: window.library.rowCount() == 1, timeout=20_000)  # the pool runs the ingest at once
    queued = window.ingest_panel.model.row_at(0)
    sample = str(data_dir() / "samples" / SAMPLE_NAME)
    assert (queued.path, queued.state) == (sample, JobState.DONE), queued
    row = window.library.row_at(0)
    assert (row.path, row.name) == (sample, "Earshot sample - two news stories.flac")  # not "selftest.flac"
    assert panel.pages.currentWidget() is panel.table
    qtbot.waitUntil(lambda: window.view.detail is not None)  # opened once transcribed
    qtbot.waitUntil(lambda: window.library.row_at(0).recording_id is not None)
    assert window.view.recording_id == window.library.row_at(0).recording_id


def test_a_library_with_recordings_shows_the_table(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    assert window.library_panel.pages.currentWidget() is window.library_panel.table


def test_the_window_fits_a_1024_by_700_screen(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 700


def test_a_saved_window_bigger_than_the_screen_is_brought_inside(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    room: QRect = window.screen().availableGeometry()
    window.resize(room.width() + 600, room.height() + 400)
    window.move(room.right() + 200, room.bottom() + 200)
    window.fit_to_screen()
    least = window.minimumSizeHint()  # the test screen may be smaller than the window can be
    assert window.width() <= max(room.width(), least.width())
    assert window.height() <= max(room.height(), least.height())
    assert room.contains(window.frameGeometry().topLeft())


def test_model_advice_opens_settings_at_the_models(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    window.ingest.model_advice.emit("using the built-in PocketSphinx US-English model; for much better accuracy")
    assert window.model_button is not None and window.model_button.isVisible()
    window.model_button.click()
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Speech models"
    dialog.close()


def test_the_evaluation_window_opens_inside_the_screen(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    evaluation = window.open_evaluation()
    qtbot.waitExposed(evaluation)
    room: QRect = evaluation.screen().availableGeometry()
    least = evaluation.minimumSizeHint()
    assert room.width() < 1100 or room.height() < 720, "the test screen must be smaller than the window wants"
    assert evaluation.width() <= max(room.width(), least.width())
    assert evaluation.height() <= max(room.height(), least.height())
    assert room.contains(evaluation.frameGeometry().topLeft())
    evaluation.close()
