"""The timeline: waveform overview and lanes (stories, speakers, events, speech rate, X-duration, entities).

Click to seek (a click on a story, speaker turn, event or entity plays it from its start; a right
click on a speaker turn offers to rename or merge the speaker); the wheel pans,
Ctrl+wheel (or +/-) zooms around the pointer, a drag with the middle button or Shift pans; the
scroll bar below shows the view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen, QWheelEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollBar, QToolTip, QVBoxLayout, QWidget

from app import colours
from app.format import clock, clock_precise
from app.transcript_doc import ENTITY_COLOURS, EVENT_COLOURS
from app.widgets import tool_button
from engine.audio.waveform import columns
from engine.library import EVENT_LANES, RATE_TYPES, RecordingDetail, Span

#: The narrowest lane-label column, px; it widens to the longest lane name in the widget's font.
LABEL_WIDTH = 84
RULER_HEIGHT = 18
WAVE_HEIGHT = 64
LANE_HEIGHT = 15
#: The lane of X-duration (sound before a word that the recogniser did not transcribe), in words a user reads.
UNTRANSCRIBED_LANE = "Untranscribed"
#: Who speaks when: one bar per turn, coloured per speaker (app.colours.SPEAKER_CHIPS).
SPEAKERS_LANE = "Speakers"
#: Lanes every recording shows (lanes_of keeps empty ones): the canvas is at least tall enough for all of them.
LANE_COUNT = 9
#: Shortest view, seconds (zoomed all the way in).
MIN_SPAN = 2.0
_STORY_COLOURS = (QColor("#cfd8dc"), QColor("#b0bec5"))
#: Commercial blocks: hatched-looking amber, apart from the stories' greys (chip text stays black on it).
_COMMERCIAL_COLOUR = QColor("#ffe0a3")


@dataclass(frozen=True)
class Lane:
    name: str
    spans: tuple[Span, ...]


def lanes_of(detail: RecordingDetail) -> list[Lane]:
    """The lanes in display order; empty lanes are kept so the layout does not jump between recordings."""
    by_type: dict[str, list[Span]] = {}
    for e in detail.events:
        by_type.setdefault(e.kind, []).append(e)
    lanes = [Lane("Stories", tuple(detail.stories)), Lane(SPEAKERS_LANE, tuple(detail.turns))]
    lanes += [Lane(t.capitalize(), tuple(by_type.get(t, ()))) for t in EVENT_LANES]
    lanes.append(Lane("Speech rate", tuple(s for t in RATE_TYPES for s in by_type.get(t, ()))))
    lanes.append(Lane(UNTRANSCRIBED_LANE, tuple(detail.x_durations)))
    lanes.append(Lane("Entities", tuple(detail.entities)))
    return lanes


class TimelineCanvas(QWidget):
    """Paints one recording's overview between ``view_start`` and ``view_start + view_span`` seconds."""

    seek_requested = Signal(float)
    view_changed = Signal()
    speaker_menu_requested = Signal(int, QPoint)  # speaker label, global position of a right click on its turn

    def __init__(self) -> None:
        super().__init__()
        self.setAccessibleName("Timeline")
        self.setAccessibleDescription("Waveform and lanes; click to play from a time, Ctrl+wheel to zoom")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.duration = 0.0
        self.view_start = 0.0
        self.view_span = 1.0
        self.position = 0.0
        self.envelope: np.ndarray | None = None
        self.lanes: list[Lane] = []
        self._drag_from: tuple[float, float] | None = None
        self.setMinimumHeight(RULER_HEIGHT + WAVE_HEIGHT + LANE_COUNT * LANE_HEIGHT + 6)

    # -- state ------------------------------------------------------------------------------

    def set_recording(self, duration: float, lanes: list[Lane]) -> None:
        self.duration = max(duration, 0.001)
        self.lanes = lanes
        self.envelope = None
        self.view_start, self.view_span = 0.0, self.duration
        self.position = 0.0
        self.view_changed.emit()
        self.update()

    def set_envelope(self, envelope: np.ndarray | None) -> None:
        self.envelope = envelope
        self.update()

    def set_position(self, seconds: float) -> None:
        old_x, self.position = self.x_of(self.position), seconds
        new_x = self.x_of(seconds)
        if self.view_span < self.duration and not (self.view_start <= seconds <= self.view_start + self.view_span):
            self.set_view(seconds - self.view_span * 0.1, self.view_span)  # page along with playback
        else:
            self.update(int(min(old_x, new_x)) - 2, 0, int(abs(new_x - old_x)) + 5, self.height())

    def set_view(self, start: float, span: float) -> None:
        span = min(max(span, min(MIN_SPAN, self.duration)), self.duration)
        start = min(max(0.0, start), self.duration - span)
        if (start, span) != (self.view_start, self.view_span):
            self.view_start, self.view_span = start, span
            self.view_changed.emit()
            self.update()

    def zoom(self, factor: float, around: float | None = None) -> None:
        """Multiply the visible span by ``factor`` (< 1 zooms in), keeping ``around`` (seconds) in place."""
        centre = self.view_start + self.view_span / 2 if around is None else around
        frac = (centre - self.view_start) / self.view_span
        span = self.view_span * factor
        self.set_view(centre - frac * span, span)

    # -- geometry ---------------------------------------------------------------------------

    def label_width(self) -> int:
        """Width of the lane-label column, px: the longest lane name in this font, and at least LABEL_WIDTH."""
        names = ("Waveform", "Stories", SPEAKERS_LANE, "Speech rate", UNTRANSCRIBED_LANE, "Entities",
                 *(t.capitalize() for t in EVENT_LANES))
        return max(LABEL_WIDTH, max(self.fontMetrics().horizontalAdvance(n) for n in names) + 12)

    def plot_width(self) -> int:
        return max(1, self.width() - self.label_width())

    def x_of(self, seconds: float) -> float:
        return self.label_width() + (seconds - self.view_start) / self.view_span * self.plot_width()

    def time_at(self, x: float) -> float:
        t = self.view_start + (x - self.label_width()) / self.plot_width() * self.view_span
        return min(max(0.0, t), self.duration)

    def lane_at(self, y: int) -> int | None:
        top = RULER_HEIGHT + WAVE_HEIGHT
        k = (y - top) // LANE_HEIGHT
        return int(k) if y >= top and 0 <= k < len(self.lanes) else None

    def span_at(self, x: float, y: int) -> Span | None:
        """The lane item drawn under (x, y), or None; items are drawn at least 2 px wide, so hit as drawn."""
        k = self.lane_at(y)
        if k is None or x < self.label_width():
            return None
        slack = 2.0 / self.plot_width() * self.view_span
        t = self.time_at(x)
        under = [s for s in self.lanes[k].spans if s.start - slack / 2 <= t <= max(s.end, s.start + slack)]
        return min(under, key=lambda s: s.end - s.start) if under else None  # the narrowest: drawn on top

    # -- painting ---------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(self.rect(), pal.base())
        self._paint_ruler(p)
        self._paint_wave(p)
        for k, lane in enumerate(self.lanes):
            self._paint_lane(p, k, lane)
        p.setPen(QPen(QColor("#d32f2f"), 1.5))
        x = self.x_of(self.position)
        if x >= self.label_width():
            p.drawLine(QLineF(x, 0, x, self.height()))
        p.end()

    def _paint_ruler(self, p: QPainter) -> None:
        p.setPen(self.palette().text().color())
        step = _tick_step(self.view_span, self.plot_width())
        t = np.ceil(self.view_start / step) * step
        while t <= self.view_start + self.view_span:
            x = self.x_of(t)
            p.drawLine(QLineF(x, RULER_HEIGHT - 5, x, RULER_HEIGHT))
            p.drawText(QPoint(int(x) + 2, RULER_HEIGHT - 6), clock(t))
            t += step

    def _paint_wave(self, p: QPainter) -> None:
        top, mid = RULER_HEIGHT, RULER_HEIGHT + WAVE_HEIGHT / 2
        p.drawText(QRectF(4, top, self.label_width() - 8, WAVE_HEIGHT), Qt.AlignmentFlag.AlignVCenter, "Waveform")
        p.setPen(self.palette().color(QPalette.ColorRole.Midlight))
        p.drawLine(QLineF(self.label_width(), mid, self.width(), mid))
        if self.envelope is None:
            return
        cols = columns(self.envelope, self.view_start, self.view_span, self.plot_width())
        half = WAVE_HEIGHT / 2 - 2
        p.setPen(QColor(colours.current().event_other))  # readable on the light and the dark base
        p.drawLines([QLineF(self.label_width() + i, mid - hi * half, self.label_width() + i, mid - lo * half)
                     for i, (lo, hi) in enumerate(cols) if hi > lo])

    def _paint_lane(self, p: QPainter, k: int, lane: Lane) -> None:
        top = RULER_HEIGHT + WAVE_HEIGHT + k * LANE_HEIGHT
        p.setPen(self.palette().text().color())
        p.drawText(QRectF(4, top, self.label_width() - 8, LANE_HEIGHT), Qt.AlignmentFlag.AlignVCenter, lane.name)
        p.setPen(self.palette().color(QPalette.ColorRole.Midlight))
        p.drawLine(QLineF(self.label_width(), top + LANE_HEIGHT - 0.5, self.width(), top + LANE_HEIGHT - 0.5))
        end = self.view_start + self.view_span
        for n, span in enumerate(lane.spans):
            if span.end < self.view_start or span.start > end:
                continue
            x0, x1 = max(self.x_of(span.start), self.label_width()), self.x_of(span.end)
            rect = QRectF(x0, top + 2, max(2.0, x1 - x0), LANE_HEIGHT - 4)
            p.fillRect(rect, _span_colour(span, n))
            if span.kind in ("story", "commercial", "speaker") and rect.width() > 40:
                p.setPen(QColor(colours.CHIP_TEXT))  # story and speaker chips are light in both palettes
                label = p.fontMetrics().elidedText(span.label, Qt.TextElideMode.ElideRight, int(rect.width()) - 6)
                p.drawText(rect.adjusted(3, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, label)

    # -- input ------------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        x = event.position().x()
        pan = event.button() == Qt.MouseButton.MiddleButton or event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if pan:
            self._drag_from = (x, self.view_start)
        elif event.button() == Qt.MouseButton.LeftButton and x >= self.label_width():
            item = self.span_at(x, int(event.position().y()))
            self.seek_requested.emit(item.start if item is not None else self.time_at(x))
        elif event.button() == Qt.MouseButton.RightButton and x >= self.label_width():
            item = self.span_at(x, int(event.position().y()))
            if item is not None and item.kind == "speaker":
                self.speaker_menu_requested.emit(item.speaker, event.globalPosition().toPoint())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        x = event.position().x()
        if self._drag_from is not None:
            x0, start0 = self._drag_from
            self.set_view(start0 - (x - x0) / self.plot_width() * self.view_span, self.view_span)
            return
        if x >= self.label_width():
            QToolTip.showText(event.globalPosition().toPoint(), self._describe(x, int(event.position().y())), self)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag_from = None

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120 or event.angleDelta().x() / 120
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(0.8**steps, self.time_at(event.position().x()))
        else:
            self.set_view(self.view_start - steps * self.view_span * 0.1, self.view_span)
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(0.5, self.position)
        elif key == Qt.Key.Key_Minus:
            self.zoom(2.0, self.position)
        elif key == Qt.Key.Key_Home:
            self.set_view(0.0, self.view_span)
        elif key == Qt.Key.Key_End:
            self.set_view(self.duration, self.view_span)
        else:
            super().keyPressEvent(event)

    def _describe(self, x: float, y: int) -> str:
        t = self.time_at(x)
        k = self.lane_at(y)
        text = clock_precise(t)
        if k is not None:
            hits = [s for s in self.lanes[k].spans if s.start <= t <= s.end]
            if hits:
                text += " — " + ", ".join(f"{s.label or s.kind}" for s in hits[:4])
        return text


class TimelinePanel(QWidget):
    """The canvas, a scroll bar for panning and zoom buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.canvas = TimelineCanvas()
        self.scrollbar = QScrollBar(Qt.Orientation.Horizontal)
        self.scrollbar.setAccessibleName("Timeline position")
        self.scrollbar.valueChanged.connect(self._scrolled)
        self.canvas.view_changed.connect(self._sync_scroll)
        self.zoom_in = tool_button("+", "Zoom in", lambda: self.canvas.zoom(0.5, self.canvas.position))
        self.zoom_out = tool_button("−", "Zoom out", lambda: self.canvas.zoom(2.0, self.canvas.position))
        self.zoom_all = tool_button("⤢", "Show the whole recording", lambda: self.canvas.set_view(0.0, self.canvas.duration))
        self.status = QLabel()
        self.status.setAccessibleName("Timeline status")
        row = QHBoxLayout()
        row.addWidget(self.scrollbar, 1)
        for w in (self.zoom_out, self.zoom_in, self.zoom_all, self.status):
            row.addWidget(w)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        layout.addWidget(self.canvas, 1)
        layout.addLayout(row)

    def show_detail(self, detail: RecordingDetail) -> None:
        self.canvas.set_recording(float(detail.recording["duration"]), lanes_of(detail))
        self.status.setText("reading the waveform…")

    def show_envelope(self, envelope: np.ndarray | None, message: str = "") -> None:
        self.canvas.set_envelope(envelope)
        self.status.setText(message)

    def _sync_scroll(self) -> None:
        c = self.canvas
        self.scrollbar.blockSignals(True)
        self.scrollbar.setRange(0, max(0, round((c.duration - c.view_span) * 10)))
        self.scrollbar.setPageStep(max(1, round(c.view_span * 10)))
        self.scrollbar.setValue(round(c.view_start * 10))
        self.scrollbar.blockSignals(False)

    def _scrolled(self, value: int) -> None:
        self.canvas.set_view(value / 10, self.canvas.view_span)


def _span_colour(span: Span, n: int) -> QColor:
    if span.kind == "story":
        return _STORY_COLOURS[n % 2]
    if span.kind == "commercial":
        return _COMMERCIAL_COLOUR
    if span.kind == "speaker":
        return QColor(colours.speaker_chip(span.speaker))
    if span.kind in EVENT_COLOURS:
        return QColor(EVENT_COLOURS[span.kind])
    if span.kind == "x_duration":
        return QColor("#ff8a65")
    return QColor(ENTITY_COLOURS.get(span.kind, ENTITY_COLOURS["OTHER"])).darker(115)


def _tick_step(span: float, width: int) -> float:
    """A round tick interval giving ticks at least ~90 pixels apart."""
    for step in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200):
        if step * width / span >= 90:
            return float(step)
    return 14400.0
