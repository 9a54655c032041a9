"""How times, sizes and dates read in the GUI."""

from __future__ import annotations

import datetime as dt

from engine.timefmt import clock, counted

__all__ = ["clock", "clock_precise", "counted", "date_text", "eta_text"]


def clock_precise(seconds: float) -> str:
    """``m:ss.t`` (tenths), for the player and the timeline's cursor."""
    return clock(seconds, decimals=1)


def eta_text(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s left"
    return f"{clock(seconds)} left"


def date_text(unix_time: float, *, with_time: bool = True) -> str:
    if not unix_time:
        return ""
    return dt.datetime.fromtimestamp(unix_time).strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


def size_text(n_bytes: int) -> str:
    value = float(n_bytes)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def reason(path: str, message: str) -> str:
    """A file's message without its leading path (the row already names the file)."""
    return message.removeprefix(f"{path}: ")


def duration_text(seconds: float) -> str:
    """A total length of audio: ``21 s`` under a minute, ``42 min`` under two hours, ``3.5 h`` from there on."""
    if seconds < 59.5:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"
