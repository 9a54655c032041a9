"""Small widget helpers shared by the panels."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QToolButton, QWidget


def tool_button(text: str, name: str, slot: Callable[[], object]) -> QToolButton:
    """A small text button whose accessible name and tooltip say what it does."""
    button = QToolButton(text=text)
    button.setAccessibleName(name)
    button.setToolTip(name)
    button.clicked.connect(slot)
    return button


def widget_shortcut(keys: QKeySequence | str, widget: QWidget, slot: Callable[[], object],
                    context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetShortcut) -> QShortcut:
    """A shortcut active only while ``widget`` (or, with WidgetWithChildrenShortcut, its children) has focus."""
    shortcut = QShortcut(QKeySequence(keys), widget)
    shortcut.setContext(context)  # the constructor's context keyword is not applied by PySide6
    shortcut.activated.connect(slot)
    return shortcut
