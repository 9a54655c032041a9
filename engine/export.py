"""Transcript export: SRT, WebVTT, plain text and JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.errors import ParameterError
from engine.timefmt import timestamp

FORMATS = ("srt", "vtt", "txt", "json")


def export_transcript(
    fmt: str, recording: dict[str, Any], words: Sequence[dict[str, Any]], segments: Sequence[dict[str, Any]]
) -> str:
    """Render one recording's transcript.

    ``words`` rows have idx, start, end, conf, text (seconds); ``segments`` rows
    have start, end, text and are used as subtitle cues.
    """
    segments = [{**s, "text": _cue_text(s, words)} for s in segments]
    if fmt == "srt":
        cues = [
            f"{i}\n{timestamp(s['start'], ',')} --> {timestamp(s['end'], ',')}\n{s['text']}\n"
            for i, s in enumerate(segments, 1)
        ]
        return "\n".join(cues)
    if fmt == "vtt":
        cues = [f"{timestamp(s['start'], '.')} --> {timestamp(s['end'], '.')}\n{s['text']}\n" for s in segments]
        return "WEBVTT\n\n" + "\n".join(cues)
    if fmt == "txt":
        return "".join(s["text"] + "\n" for s in segments)
    if fmt == "json":
        keep = ("id", "path", "name", "duration", "sample_rate", "engine", "model", "language", "content_hash")
        doc = {
            "recording": {k: recording.get(k) for k in keep},
            "words": [
                {"start": round(w["start"], 3), "end": round(w["end"], 3), "conf": round(w["conf"], 4), "text": w["text"],
                 "display": w.get("display") or w["text"]}
                for w in words
            ],
            "segments": [
                {"start": round(s["start"], 3), "end": round(s["end"], 3), "text": s["text"]} for s in segments
            ],
        }
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    raise ParameterError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _cue_text(segment: dict[str, Any], words: Sequence[dict[str, Any]]) -> str:
    """A segment's words as the recogniser wrote them (cased, punctuated) where the words rows say so."""
    first, last = segment.get("first_word"), segment.get("last_word")
    if first is None or last is None or not any(w.get("display") for w in words[first : last + 1]):
        return str(segment["text"])
    return " ".join(w.get("display") or w["text"] for w in words[first : last + 1])
