"""Measured speed and accuracy of the embedded speech models, for a listing.

``speech_figures.json`` beside this module is written by ``bench/models_bench.py`` (the
figures of its last run: WER on held-out English and other languages, real-time factor
on 2 cores, peak memory); the docs table comes from the same run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIGURES_FILE = Path(__file__).with_name("speech_figures.json")


def speech_figures(path: Path = FIGURES_FILE) -> dict[str, dict[str, Any]]:
    """Model name -> its figures (``rtf``, ``wer`` by set, ``peak_rss_mb``, ``languages``); {} if none recorded."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    models = data.get("models") if isinstance(data, dict) else None
    return models if isinstance(models, dict) else {}


def figures_line(name: str, figures: dict[str, dict[str, Any]] | None = None) -> str:
    """One line for a listing: ``"RTF 0.32 on 2 cores; WER 4% clean, 37% crowd, 39% music; English only"``
    (RTF on the bench's generated broadcast); ``""`` for a model with no recorded figures."""
    found = (speech_figures() if figures is None else figures).get(name)
    if not found:
        return ""
    wer = found.get("wer", {})
    shown = ", ".join(f"{wer[k]:.0%} {k}" for k in ("clean", "crowd", "music") if k in wer)
    return f"RTF {found['rtf']:.2f} on 2 cores; WER {shown}; {found.get('languages', '')}".rstrip("; ")
