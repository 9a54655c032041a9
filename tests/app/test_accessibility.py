"""Every control has a name a screen reader can say; Tab moves through the panels in reading order."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QMenuBar,
    QScrollBar,
    QTabBar,
    QWidget,
)

pytestmark = pytest.mark.gui
CONTROLS = (QAbstractButton, QAbstractItemView, QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit)
#: Controls inside these are Qt's own parts: tab scrollers, combo popups, clear buttons, corner buttons, spin arrows.
QT_PARTS_OF = (QTabBar, QComboBox, QLineEdit, QAbstractItemView, QMenuBar, QAbstractSpinBox)


def _unnamed(root: QWidget) -> list[str]:
    missing = []
    for w in root.findChildren(QWidget):
        if not isinstance(w, CONTROLS) or isinstance(w, QScrollBar | QHeaderView):
            continue
        parent = w.parent()
        if isinstance(parent, QT_PARTS_OF) or parent.inherits("QComboBoxPrivateContainer"):
            continue
        text = w.text() if isinstance(w, QAbstractButton) else ""
        if not (w.accessibleName() or text.strip("…& ")):
            missing.append(f"{type(w).__name__} in {type(w.parent()).__name__}")
    return missing


def test_every_control_has_an_accessible_name(make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    dialogs = [window, window.open_settings(), window.open_help(), window.open_evaluation()]
    missing = [m for d in dialogs for m in _unnamed(d)]
    assert missing == []


def test_tab_order_in_the_library_and_search(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(tmp_path / "lib.sqlite")
    panel = window.library_panel
    panel.filter_edit.setFocus()
    order = []
    for _ in range(3):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        order.append(QApplication.focusWidget())
    # An empty library shows its empty state where the table would be.
    assert order == [panel.status_filter, panel.empty.add_button, panel.empty.sample_button]
    window.focus_search()
    search = window.search_panel
    order = []
    for _ in range(5):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        order.append(QApplication.focusWidget())
    order = [w.parent() if isinstance(w.parent(), QComboBox) else w for w in order]  # an editable combo's field
    assert order == [search.event_filter, search.entity_filter, search.recording_filter, search.speaker_filter,
                     search.results]
