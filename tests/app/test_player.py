"""The player: transport buttons, keyboard shortcuts, speed, volume, the shortcuts dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.player import LARGE_SKIP, SMALL_SKIP
from app.settings import AppSettings
from tests.app.gui_helpers import open_recording, wait_loaded

pytestmark = pytest.mark.gui


@pytest.fixture
def window(make_window, qtbot, library: Path):  # type: ignore[no-untyped-def]
    window = make_window(library)
    open_recording(qtbot, window)
    wait_loaded(qtbot, window)
    window.player.seek(12.0)
    window.view.transcript.text.setFocus()
    return window


def _at(window) -> float:  # type: ignore[no-untyped-def]
    return window.player.media.position() / 1000


def test_arrow_keys_and_j_l_skip(qtbot, window) -> None:
    for key, delta in ((Qt.Key.Key_Left, -SMALL_SKIP), (Qt.Key.Key_Right, SMALL_SKIP),
                       (Qt.Key.Key_J, -LARGE_SKIP), (Qt.Key.Key_L, LARGE_SKIP)):
        before = _at(window)
        qtbot.keyClick(window.view.transcript.text, key)
        assert _at(window) == pytest.approx(before + delta, abs=0.05)


def test_space_and_k_play_and_pause(qtbot, window) -> None:
    text = window.view.transcript.text
    with qtbot.waitSignal(window.player.playing_changed, check_params_cb=lambda playing: playing):
        qtbot.keyClick(text, Qt.Key.Key_Space)
    with qtbot.waitSignal(window.player.playing_changed, check_params_cb=lambda playing: not playing):
        qtbot.keyClick(text, Qt.Key.Key_K)
    assert not window.player.is_playing()


def test_space_in_the_search_field_types_a_space(qtbot, window) -> None:
    window.focus_search()
    qtbot.keyClicks(window.search_panel.query, "red cross")
    assert window.search_panel.query.text() == "red cross"
    assert not window.player.is_playing()


def test_play_button_plays_and_the_position_moves(qtbot, window) -> None:
    start = _at(window)
    qtbot.mouseClick(window.view.player_bar.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _at(window) > start + 0.2, timeout=5000)
    assert window.view.player_bar.time_label.text().startswith("0:1")


def test_speed_and_volume_apply_and_persist(qtbot, window) -> None:
    bar = window.view.player_bar
    bar.speed.setCurrentIndex(bar.speed.findData(1.5))
    assert window.player.media.playbackRate() == 1.5
    qtbot.keyClick(window.view.transcript.text, Qt.Key.Key_BracketRight)
    assert window.player.media.playbackRate() == 1.75
    bar.volume.setValue(30)
    assert window.player.audio.volume() == pytest.approx(0.30)
    assert (AppSettings().speed, AppSettings().volume) == (1.75, 30)


def test_help_lists_the_shortcuts(qtbot, window) -> None:
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.help_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    keys = " | ".join(dialog.keys_listed())
    for shortcut in ("Space", "K", "J", "L", "Left", "Right", "Ctrl+F", "Ctrl+K"):
        assert shortcut in keys.split(" | ") or f"{shortcut}," in keys or f", {shortcut}" in keys, shortcut
