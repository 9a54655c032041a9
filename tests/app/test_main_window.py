"""The library window, driven offscreen with pytest-qt."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from engine.index.store import NewRecording, Store, WordRow

pytestmark = pytest.mark.gui


def _add(store: Store, name: str, seconds: float) -> None:
    words = [WordRow(0.0, 0.5, 0.9, "hello"), WordRow(0.6, 1.0, 0.8, "world")]
    store.save_recording(NewRecording(f"/r/{name}", name, name, 1, seconds, 16000, 1, "mp3", "mp3",
                                      "vosk", "vosk-model-small-en-us-0.15", "en", words, [(0, 1)]))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "lib.sqlite"
    with Store(path) as store:
        _add(store, "evening-news.mp3", 3600.0)
        _add(store, "council-meeting.wav", 5400.0)
        _add(store, "morning-news.mp3", 1800.0)
    return path


def test_window_lists_the_library_and_filters(qtbot, db: Path) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(db)
    qtbot.addWidget(window)
    window.show()
    assert window.proxy.rowCount() == 3
    assert "3 recordings, 3.0 hours" in window.status.text()
    qtbot.keyClicks(window.filter_edit, "news")
    names = {window.proxy.index(r, 0).data() for r in range(window.proxy.rowCount())}
    assert names == {"evening-news.mp3", "morning-news.mp3"}
    window.filter_edit.clear()
    window.table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    durations = [window.proxy.index(r, 1).data() for r in range(window.proxy.rowCount())]
    assert durations == ["0:30:00", "1:00:00", "1:30:00"]


def test_window_sees_recordings_added_by_another_process(qtbot, db: Path) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(db)
    qtbot.addWidget(window)
    with Store(db) as writer:
        _add(writer, "late-edition.ogg", 60.0)
    window.refresh()
    assert window.proxy.rowCount() == 4


def test_an_index_that_cannot_be_opened_is_reported(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from app.main_window import run_gui

    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database" * 200)
    assert run_gui(["earshot"], bad) == 1
    assert capsys.readouterr().err.strip() == f"earshot: error: {bad}: cannot open the index: file is not a database"
