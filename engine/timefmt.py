"""How times read wherever Earshot prints them: one clock for the CLI, the GUI and exports."""

from __future__ import annotations


def clock(seconds: float, *, decimals: int = 0) -> str:
    """``m:ss`` under an hour, ``h:mm:ss`` from an hour on, with ``decimals`` digits of the
    second after a point (rounded before splitting, so 59.96 s at one decimal reads ``1:00.0``)."""
    scale = 10**decimals
    units = max(0, round(seconds * scale))
    whole, frac = divmod(units, scale)
    m, s = divmod(whole, 60)
    h, m = divmod(m, 60)
    text = f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
    return f"{text}.{frac:0{decimals}d}" if decimals else text


def timestamp(seconds: float, sep: str = ",") -> str:
    """``hh:mm:ss,mmm`` as subtitle formats write it (``sep`` ``,`` for SRT, ``.`` for WebVTT)."""
    ms = max(0, round(seconds * 1000))
    h, rem = divmod(ms, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 recording``, ``2 recordings``, ``0 recordings`` (``plural`` for nouns not made with an s)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
