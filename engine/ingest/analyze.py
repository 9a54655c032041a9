"""What ingest learns from a transcript beyond its words: hot spots, stories, entities.

Runs in the recognition worker, right after recognition, so that the work of
several files proceeds in parallel and the parent only writes to the index.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np

from engine.asr.base import Word
from engine.detect.audio_pass import detection_rows
from engine.detect.events import Detections
from engine.entities.rows import tag_entities
from engine.ingest.results import Analysis
from engine.segment.stories import segment_stories

log = logging.getLogger("earshot.ingest")

__all__ = ["Analysis", "analyze_transcript", "segment_stories", "tag_entities"]


def analyze_transcript(words: Sequence[Word], detections: Detections | None, *, engine: str | None = None,
                       language: str | None = "") -> Analysis:
    """Convert detections, and segment and tag ``words`` (``engine``: the recogniser that produced them;
    ``language``: the recording's language code, ``""`` when unknown)."""
    out = Analysis()
    if detections is not None:
        out.events, out.x_duration, out.transcribed = detection_rows(detections, len(words))
    if not words:
        return out
    shown = [w.shown for w in words]  # case and punctuation, where the recogniser gives them, are cues
    t0 = time.perf_counter()
    out.stories = segment_stories(
        words,
        None if out.x_duration is None else np.asarray(out.x_duration),
        None if out.transcribed is None else np.asarray(out.transcribed, dtype=bool),
        engine=engine,
    )
    out.times["segment"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    out.entities = tag_entities(shown, language=language)
    out.times["entities"] = time.perf_counter() - t0
    return out
