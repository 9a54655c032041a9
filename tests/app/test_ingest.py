"""Ingest through the GUI: real recognition (the embedded Whisper model), queue rows, cancel, errors."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from app import dialogs
from app.ingest_controller import FileStatus
from app.ingest_panel import QUEUE_ROWS_SHOWN
from app.tasks import TaskPool
from engine.jobs import JobState
from engine.search.text import query_terms
from engine.storage.store import Store
from tests.app.gui_helpers import wait_loaded

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def _drop(window, paths: list[Path]) -> None:  # type: ignore[no-untyped-def]
    """Drag files from a file manager and drop them on the window."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    centre = QPointF(window.rect().center())
    enter = QDragEnterEvent(centre, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(centre, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


def test_ingest_search_and_play_from_the_hot_spot(qtbot, make_window, tmp_path: Path, one_story: Path,
                                                  monkeypatch) -> None:
    db = tmp_path / "lib.sqlite"
    window = make_window(db, pool=TaskPool())  # real threads: the UI keeps running while the job does
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args, **kwargs: [str(one_story)])
    seen: list[JobState] = []
    window.ingest.file_changed.connect(lambda status: seen.append(status.state))
    progressed: list[float] = []
    window.ingest.file_progress.connect(lambda path, done, total: progressed.append(done))

    with qtbot.waitSignal(window.ingest.batch_finished, timeout=90000):
        qtbot.mouseClick(window.library_panel.add_button, Qt.MouseButton.LeftButton)
        queue_row = window.ingest_panel.model.row_at(0)
        assert queue_row.path == str(one_story) and queue_row.state in (JobState.QUEUED, JobState.RUNNING)
    assert JobState.RUNNING in seen and seen[-1] is JobState.DONE
    assert progressed, "no progress reached the UI while recognising"
    assert window.ingest_panel.model.index(0, 1).data() == "done"
    qtbot.waitUntil(lambda: window.library.rowCount() == 1 and window.library.row_at(0).recording_id is not None)
    assert window.library_panel.proxy.index(0, 4).data() == "done"

    with Store(db) as store:
        words = store.words(1)
    searchable = collections.Counter(w["text"] for w in words if len(w["text"]) >= 4 and query_terms(w["text"]))
    query = searchable.most_common(1)[0][0]  # a recognised word that is not a stop word
    search = window.search_panel
    window.focus_search()
    with qtbot.waitSignal(search.searched, timeout=10000):
        qtbot.keyClicks(search.query, query)
    assert search.model.rowCount() >= 1
    hit = search.model.hits[0]
    assert any(hit.start <= w["start"] <= hit.end for w in words if w["text"] == query)

    search.results.setFocus()
    search.results.setCurrentIndex(search.model.index(0, 0))
    qtbot.keyClick(search.results, Qt.Key.Key_Return)
    assert window.player.recording_id == 1
    wait_loaded(qtbot, window)
    qtbot.waitUntil(lambda: window.view.detail is not None)
    assert hit.hot_spot - 0.05 <= window.player.media.position() / 1000 <= hit.hot_spot + 3.0


def test_cancel_a_running_ingest(qtbot, make_window, tmp_path: Path, one_story: Path) -> None:
    db = tmp_path / "lib.sqlite"
    window = make_window(db)  # the immediate pool: the job runs inside the call, deterministic
    panel = window.ingest_panel

    def cancel_when_running(status: FileStatus) -> None:
        if status.state is JobState.RUNNING:
            panel.select_path(status.path)
            qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)

    window.ingest.file_changed.connect(cancel_when_running)
    window.enqueue([str(one_story)])
    row = panel.model.row_at(0)
    assert (row.state, row.message) == (JobState.CANCELLED, "cancelled")
    assert panel.model.index(0, 1).data() == "cancelled"
    with Store(db) as store:
        assert store.recordings() == []
        assert [j["status"] for j in store.jobs()] == ["cancelled"]
    window.refresh()
    assert window.library_panel.proxy.rowCount() == 0  # a cancelled file is not a recording ...
    window.library_panel.status_filter.setCurrentText("Problems")  # ... it waits under Problems, with Retry
    assert window.library_panel.proxy.index(0, 4).data() == "cancelled: cancelled"


def test_cancel_all_stops_waiting_files_too(qtbot, make_window, tmp_path: Path, one_story: Path) -> None:
    second = tmp_path / "second.wav"
    shutil.copy(one_story, second)
    window = make_window(tmp_path / "lib.sqlite")

    def cancel_all_when_running(status: FileStatus) -> None:
        if status.state is JobState.RUNNING:
            qtbot.mouseClick(window.ingest_panel.cancel_all_button, Qt.MouseButton.LeftButton)

    window.ingest.file_changed.connect(cancel_all_when_running)
    window.settings.workers = 1
    window.enqueue([str(one_story), str(second)])
    states = {window.ingest_panel.model.row_at(r).state for r in range(2)}
    assert states == {JobState.CANCELLED}


def test_a_corrupt_file_fails_on_its_row_with_the_reason(qtbot, make_window, tmp_path: Path) -> None:
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(range(256)) * 8)
    window = make_window(tmp_path / "lib.sqlite")
    _drop(window, [bad])
    row = window.ingest_panel.model.row_at(0)
    assert row.state is JobState.FAILED
    assert row.message.startswith(f"{bad}: ")
    reason = row.message.removeprefix(f"{bad}: ")
    assert window.ingest_panel.model.index(0, 4).data() == reason  # the row names the file already
    assert reason in window.log.toPlainText()
    assert reason in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.library.rowCount() == 1)
    window.library_panel.status_filter.setCurrentText("Problems")
    assert window.library_panel.proxy.index(0, 4).data() == f"failed: {reason}"


def test_failures_cross_threads_as_signals(qtbot, make_window, tmp_path: Path) -> None:
    empty, missing = tmp_path / "empty.mp3", tmp_path / "gone.wav"
    empty.write_bytes(b"")
    window = make_window(tmp_path / "lib.sqlite", pool=TaskPool())
    with qtbot.waitSignal(window.ingest.batch_finished, timeout=30000):
        window.enqueue([str(empty), str(missing)])
    messages = {Path(window.ingest_panel.model.row_at(r).path).name: window.ingest_panel.model.row_at(r).message
                for r in range(window.ingest_panel.model.rowCount())}
    assert messages == {"empty.mp3": f"{empty}: empty file (0 bytes)",
                        "gone.wav": f"{missing}: file not found (missing or removed)"}


def test_a_cluster_ingest_from_the_app(qtbot, make_window, tmp_path: Path, one_story: Path) -> None:
    pytest.importorskip("distributed", reason="Dask (the cluster extra, requirements-cluster.lock) is not installed")
    window = make_window(tmp_path / "lib.sqlite", pool=TaskPool())
    dialog = window.open_settings()
    dialog.tabs.setCurrentWidget(dialog.library)
    field = dialog.library.cluster
    field.setText("local:zero")
    field.editingFinished.emit()
    assert dialog.library.cluster_note.text() == (
        "Not used: --cluster 'local:zero': expected local:N with N a whole number of at least 1")
    assert window._ingest_options().cluster == ""
    field.setText("local:1")
    field.editingFinished.emit()
    assert window._ingest_options().cluster == "local:1"
    dialog.close()

    with qtbot.waitSignal(window.ingest.batch_finished, timeout=180000):
        window.enqueue([str(one_story)])
    row = window.ingest_panel.model.row_at(0)
    assert row.state is JobState.DONE, row.message
    assert "cluster local:1: 1 workers, 1 threads" in window.log.toPlainText()
    assert window.ingest_panel.summary.text().startswith("1 of 1 files, ")
    qtbot.waitUntil(lambda: window.library.rowCount() == 1 and window.library.row_at(0).recording_id is not None)
    with Store(tmp_path / "lib.sqlite") as store:
        assert store.counts()["words"] > 10


def test_the_queue_shows_whole_rows_and_follows_the_running_file(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    panel = window.ingest_panel
    table = panel.table
    shown = table.viewport().height() / table.verticalHeader().defaultSectionSize()
    assert shown >= QUEUE_ROWS_SHOWN, shown  # whole rows, not two and a half
    paths = [str(tmp_path / f"talk-{k:02d}.wav") for k in range(40)]
    for path in paths:  # what the controller reports for a big batch
        window.ingest.file_changed.emit(FileStatus(path, JobState.QUEUED))
    window.ingest.file_changed.emit(FileStatus(paths[33], JobState.RUNNING))
    running = panel.model.index(panel.model.row_of(paths[33]), 0)
    qtbot.waitUntil(lambda: table.viewport().rect().contains(table.visualRect(running).center()))
