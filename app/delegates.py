"""Item delegates: a progress bar inside a cell, and rich-text snippets wrapped to the view (search hits)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionProgressBar, QStyleOptionViewItem

from app import colours

_Index = QModelIndex | QPersistentModelIndex


class ProgressDelegate(QStyledItemDelegate):
    """Draws a progress bar when the index has a fraction under ``role``; plain text otherwise."""

    def __init__(self, role: int, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(parent)
        self._role = role

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        fraction = index.data(self._role)
        if fraction is None:
            super().paint(painter, option, index)
            return
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(2, 3, -2, -3)  # type: ignore[attr-defined]
        bar.minimum, bar.maximum = 0, 1000  # type: ignore[attr-defined]
        bar.progress = round(float(fraction) * 1000)  # type: ignore[attr-defined]
        bar.text = str(index.data(Qt.ItemDataRole.DisplayRole) or f"{fraction:.0%}")  # type: ignore[attr-defined]
        bar.textVisible = True  # type: ignore[attr-defined]
        bar.state = option.state | QStyle.StateFlag.State_Horizontal  # type: ignore[attr-defined]
        bar.palette = option.palette  # type: ignore[attr-defined]
        QApplication.style().drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter)


#: Data role of the rich text a SnippetDelegate draws (escaped HTML with <b> marks).
RichTextRole = Qt.ItemDataRole.UserRole + 20
#: Class of the snippet HTML's secondary text: the timestamp colour, or the highlight's text colour when selected.
MUTED_CLASS = "muted"
#: Space around a snippet's text inside its row (px).
SNIPPET_MARGIN = 6


class SnippetDelegate(QStyledItemDelegate):
    """Draws the index's ``RichTextRole`` HTML wrapped to the width of the view, one block per row
    (search hits as snippets: they never need a horizontal scroll bar)."""

    def _document(self, option: QStyleOptionViewItem, index: _Index, width: int, muted: str = "") -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)  # type: ignore[attr-defined]
        doc.setDefaultStyleSheet(f".{MUTED_CLASS} {{ color: {muted or colours.current().timestamp}; }}")
        doc.setDocumentMargin(SNIPPET_MARGIN)
        doc.setHtml(str(index.data(RichTextRole) or ""))
        doc.setTextWidth(max(40, width))
        return doc

    @staticmethod
    def _width(option: QStyleOptionViewItem) -> int:
        """The row width: the view's viewport (a list lays rows out before it knows their rects), px."""
        view = option.widget  # type: ignore[attr-defined]
        viewport = view.viewport() if view is not None and hasattr(view, "viewport") else None
        return viewport.width() if viewport is not None else option.rect.width()  # type: ignore[attr-defined]

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        rect = opt.rect  # type: ignore[attr-defined]
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        group = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        doc = self._document(opt, index, rect.width(),
                             opt.palette.color(group).name() if selected else "")  # type: ignore[attr-defined]
        opt.text = ""  # type: ignore[attr-defined]
        style = opt.widget.style() if opt.widget else QApplication.style()  # type: ignore[attr-defined]
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)  # type: ignore[attr-defined]
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(group))  # type: ignore[attr-defined]
        painter.save()
        painter.translate(rect.topLeft())
        painter.setClipRect(rect.translated(-rect.topLeft()))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        width = self._width(option)
        doc = self._document(option, index, width)
        return QSize(width, int(doc.size().height()) + 1)
