"""Item delegates: a progress bar inside a cell, and rich text (search snippets) in a cell."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionProgressBar, QStyleOptionViewItem

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


class RichTextDelegate(QStyledItemDelegate):
    """Renders the display text as (escaped) rich text, e.g. snippets with <b> marks."""

    def _document(self, option: QStyleOptionViewItem, index: _Index) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)  # type: ignore[attr-defined]
        doc.setHtml(str(index.data(Qt.ItemDataRole.DisplayRole) or ""))
        doc.setTextWidth(option.rect.width())  # type: ignore[attr-defined]
        return doc

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, index)
        opt.text = ""  # type: ignore[attr-defined]
        style = opt.widget.style() if opt.widget else QApplication.style()  # type: ignore[attr-defined]
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)  # type: ignore[attr-defined]
        ctx = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        group = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(group))  # type: ignore[attr-defined]
        painter.save()
        painter.translate(opt.rect.topLeft())  # type: ignore[attr-defined]
        painter.setClipRect(opt.rect.translated(-opt.rect.topLeft()))  # type: ignore[attr-defined]
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, index)
        return QSize(int(doc.idealWidth()), int(doc.size().height()))
