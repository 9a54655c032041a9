"""The library panel: listing, filtering, sorting, statuses with reasons, removal, transcribing again."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ingest_controller import FileStatus
from app.main_window import MainWindow, run_gui
from engine.jobs import JobState
from engine.storage.store import NewRecording, Store, WordRow

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
        job = store.start_job("ingest", "/r/broken.mp3")
        store.finish_job(job, "failed", "/r/broken.mp3: corrupt audio data: invalid frame")
    return path


def _names(window: MainWindow) -> list[str]:
    proxy = window.library_panel.proxy
    return [proxy.index(r, 0).data() for r in range(proxy.rowCount())]


def test_lists_recordings_and_failed_files_and_filters_them(qtbot, make_window, db: Path) -> None:
    window = make_window(db)
    panel = window.library_panel
    assert sorted(_names(window)) == ["council-meeting.wav", "evening-news.mp3", "morning-news.mp3"]  # problems apart
    assert "3 recordings, 3.0 h of audio" in panel.status.text()
    qtbot.keyClicks(panel.filter_edit, "news")
    assert sorted(_names(window)) == ["evening-news.mp3", "morning-news.mp3"]
    panel.filter_edit.clear()
    panel.status_filter.setCurrentText("Problems")
    assert _names(window) == ["broken.mp3"]
    status = panel.proxy.index(0, window.library.STATUS_COLUMN).data()
    assert status == "failed: corrupt audio data: invalid frame"
    assert panel.proxy.index(0, 5).data() == ""  # never indexed: no "Indexed" date
    assert panel.reingest_button.text() == "Retry"
    panel.status_filter.setCurrentText("All")
    assert sorted(_names(window))[0] == "broken.mp3"
    panel.table.horizontalHeader().setSortIndicator(1, Qt.SortOrder.AscendingOrder)
    durations = [panel.proxy.index(r, 1).data() for r in range(panel.proxy.rowCount())]
    assert durations == ["", "30:00", "1:00:00", "1:30:00"]


def test_sees_recordings_added_by_another_process(make_window, db: Path) -> None:
    window = make_window(db)
    with Store(db) as writer:
        _add(writer, "late-edition.ogg", 60.0)
    window.refresh()
    assert "late-edition.ogg" in _names(window)


def test_remove_asks_inline_then_removes(qtbot, make_window, db: Path) -> None:
    window = make_window(db)
    panel = window.library_panel
    qtbot.keyClicks(panel.filter_edit, "morning")
    panel.table.selectRow(0)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert panel.confirm.isVisible()
    assert "morning-news.mp3" in panel.confirm.label.text()
    qtbot.mouseClick(panel.confirm.yes, Qt.MouseButton.LeftButton)
    assert not panel.confirm.isVisible()
    panel.filter_edit.clear()
    assert "morning-news.mp3" not in _names(window)
    with Store(db) as store:
        assert [r["name"] for r in store.recordings(order_by="name")] == ["council-meeting.wav", "evening-news.mp3"]


def test_removing_a_failed_row_forgets_it(qtbot, make_window, db: Path) -> None:
    window = make_window(db)
    panel = window.library_panel
    panel.status_filter.setCurrentText("Problems")
    panel.table.selectRow(0)
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Delete)
    qtbot.mouseClick(panel.confirm.yes, Qt.MouseButton.LeftButton)
    assert _names(window) == []


def test_transcribe_again_queues_the_selected_files_with_force(qtbot, make_window, db: Path, monkeypatch) -> None:
    window = make_window(db)
    queued: list[tuple[list[str], bool]] = []
    monkeypatch.setattr(window.ingest, "enqueue", lambda paths, force=False: queued.append((paths, force)) or paths)
    panel = window.library_panel
    qtbot.keyClicks(panel.filter_edit, "council")
    panel.table.selectRow(0)
    qtbot.mouseClick(panel.reingest_button, Qt.MouseButton.LeftButton)
    assert queued == [(["/r/council-meeting.wav"], True)]


def test_an_interrupted_ingest_is_listed_as_interrupted(make_window, tmp_path: Path) -> None:
    db = tmp_path / "lib.sqlite"
    with Store(db) as store:
        store.start_job("ingest", "/r/killed.wav")
        store.conn.execute("UPDATE jobs SET pid = 0")  # its process is gone
    window = make_window(db)
    assert _names(window) == []
    window.library_panel.status_filter.setCurrentText("Problems")
    assert _names(window) == ["killed.wav"]
    assert window.library_panel.proxy.index(0, 4).data().startswith("interrupted: the program stopped")
    assert window.statusBar().currentMessage() == "An earlier ingest of /r/killed.wav was interrupted; it was not indexed."


def test_an_interrupted_reingest_says_the_earlier_transcript_is_kept(make_window, db: Path) -> None:
    with Store(db) as store:
        store.start_job("ingest", "/r/council-meeting.wav")
        store.conn.execute("UPDATE jobs SET pid = 0")
    window = make_window(db)
    message = window.statusBar().currentMessage()
    assert message == ("An earlier ingest of /r/council-meeting.wav was interrupted; "
                       "its previous transcript is still indexed.")  # fmt: skip


def test_an_index_that_cannot_be_opened_is_reported(tmp_path: Path, capsys) -> None:
    shown: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, read_and_close)  # not up yet
            return
        shown.append(box.text())
        box.accept()

    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database" * 200)
    QTimer.singleShot(20, read_and_close)
    assert run_gui(["earshot"], bad) == 1
    reason = f"{bad}: cannot open the index: file is not a database"
    assert capsys.readouterr().err.strip() == f"earshot: error: {reason}"
    assert shown == [f"Earshot cannot start.\n\n{reason}"]


def test_cancelling_transcribe_again_keeps_the_recording_in_recordings(qtbot, make_window, db: Path) -> None:
    window = make_window(db)
    path = "/r/council-meeting.wav"
    with Store(db) as store:  # what the ingest records when the re-transcription is cancelled
        store.finish_job(store.start_job("ingest", path), "cancelled", "cancelled")
    for state in (JobState.RUNNING, JobState.CANCELLED):  # what the ingest queue reports on the way
        window.ingest.file_changed.emit(FileStatus(path, state, "cancelled" if state is JobState.CANCELLED else ""))
    window.refresh()
    assert "council-meeting.wav" in _names(window)
    row = _names(window).index("council-meeting.wav")
    assert window.library_panel.proxy.index(row, window.library.STATUS_COLUMN).data() == "done"
    window.library_panel.status_filter.setCurrentText("Problems")
    assert _names(window) == ["broken.mp3"]
    window.close()
    again = make_window(db)  # and after a restart
    assert "council-meeting.wav" in _names(again)


def test_counts_read_in_the_singular_and_short_audio_in_seconds(qtbot, make_window, tmp_path: Path) -> None:
    db = tmp_path / "one.sqlite"
    with Store(db) as store:
        _add(store, "jingle.wav", 21.0)
    window = make_window(db)
    assert window.library_panel.status.text().startswith("1 recording, 21 s of audio, indexed in ")
    assert window.library_status.text() == "1 recording · 21 s"
    window.view.open(window.library.row_at(0).recording_id)
    assert window.view.transcript.title.text() == "jingle.wav — 2 words, 0 stories"


def test_a_failed_rows_status_tooltip_gives_the_whole_reason(make_window, db: Path) -> None:
    window = make_window(db)
    window.library_panel.status_filter.setCurrentText("Problems")
    tip = window.library_panel.proxy.index(0, window.library.STATUS_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "failed: corrupt audio data: invalid frame"


def test_help_about_says_what_and_where(make_window, db: Path) -> None:
    import engine

    window = make_window(db)
    action = next(a for a in window.actions_by_menu["&Help"] if a.text() == "&About Earshot")
    action.trigger()
    box = window.about_box
    assert box is not None and box.isVisible()
    assert box.text().startswith(f"Earshot {engine.__version__}\n")
    assert f"Index: {db}" in box.text()
    box.close()


def test_the_version_is_the_one_pyproject_gives() -> None:
    import tomllib

    import engine

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert engine.__version__ == pyproject["project"]["version"]


def test_column_titles_are_never_cut(make_window, db: Path) -> None:
    window = make_window(db)
    header = window.library_panel.table.horizontalHeader()
    model = window.library_panel.table.model()
    for column in range(1, model.columnCount()):
        if window.library_panel.table.isColumnHidden(column):  # hidden to give the name room
            continue
        title = model.headerData(column, Qt.Orientation.Horizontal)
        room = 20  # the header's margins and the sort arrow
        assert header.sectionSize(column) >= header.fontMetrics().horizontalAdvance(title) + room, title
