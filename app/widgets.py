"""Small widget helpers shared by the panels."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt, SignalInstance
from PySide6.QtGui import QIcon, QKeySequence, QPainter, QPalette, QPixmap, QShortcut
from PySide6.QtWidgets import QApplication, QPushButton, QStyle, QTableWidget, QToolButton, QWidget


def push_button(text: str, name: str, slot: Callable[[], object] | SignalInstance | None = None,
                tip: str | None = None) -> QPushButton:
    """A push button with an accessible name, an optional tooltip and an optional ``clicked`` slot (or signal)."""
    button = QPushButton(text)
    button.setAccessibleName(name)
    if tip is not None:
        button.setToolTip(tip)
    if slot is not None:
        button.clicked.connect(slot)
    return button


def tool_button(text: str, name: str, slot: Callable[[], object]) -> QToolButton:
    """A small text button whose accessible name and tooltip say what it does."""
    button = QToolButton()
    button.setText(text)
    button.setAccessibleName(name)
    button.setToolTip(name)
    button.clicked.connect(slot)
    return button


def widget_shortcut(keys: QKeySequence | QKeySequence.StandardKey | str, widget: QWidget, slot: Callable[[], object],
                    context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetShortcut) -> QShortcut:
    """A shortcut active only while ``widget`` (or, with WidgetWithChildrenShortcut, its children) has focus."""
    shortcut = QShortcut(QKeySequence(keys), widget)
    shortcut.setContext(context)  # the constructor's context keyword is not applied by PySide6
    shortcut.activated.connect(slot)
    return shortcut


def palette_icon(widget: QWidget, which: QStyle.StandardPixmap) -> QIcon:
    """The style's icon ``which`` drawn in ``widget``'s button text colour (16, 24 and 32 px).

    The stock icons are near black: on a dark palette they were #0D0D0D on #2B2B2B (contrast 1.4:1).
    Call it again when the palette changes."""
    icon = QIcon()
    colour = widget.palette().color(QPalette.ColorRole.ButtonText)
    for size in (16, 24, 32):
        pixmap = QPixmap(widget.style().standardIcon(which).pixmap(size, size))
        painter = QPainter(pixmap)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)  # keep the shape
        painter.fillRect(pixmap.rect(), colour)
        painter.end()
        icon.addPixmap(pixmap)
    return icon


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    """The text of a table cell ("" for a cell with no item)."""
    item = table.item(row, column)
    return item.text() if item is not None else ""


#: Room kept for a title bar while the window manager has not framed a window yet (px).
TITLE_BAR_ROOM = 32


def fit_inside_screen(window: QWidget, room: QRect | None = None) -> None:
    """Shrink and move a top-level window so that all of it, frame included, is inside ``room`` (by default
    the available part of the screen it is on), never below its minimum size.

    Before the window manager has framed the window its frame is unknown (zero): a title bar's room is kept
    then, or the bottom of the window (its status bar) would end below the screen.
    """
    if room is None:
        screen = window.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        room = screen.availableGeometry()
    frame = window.frameGeometry().size() - window.geometry().size()
    frame_height = frame.height() if frame.height() > 0 else TITLE_BAR_ROOM
    width = min(window.width(), room.width() - frame.width())
    height = min(window.height(), room.height() - frame_height)
    if (width, height) != (window.width(), window.height()):
        window.resize(max(width, window.minimumWidth()), max(height, window.minimumHeight()))
    outer_width, outer_height = window.width() + frame.width(), window.height() + frame_height
    x = min(max(window.x(), room.left()), room.right() - outer_width + 1)
    y = min(max(window.y(), room.top()), room.bottom() - outer_height + 1)
    window.move(max(x, room.left()), max(y, room.top()))
