"""Colours for text the app draws itself, for a light and a dark palette.

Every text colour here keeps a WCAG contrast of at least 4.5 against the background it is
drawn on: the window's base (``LIGHT_BASE``/``DARK_BASE`` stand for it) or a fixed chip
colour (entities, highlights), on which text is always drawn in ``CHIP_TEXT``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Text drawn on any fixed light background (entity chips, highlighted words).
CHIP_TEXT = "#000000"
#: Low-confidence text on an entity chip.
CHIP_LOW_CONFIDENCE = "#4a4a4a"
#: Speaker turns on the timeline, by label (1 takes the first): mid-tone chips, so names on them are drawn
#: in ``CHIP_TEXT`` and the bars stand out from both the light and the dark base.
SPEAKER_CHIPS = ("#64b5f6", "#ffb74d", "#81c784", "#ba68c8", "#4dd0e1", "#f06292", "#90a4ae", "#a1887f")
#: Backgrounds the shades are checked against: a white base and the darkest common dark base.
LIGHT_BASE = "#ffffff"
DARK_BASE = "#353535"


@dataclass(frozen=True)
class Shades:
    """Text colours for one palette."""

    low_confidence: tuple[tuple[float, str], ...]  # (upper bound of confidence, colour), ascending
    timestamp: str
    heading: str
    events: dict[str, str]
    event_other: str


LIGHT = Shades(
    low_confidence=((0.5, "#757575"), (0.8, "#555555")),
    timestamp="#5b6f7a", heading="#37474f",
    events={"applause": "#8e24aa", "laughter": "#b34700", "audience": "#6d4c41", "music": "#00737d",
            "fast": "#c62828", "slow": "#2e7d32"},
    event_other="#546e7a",
)
DARK = Shades(
    low_confidence=((0.5, "#9e9e9e"), (0.8, "#c2c2c2")),
    timestamp="#a9bcc6", heading="#cfd8dc",
    events={"applause": "#e1a6ea", "laughter": "#ffb74d", "audience": "#d7ccc8", "music": "#4dd0e1",
            "fast": "#ff9e9e", "slow": "#a5d6a7"},
    event_other="#b0bec5",
)

_current = LIGHT


def use_dark(dark: bool) -> None:
    """Choose the shades for the application's palette (called from the GUI thread on palette changes)."""
    global _current
    _current = DARK if dark else LIGHT


def current() -> Shades:
    return _current


def is_dark(base: str) -> bool:
    """True when a palette's base colour (``#rrggbb``) is dark."""
    return luminance(base) < 0.2


def luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``, 0 (black) to 1 (white)."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def speaker_chip(label: int) -> str:
    """The chip colour of speaker ``label`` (1, 2, ...); colours repeat after ``len(SPEAKER_CHIPS)`` speakers."""
    return SPEAKER_CHIPS[(max(label, 1) - 1) % len(SPEAKER_CHIPS)]
