"""The transcript text: filled a few paragraphs at a time, so even hours of words never block the UI.

Each paragraph of a :class:`TranscriptLayout` becomes one text block, so a
word's position is its block's position plus its offset in the paragraph:
clicks map to words and playback times to highlights without any searching.
"""

from __future__ import annotations

import html
import time

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QContextMenuEvent, QFont, QMouseEvent, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

from app import colours
from app.transcript_doc import TranscriptLayout

#: Time spent filling the document per pass of the event loop, seconds.
FILL_SLICE_SECONDS = 0.025
#: Most find matches highlighted at once.
MAX_FIND_HIGHLIGHTS = 2000
#: Highlights: fixed light backgrounds, text on them in colours.CHIP_TEXT.
CURRENT_WORD = "#ffd54f"
FIND_MATCH = "#b3e5fc"
HIT_WORD = "#ffab91"
_CURRENT_WORD = QColor(CURRENT_WORD)
_FIND_MATCH = QColor(FIND_MATCH)
_HIT_WORD = QColor(HIT_WORD)


class TranscriptText(QTextEdit):
    """Read-only rich text that knows which word is where."""

    word_clicked = Signal(int)  # word index
    menu_for_word = Signal(object, int)  # the context menu about to show (QMenu), the word under the pointer
    filled = Signal()  # every paragraph is in the document

    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        # Mouse selection only: the arrow keys stay free for skipping (Left/Right).
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAccessibleName("Transcript")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.layout_: TranscriptLayout | None = None
        self._loaded = 0  # paragraphs in the document so far
        self._press: QPoint | None = None
        self._current: list[QTextEdit.ExtraSelection] = []
        self._matches: list[QTextEdit.ExtraSelection] = []
        self._hit_words: list[int] = []  # words a search hit matched, marked until the next hit
        self._hit: list[QTextEdit.ExtraSelection] = []
        self._current_word: int | None = None
        self._fill_timer = QTimer(self, singleShot=True, interval=0)
        self._fill_timer.timeout.connect(self._fill)
        self._heading = QTextBlockFormat()
        self._heading.setTopMargin(12)
        self._heading.setBottomMargin(2)
        self._heading_chars = QTextCharFormat()
        self._heading_chars.setFontWeight(QFont.Weight.DemiBold)
        self._heading_chars.setForeground(QColor(colours.current().heading))
        self._body = QTextBlockFormat()
        self._body.setTopMargin(3)

    # -- filling ----------------------------------------------------------------------------

    def show_layout(self, layout: TranscriptLayout) -> None:
        self._fill_timer.stop()
        self._heading_chars.setForeground(QColor(colours.current().heading))
        self.layout_ = layout
        self._loaded = 0
        self._current, self._matches, self._current_word = [], [], None
        self._hit, self._hit_words = [], []
        self.clear()
        self._fill()

    def clear_layout(self) -> None:
        self._fill_timer.stop()
        self.layout_ = None
        self._loaded = 0
        self._current, self._matches, self._current_word = [], [], None
        self._hit, self._hit_words = [], []
        self.clear()

    def is_filled(self) -> bool:
        return self.layout_ is not None and self._loaded == len(self.layout_.paragraphs)

    def _fill(self) -> None:
        layout = self.layout_
        if layout is None:
            return
        stop = time.perf_counter() + FILL_SLICE_SECONDS
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        while self._loaded < len(layout.paragraphs) and time.perf_counter() < stop:
            paragraph = layout.paragraphs[self._loaded]
            block = self._heading if paragraph.heading else self._body
            if self._loaded == 0:
                cursor.setBlockFormat(block)
            else:
                cursor.insertBlock(block, QTextCharFormat())
            if paragraph.heading:
                cursor.insertText(html.unescape(paragraph.html), self._heading_chars)
            else:
                cursor.insertHtml(paragraph.html)
            self._loaded += 1
        if self._loaded < len(layout.paragraphs):
            self._fill_timer.start()
        elif self._hit_words:
            self._refresh_hit_words(scroll=True)
        else:
            self._apply_selections()
            self.filled.emit()

    # -- where words are --------------------------------------------------------------------

    def word_loaded(self, index: int) -> bool:
        return self.layout_ is not None and 0 <= index < len(self.layout_.word_place) and (
            self.layout_.word_place[index][0] < self._loaded)

    def word_cursor(self, index: int) -> QTextCursor:
        assert self.layout_ is not None
        paragraph, offset = self.layout_.word_place[index]
        start = self.document().findBlockByNumber(paragraph).position() + offset
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(start + self.layout_.word_lengths[index], QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def word_text(self, index: int) -> str:
        return self.word_cursor(index).selectedText()

    def word_point(self, index: int) -> QPoint:
        """Viewport coordinates of the middle of a word (for clicks in tests and tooltips)."""
        cursor = self.word_cursor(index)
        end = self.cursorRect(cursor)
        start = QTextCursor(cursor)
        start.setPosition(cursor.selectionStart())
        return QPoint((self.cursorRect(start).left() + end.right()) // 2, end.center().y())

    def word_at(self, position: int) -> int | None:
        """The word at a document position (a click on a time or heading gives the paragraph's first word)."""
        if self.layout_ is None or not self.layout_.word_place:
            return None
        block = self.document().findBlock(position)
        n = block.blockNumber()
        if not 0 <= n < self._loaded:
            return None
        return self.layout_.paragraphs[n].word_at(position - block.position())

    # -- highlights -------------------------------------------------------------------------

    def highlight_word(self, index: int | None, *, follow: bool) -> None:
        self._current_word = index
        if index is None or not self.word_loaded(index):
            self._current = []
        else:
            sel = QTextEdit.ExtraSelection()
            sel.cursor = self.word_cursor(index)  # type: ignore[attr-defined]
            fmt = QTextCharFormat()
            fmt.setBackground(_CURRENT_WORD)
            fmt.setForeground(QColor(colours.CHIP_TEXT))  # a light highlight: dark text whatever the palette
            sel.format = fmt  # type: ignore[attr-defined]
            self._current = [sel]
            if follow:
                self._keep_visible(sel.cursor)  # type: ignore[attr-defined]
        self._apply_selections()

    def mark_hit_words(self, indices: list[int], *, scroll: bool = True) -> None:
        """Mark the words a search hit matched (bold, underlined, highlighted) and show the first.

        Words not yet in the document are marked when their paragraph arrives."""
        self._hit_words = list(indices)
        self._refresh_hit_words(scroll=scroll)

    def hit_words(self) -> list[int]:
        """The word indices currently marked as a search hit's matches."""
        return list(self._hit_words)

    def _refresh_hit_words(self, *, scroll: bool) -> None:
        fmt = QTextCharFormat()
        fmt.setBackground(_HIT_WORD)
        fmt.setForeground(QColor(colours.CHIP_TEXT))
        fmt.setFontWeight(QFont.Weight.Bold)
        fmt.setFontUnderline(True)
        self._hit = []
        for index in self._hit_words:
            if self.word_loaded(index):
                sel = QTextEdit.ExtraSelection()
                sel.cursor, sel.format = self.word_cursor(index), fmt  # type: ignore[attr-defined]
                self._hit.append(sel)
        if scroll and self._hit:
            self._keep_visible(self._hit[0].cursor)  # type: ignore[attr-defined]
        self._apply_selections()

    def set_matches(self, cursors: list[QTextCursor]) -> None:
        fmt = QTextCharFormat()
        fmt.setBackground(_FIND_MATCH)
        fmt.setForeground(QColor(colours.CHIP_TEXT))
        self._matches = []
        for c in cursors[:MAX_FIND_HIGHLIGHTS]:
            sel = QTextEdit.ExtraSelection()
            sel.cursor, sel.format = c, fmt  # type: ignore[attr-defined]
            self._matches.append(sel)
        self._apply_selections()

    def _apply_selections(self) -> None:
        self.setExtraSelections(self._matches + self._hit + self._current)

    def _keep_visible(self, cursor: QTextCursor) -> None:
        rect = self.cursorRect(cursor)
        view = self.viewport().rect()
        if rect.top() < view.top() + 20 or rect.bottom() > view.bottom() - 20:
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + rect.top() - view.height() // 3)

    # -- clicks -----------------------------------------------------------------------------

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """The standard menu (copy, select all) and what ``menu_for_word`` listeners add for the word under it."""
        menu = self.createStandardContextMenu(event.pos())
        index = self.word_at(self.cursorForPosition(event.pos()).position())
        if index is not None:
            self.menu_for_word.emit(menu, index)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        point = event.position().toPoint()
        pressed, self._press = self._press, None
        if pressed is None or (point - pressed).manhattanLength() > 4 or event.button() != Qt.MouseButton.LeftButton:
            return  # a drag selects text; only a click plays
        index = self.word_at(self.cursorForPosition(point).position())
        if index is not None:
            self.word_clicked.emit(index)
