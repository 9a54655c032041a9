"""The main window on a 1024x700 screen: everything fits, nothing is squeezed, clipped or overlapping."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QWidget

from app.widgets import TITLE_BAR_ROOM, fit_inside_screen
from tests.app.gui_helpers import open_recording

pytestmark = pytest.mark.gui

#: A 1024x700 screen with a 32 px desktop panel at its top.
SCREEN = QRect(0, 0, 1024, 700)
PANEL = 32


@pytest.fixture
def small_screen(monkeypatch: pytest.MonkeyPatch) -> QRect:
    """The main window lays itself out for a 1024x700 screen with a desktop panel (the test screen's
    size cannot be chosen, so the window is told the room it has, as the screen would tell it)."""
    room = SCREEN.adjusted(0, PANEL, 0, 0)
    monkeypatch.setattr("app.main_window.fit_inside_screen", lambda window, _room=None: fit_inside_screen(window, room))
    return room


def _rect_in(window: QWidget, widget: QWidget) -> QRect:
    """``widget``'s rectangle in ``window``'s coordinates."""
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def test_the_window_and_its_status_bar_fit(qtbot, make_window, library: Path, small_screen: QRect) -> None:
    window = make_window(library)
    assert small_screen.contains(window.frameGeometry()), (window.frameGeometry(), small_screen)
    least = window.minimumSizeHint()  # with a real title bar (the offscreen frame is a few pixels) it still fits
    assert least.width() <= small_screen.width() and least.height() + TITLE_BAR_ROOM <= small_screen.height(), least
    status = window.statusBar()
    assert status.isVisible() and window.rect().contains(_rect_in(window, status))
    bottom = window.mapToGlobal(_rect_in(window, status).bottomLeft())
    assert small_screen.contains(bottom), (bottom, small_screen)


def test_a_window_not_yet_framed_keeps_room_for_its_title_bar() -> None:
    """Before the window manager frames it, the frame is unknown: the fit keeps a title bar's room."""
    window = QWidget()
    window.resize(1100, 720)
    fit_inside_screen(window, SCREEN)
    assert window.height() + TITLE_BAR_ROOM <= SCREEN.height() and window.width() <= SCREEN.width()


def test_the_evaluation_window_fits(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    evaluation = window.open_evaluation()
    qtbot.waitExposed(evaluation)
    fit_inside_screen(evaluation, SCREEN)
    least = evaluation.minimumSizeHint()
    assert least.width() <= SCREEN.width() and least.height() + TITLE_BAR_ROOM <= SCREEN.height() - PANEL
    assert SCREEN.contains(evaluation.frameGeometry())
    evaluation.close()


def test_the_search_results_wrap_to_the_panel(qtbot, make_window, library: Path, small_screen: QRect) -> None:
    window = make_window(library)
    panel = window.search_panel
    window.focus_search()
    for width in (None, 260):  # as laid out, and the dock made narrow
        if width is not None:
            window.resizeDocks([window.docks["search"]], [width], Qt.Orientation.Horizontal)
        with qtbot.waitSignal(panel.searched):
            panel.query.setText("bridge" if width is None else "the bridge")
        qtbot.waitUntil(lambda: panel.model.rowCount() > 0)
        results = panel.results
        viewport = results.viewport().rect()
        line = results.fontMetrics().lineSpacing()
        for row in range(panel.model.rowCount()):
            rect = results.visualRect(panel.model.index(row, 0))
            assert rect.left() >= 0 and rect.right() <= viewport.right(), (row, rect, viewport)
            assert rect.width() >= viewport.width() - 2  # the passage has the whole width
            assert rect.height() <= 9 * line, (rect, viewport)  # a snippet, not a column of single words
        assert not results.horizontalScrollBar().isVisible()


def test_the_library_name_column_is_readable(qtbot, make_window, library: Path, small_screen: QRect) -> None:
    window = make_window(library)
    window.docks["library"].raise_()
    table = window.library_panel.table
    qtbot.waitUntil(table.isVisible)
    name = "evening-news.wav"
    assert table.columnWidth(0) >= table.fontMetrics().horizontalAdvance(name) + 8, table.columnWidth(0)
    header = table.horizontalHeader()
    assert not table.horizontalScrollBar().isVisible()
    assert header.length() <= table.viewport().width()
    window.resize(1600, 1000)  # with room again, the columns hidden for the name come back
    window.resizeDocks([window.docks["library"]], [900], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: table.viewport().width() > 800)
    assert not any(table.isColumnHidden(c) for c in range(table.model().columnCount()))


def test_the_queue_needs_no_horizontal_scrolling(qtbot, make_window, library: Path, small_screen: QRect) -> None:
    window = make_window(library)
    window.enqueue([str(library.parent / "no-such-file.wav")])  # a failure, with its reason in Details
    table = window.ingest_panel.table
    qtbot.waitUntil(lambda: window.ingest_panel.model.rowCount() == 1)
    qtbot.waitUntil(table.isVisible)
    assert table.horizontalHeader().length() <= table.viewport().width()
    assert table.horizontalScrollBar().maximum() == 0
    details = window.ingest_panel.model.columnCount() - 1
    reason = str(window.ingest_panel.model.index(0, details).data())
    assert "no-such-file" in reason or "not" in reason, reason
    wrapped = table.fontMetrics().boundingRect(QRect(0, 0, table.columnWidth(details) - 8, 10_000),
                                               Qt.TextFlag.TextWordWrap, reason)
    assert table.rowHeight(0) >= wrapped.height(), (table.rowHeight(0), wrapped)  # all of the reason, wrapped


def test_the_transcript_header_and_legend_do_not_overlap(qtbot, make_window, library: Path, small_screen: QRect) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    panel = window.view.transcript
    parts = [panel.title, panel.legend, panel.follow]
    rects = [_rect_in(window, w) for w in parts]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b), (a, b)
    legend = panel.legend
    assert legend.width() >= legend.sizeHint().width()  # the legend's chips are all shown
    assert panel.title.width() >= panel.title.fontMetrics().horizontalAdvance("evening-news.wav")
