"""Text the app colours itself stays readable (WCAG contrast >= 4.5) under a light and a dark palette."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

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
