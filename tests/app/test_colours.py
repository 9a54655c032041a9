"""Text the app colours itself stays readable (WCAG contrast >= 4.5) under a light and a dark palette."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication

from app import colours, transcript_text
from app.transcript_doc import ENTITY_COLOURS

pytestmark = pytest.mark.gui

HIGHLIGHTS = (transcript_text.CURRENT_WORD, transcript_text.FIND_MATCH, transcript_text.HIT_WORD)


@pytest.mark.parametrize(("shades", "base"), [(colours.LIGHT, colours.LIGHT_BASE), (colours.DARK, colours.DARK_BASE),
                                              (colours.DARK, "#1e1e1e")], ids=["light", "dark", "darker"])
def test_text_on_the_palette_base(shades, base):
    texts = [c for _, c in shades.low_confidence] + [shades.timestamp, shades.heading, shades.event_other,
                                                      *shades.events.values()]
    worst = min(texts, key=lambda c: colours.contrast(c, base))
    assert colours.contrast(worst, base) >= 4.5, worst


@pytest.mark.parametrize("background", sorted(set(ENTITY_COLOURS.values()) | set(HIGHLIGHTS)))
def test_text_on_every_fixed_background(background):
    for text in (colours.CHIP_TEXT, colours.CHIP_LOW_CONFIDENCE):
        assert colours.contrast(text, background) >= 4.5, (text, background)


@pytest.mark.parametrize("chip", colours.SPEAKER_CHIPS)
def test_speaker_bars_stand_out_and_carry_readable_names(chip):
    assert colours.contrast(colours.CHIP_TEXT, chip) >= 4.5  # the name drawn on the bar
    assert colours.contrast(chip, colours.LIGHT_BASE) >= 1.5  # the bar on the lane, light palette
    assert colours.contrast(chip, colours.DARK_BASE) >= 3.0  # and dark


def test_speakers_get_distinct_colours_until_they_run_out():
    n = len(colours.SPEAKER_CHIPS)
    assert len({colours.speaker_chip(label) for label in range(1, n + 1)}) == n
    assert colours.speaker_chip(n + 1) == colours.speaker_chip(1)


def test_contrast_matches_the_wcag_examples():
    assert colours.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert colours.contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_a_dark_palette_gets_the_dark_shades(qtbot, make_window, tmp_path):
    app = QApplication.instance()
    old = app.palette()
    dark = QPalette(old)
    dark.setColor(QPalette.ColorRole.Base, QColor("#2b2b2b"))
    dark.setColor(QPalette.ColorRole.Window, QColor("#353535"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#eeeeee"))
    app.setPalette(dark)
    try:
        window = make_window(tmp_path / "lib.sqlite")
        assert colours.current() is colours.DARK
        assert colours.DARK.low_confidence[-1][1] in window.view.transcript.legend.text()
    finally:
        app.setPalette(old)
        colours.use_dark(False)


def _drawn_colour(icon: QIcon) -> str:
    """The mean colour of an icon's opaque pixels, as #rrggbb."""
    image = icon.pixmap(16, 16).toImage()
    pixels = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
    opaque = [c for c in pixels if c.alpha() > 200]
    assert opaque, "the icon draws nothing"
    mean = [round(sum(getattr(c, part)() for c in opaque) / len(opaque)) for part in ("red", "green", "blue")]
    return "#{:02x}{:02x}{:02x}".format(*mean)


def _dark_palette(light: QPalette) -> QPalette:
    """``light`` with a #2b2b2b background and #eeeeee text everywhere."""
    dark = QPalette(light)
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.Button, "#2b2b2b"),
                         (QPalette.ColorRole.Base, "#2b2b2b"), (QPalette.ColorRole.ButtonText, "#eeeeee"),
                         (QPalette.ColorRole.WindowText, "#eeeeee"), (QPalette.ColorRole.Text, "#eeeeee")):
        dark.setColor(role, QColor(colour))
    return dark


def test_the_players_icons_stand_out_on_a_dark_palette(qtbot, make_window, tmp_path):
    app = QApplication.instance()
    old = app.palette()
    dark = _dark_palette(old)
    app.setPalette(dark)
    try:
        bar = make_window(tmp_path / "lib.sqlite").view.player_bar
        for button in (bar.back_button, bar.play_button, bar.forward_button):
            drawn = _drawn_colour(button.icon())
            assert colours.contrast(drawn, "#2b2b2b") >= 3.0, (button.accessibleName(), drawn)  # WCAG non-text
    finally:
        app.setPalette(old)
        colours.use_dark(False)


def test_the_settings_close_icon_stands_out_on_a_dark_palette(qtbot, make_window, tmp_path):
    app = QApplication.instance()
    old = app.palette()
    dark = _dark_palette(old)
    try:
        dialog = make_window(tmp_path / "lib.sqlite").open_settings()
        close = dialog.close_button
        light_drawn = _drawn_colour(close.icon())
        app.setPalette(dark)  # switched while the dialog is open: the icon follows
        qtbot.waitUntil(lambda: dialog.palette().color(QPalette.ColorRole.ButtonText).name() == "#eeeeee")
        drawn = _drawn_colour(close.icon())
        assert colours.contrast(drawn, "#2b2b2b") >= 3.0, drawn  # WCAG non-text
        assert colours.contrast(light_drawn, "#2b2b2b") < colours.contrast(drawn, "#2b2b2b")
        dialog.close()
    finally:
        app.setPalette(old)
        colours.use_dark(False)


def test_the_dock_buttons_stand_out_on_a_dark_palette(qtbot, make_window, tmp_path):
    app = QApplication.instance()
    old = app.palette()
    dark = _dark_palette(old)
    try:
        window = make_window(tmp_path / "lib.sqlite")
        app.setPalette(dark)  # switched while the window is open: the docks' icons follow

        def drawn() -> list[str]:
            return [_drawn_colour(b.icon()) for dock in window.docks.values() for b in dock.findChildren(QAbstractButton)
                    if b.objectName() in ("qt_dockwidget_closebutton", "qt_dockwidget_floatbutton")]

        assert len(drawn()) == 2 * len(window.docks)
        qtbot.waitUntil(lambda: all(colours.contrast(c, "#2b2b2b") >= 3.0 for c in drawn()))  # WCAG non-text
    finally:
        app.setPalette(old)
        colours.use_dark(False)
