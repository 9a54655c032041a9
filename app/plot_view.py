"""A small plot widget (scatter, lines, grouped bars) painted with QPainter: no plotting dependency.

Enough for the evaluation panels: axes with round ticks, a legend, reference
lines, and a tooltip naming the nearest labelled point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QToolTip, QWidget

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
_MARGIN_LEFT, _MARGIN_RIGHT, _MARGIN_TOP, _MARGIN_BOTTOM = 56, 16, 28, 42


@dataclass
class Series:
    """One thing drawn: ``kind`` is "scatter", "line" or "bar" (bars: x are category positions 0..n-1)."""

    name: str
    x: np.ndarray
    y: np.ndarray
    kind: str = "scatter"
    labels: list[str] = field(default_factory=list)
    sizes: np.ndarray | None = None  # scatter marker radius in pixels


@dataclass
class Plot:
    title: str = ""
    x_label: str = ""
    y_label: str = ""
    series: list[Series] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)  # x tick labels for bar plots
    h_lines: list[float] = field(default_factory=list)
    v_lines: list[float] = field(default_factory=list)


class PlotView(QWidget):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.setAccessibleName(name)
        self.setMinimumSize(320, 220)
        self.setMouseTracking(True)
        self.plot = Plot()
        self._limits = (0.0, 1.0, 0.0, 1.0)

    def set_plot(self, plot: Plot) -> None:
        self.plot = plot
        self._limits = _limits(plot)
        self.update()

    # -- geometry ---------------------------------------------------------------------------

    def _area(self) -> QRectF:
        return QRectF(_MARGIN_LEFT, _MARGIN_TOP, max(1, self.width() - _MARGIN_LEFT - _MARGIN_RIGHT),
                      max(1, self.height() - _MARGIN_TOP - _MARGIN_BOTTOM))

    def _to_px(self, x: float, y: float) -> QPointF:
        x0, x1, y0, y1 = self._limits
        a = self._area()
        return QPointF(a.left() + (x - x0) / (x1 - x0) * a.width(), a.bottom() - (y - y0) / (y1 - y0) * a.height())

    # -- painting ---------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), self.palette().base())
        text = self.palette().text().color()
        area = self._area()
        if not self.plot.series:
            p.setPen(text)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No results yet")
            p.end()
            return
        self._paint_axes(p, area, text)
        p.setClipRect(area.adjusted(-6, -6, 6, 6))
        for k, s in enumerate(self.plot.series):
            self._paint_series(p, k, s)
        p.setClipping(False)
        self._paint_legend(p, area)
        p.end()

    def _paint_axes(self, p: QPainter, area: QRectF, text: QColor) -> None:
        x0, x1, y0, y1 = self._limits
        p.setPen(QPen(QColor("#e0e0e0"), 1))
        for v in _ticks(y0, y1):
            pt = self._to_px(x0, v)
            p.drawLine(QPointF(area.left(), pt.y()), QPointF(area.right(), pt.y()))
        p.setPen(QPen(QColor("#9e9e9e"), 1, Qt.PenStyle.DashLine))
        for v in self.plot.h_lines:
            pt = self._to_px(x0, v)
            p.drawLine(QPointF(area.left(), pt.y()), QPointF(area.right(), pt.y()))
        for v in self.plot.v_lines:
            pt = self._to_px(v, y0)
            p.drawLine(QPointF(pt.x(), area.top()), QPointF(pt.x(), area.bottom()))
        p.setPen(text)
        p.drawRect(area)
        for v in _ticks(y0, y1):
            pt = self._to_px(x0, v)
            p.drawText(QRectF(0, pt.y() - 8, _MARGIN_LEFT - 6, 16), Qt.AlignmentFlag.AlignRight, _num(v))
        if self.plot.categories:
            for i, name in enumerate(self.plot.categories):
                pt = self._to_px(i, y0)
                p.drawText(QRectF(pt.x() - 60, area.bottom() + 2, 120, 16), Qt.AlignmentFlag.AlignHCenter, name[:18])
        else:
            for v in _ticks(x0, x1):
                pt = self._to_px(v, y0)
                p.drawText(QRectF(pt.x() - 30, area.bottom() + 2, 60, 16), Qt.AlignmentFlag.AlignHCenter, _num(v))
        p.drawText(QRectF(area.left(), self.height() - 20, area.width(), 18), Qt.AlignmentFlag.AlignHCenter,
                   self.plot.x_label)
        p.drawText(QRectF(4, 4, self.width() - 8, 20), Qt.AlignmentFlag.AlignLeft,
                   f"{self.plot.title}    {self.plot.y_label}".strip())

    def _paint_series(self, p: QPainter, k: int, s: Series) -> None:
        colour = QColor(PALETTE[k % len(PALETTE)])
        if s.kind == "line":
            p.setPen(QPen(colour, 2))
            pts = [self._to_px(x, y) for x, y in zip(s.x, s.y, strict=True) if np.isfinite(y)]
            p.drawPolyline(pts)
        elif s.kind == "bar":
            bars = [q for q in self.plot.series if q.kind == "bar"]
            width = 0.8 / len(bars)
            offset = -0.4 + bars.index(s) * width
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            for x, y in zip(s.x, s.y, strict=True):
                top, base = self._to_px(x + offset, y), self._to_px(x + offset + width, 0.0)
                p.drawRect(QRectF(top, base).normalized())
        else:
            p.setPen(QPen(colour.darker(130), 1))
            fill = QColor(colour)
            fill.setAlpha(150)
            p.setBrush(fill)
            for i, (x, y) in enumerate(zip(s.x, s.y, strict=True)):
                if np.isfinite(x) and np.isfinite(y):
                    r = float(s.sizes[i]) if s.sizes is not None else 3.5
                    p.drawEllipse(self._to_px(x, y), r, r)

    def _paint_legend(self, p: QPainter, area: QRectF) -> None:
        y = area.top() + 4
        for k, s in enumerate(self.plot.series):
            if not s.name:
                continue
            width = p.fontMetrics().horizontalAdvance(s.name) + 22
            box = QRectF(area.right() - width - 4, y, width, 16)
            p.fillRect(box, QColor(255, 255, 255, 200))
            p.fillRect(QRectF(box.left() + 3, y + 4, 10, 8), QColor(PALETTE[k % len(PALETTE)]))
            p.setPen(self.palette().text().color())
            p.drawText(box.adjusted(17, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, s.name)
            y += 17

    # -- tooltips ---------------------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        best, best_d = "", 12.0**2
        pos = event.position()
        for s in self.plot.series:
            for i, (x, y) in enumerate(zip(s.x, s.y, strict=True)):
                if not s.labels or not (np.isfinite(x) and np.isfinite(y)):
                    continue
                pt = self._to_px(x, y)
                d = (pt.x() - pos.x()) ** 2 + (pt.y() - pos.y()) ** 2
                if d < best_d:
                    best, best_d = f"{s.labels[i]}: {_num(x)}, {_num(y)}", d
        if best:
            QToolTip.showText(event.globalPosition().toPoint(), best, self)
        else:
            QToolTip.hideText()


def _limits(plot: Plot) -> tuple[float, float, float, float]:
    xs = [np.asarray(s.x, dtype=float) for s in plot.series] + [np.asarray(plot.v_lines, dtype=float)]
    ys = [np.asarray(s.y, dtype=float) for s in plot.series] + [np.asarray(plot.h_lines, dtype=float)]
    if any(s.kind == "bar" for s in plot.series):
        ys.append(np.zeros(1))
    x = np.concatenate(xs) if xs else np.zeros(0)
    y = np.concatenate(ys) if ys else np.zeros(0)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    if plot.categories:
        x0, x1 = -0.6, len(plot.categories) - 0.4
    else:
        x0, x1 = _padded(x)
    y0, y1 = _padded(y)
    return x0, x1, y0, y1


def _padded(v: np.ndarray) -> tuple[float, float]:
    if v.size == 0:
        return 0.0, 1.0
    lo, hi = float(v.min()), float(v.max())
    pad = (hi - lo) * 0.06 or max(abs(hi) * 0.1, 0.5)
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    raw = (hi - lo) / target
    if raw <= 0 or not math.isfinite(raw):
        return []
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def _num(v: float) -> str:
    return f"{v:.0f}" if abs(v) >= 100 or float(v).is_integer() else f"{v:.2f}".rstrip("0").rstrip(".")
