"""The timeline: waveform from a worker (cached), lanes from the index, click to seek, zoom and pan."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from app.timeline_view import LABEL_WIDTH, LANE_COUNT, LANE_HEIGHT, RULER_HEIGHT, WAVE_HEIGHT
from engine.audio.waveform import BINS_PER_SECOND, envelope_cache_path
from tests.app.gui_helpers import open_recording, wait_loaded

pytestmark = pytest.mark.gui


def test_waveform_and_lanes(make_window, qtbot, library: Path, broadcast) -> None:  # type: ignore[no-untyped-def]
    window = make_window(library)
    open_recording(qtbot, window)
    canvas = window.view.timeline.canvas
    qtbot.waitUntil(lambda: canvas.envelope is not None)
    assert canvas.envelope.shape == (pytest.approx(broadcast.truth.duration * BINS_PER_SECOND, abs=2), 2)
    assert envelope_cache_path(window.view.detail.recording["content_hash"]).is_file()
    lanes = {lane.name: len(lane.spans) for lane in canvas.lanes}
    assert lanes["Stories"] == 2
    assert lanes["Music"] == sum(1 for e in broadcast.truth.events if e.type == "music")
    assert lanes["Entities"] == 6
    assert list(lanes) == ["Stories", "Speakers", "Applause", "Laughter", "Audience", "Music", "Speech rate",
                           "Untranscribed", "Entities"]
    assert len(lanes) == LANE_COUNT  # the canvas's minimum height makes room for every lane
    # Every lane's name fits its label column (drawn 4 px in, 8 px narrower than the column).
    room = canvas.label_width() - 8
    assert all(canvas.fontMetrics().horizontalAdvance(name) <= room for name in [*lanes, "Waveform"])
    # Speech is louder than the music beds between the stories.
    story = broadcast.truth.stories[0]
    loud = np.abs(canvas.envelope[int(story.start * BINS_PER_SECOND): int(story.end * BINS_PER_SECOND)]).max()
    assert loud > 3000


def test_click_seeks(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    wait_loaded(qtbot, window)
    canvas = window.view.timeline.canvas
    x = round(canvas.x_of(20.0))
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(x, RULER_HEIGHT + 30))
    assert window.player.media.position() / 1000 == pytest.approx(canvas.time_at(x), abs=0.05)
    assert canvas.time_at(x) == pytest.approx(20.0, abs=canvas.view_span / canvas.plot_width() + 0.01)


def test_zoom_and_pan(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    panel = window.view.timeline
    canvas = panel.canvas
    whole = canvas.view_span
    qtbot.mouseClick(panel.zoom_in, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.zoom_in, Qt.MouseButton.LeftButton)
    assert canvas.view_span == pytest.approx(whole / 4)
    assert panel.scrollbar.maximum() > 0
    panel.scrollbar.setValue(panel.scrollbar.maximum())
    assert canvas.view_start + canvas.view_span == pytest.approx(canvas.duration, abs=0.1)
    start = canvas.view_start
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Home)
    assert canvas.view_start == 0.0 < start
    qtbot.mouseClick(panel.zoom_all, Qt.MouseButton.LeftButton)
    assert (canvas.view_start, canvas.view_span) == (0.0, whole)


def test_the_playhead_follows_the_player(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    wait_loaded(qtbot, window)
    canvas = window.view.timeline.canvas
    canvas.zoom(0.25, 0.0)
    window.player.seek(25.0)
    assert canvas.position == pytest.approx(25.0)
    assert canvas.view_start <= 25.0 <= canvas.view_start + canvas.view_span  # paged along
    assert canvas.x_of(25.0) > LABEL_WIDTH


@pytest.mark.parametrize(("start", "span", "width", "expected_max"), [
    (0.0, 20.0, 4, [249, 499, 749, 999]),  # several bins per column: the largest of each
    (1.0, 0.1, 4, [50, 51, 52, 54]),  # zoomed in past the bins: each column shows the bin it falls in
    (15.0, 10.0, 4, [874, 999, 0, 0]),  # past the end of the audio: empty columns
], ids=["overview", "zoomed-in", "past-the-end"])
def test_envelope_columns(start: float, span: float, width: int, expected_max: list[int]) -> None:
    from engine.audio.waveform import columns

    ramp = np.arange(1000)
    envelope = np.stack([-ramp, ramp], axis=1).astype(np.int16)  # 20 s at 50 bins a second
    cols = columns(envelope, start, span, width)
    assert np.rint(cols[:, 1] * 32768).astype(int).tolist() == expected_max
    assert np.array_equal(cols[:, 0], -cols[:, 1])


@pytest.mark.parametrize("lane_name", ["Stories", "Entities", "Music"])
def test_a_click_on_an_item_plays_it_from_its_start(make_window, qtbot, library: Path, lane_name: str) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    wait_loaded(qtbot, window)
    canvas = window.view.timeline.canvas
    k = next(i for i, lane in enumerate(canvas.lanes) if lane.name == lane_name)
    item = max(canvas.lanes[k].spans, key=lambda s: s.end - s.start)
    x = round(canvas.x_of((item.start + item.end) / 2))  # the middle of the item, not its start
    assert canvas.time_at(x) - item.start > 0.3 * (item.end - item.start) > 0.2  # so a seek to x would differ
    y = RULER_HEIGHT + WAVE_HEIGHT + k * LANE_HEIGHT + LANE_HEIGHT // 2
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    assert window.player.media.position() / 1000 == pytest.approx(item.start, abs=0.05)


COMMERCIAL_TXT3 = ("TOP|20060613000000|demo\n"
                   "20060613000002.000|20060613000004.000|SEG_00|Type=Story start\n"
                   "20060613000002.000|20060613000004.000|CC1|FLOODS IN YORKSHIRE.\n"
                   "20060613000010.000|20060613000040.000|SEG_00|Type=Commercial\n"
                   "20060613000010.000|20060613000012.000|CC1|BUY NOW.\n"
                   "20060613000041.000|20060613000042.000|SEG_00|Type=Story start\n"
                   "20060613000041.000|20060613000044.000|CC1|IN SPORT TONIGHT.\n")


def test_a_commercial_block_shows_as_commercials_between_numbered_stories(make_window, qtbot, tmp_path: Path) -> None:
    from engine.importer import import_transcript
    from engine.storage.store import Store

    caption = tmp_path / "demo.txt3"
    caption.write_text(COMMERCIAL_TXT3, encoding="utf-8")
    db = tmp_path / "lib.sqlite"
    with Store(db) as store:
        import_transcript(store, caption)
    window = make_window(db)
    open_recording(qtbot, window)
    stories = next(lane for lane in window.view.timeline.canvas.lanes if lane.name == "Stories").spans
    assert [(s.kind, s.label) for s in stories] == [("story", "Story 1"), ("commercial", "Commercials"),
                                                    ("story", "Story 2")]
    assert window.view.transcript.title.text().endswith("2 stories")
