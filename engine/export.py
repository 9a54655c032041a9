"""Transcript export: SRT, WebVTT, plain text and JSON."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.errors import EarshotError, ParameterError
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


class ExportRefused(EarshotError):
    """An export's target is the index, a folder or something other than a regular file."""


def write_export(path: str | Path, text: str, *, index_path: str | Path | None = None) -> None:
    """Write an export to ``path`` whole or not at all (a temporary file, then a rename).

    Refuses, before writing anything, a target that is the open index (or its WAL and
    shared-memory files), a folder, or an existing file that is not a regular file (a
    device, a pipe, a socket): the rename would replace it. Raises ``ExportRefused`` for
    those and ``EarshotError`` naming the file and the reason when the write fails.
    """
    out = Path(path)
    _refuse_target(out, index_path)
    # A short fixed name: ``out.name + ".part"`` would pass the 255-byte limit for a long name.
    part = out.with_name(f".earshot-export-{os.getpid()}.part")
    try:
        part.write_text(text, encoding="utf-8")
        part.replace(out)
    except OSError as exc:
        with contextlib.suppress(OSError):  # on read-only media even the clean-up fails
            part.unlink(missing_ok=True)
        raise EarshotError(f"{out}: cannot write: {exc.strerror or exc}") from None


def _refuse_target(out: Path, index_path: str | Path | None) -> None:
    try:
        st = out.stat()
    except OSError:
        return  # missing (or unreachable): the write itself says why
    if stat.S_ISDIR(st.st_mode):
        raise ExportRefused(f"{out}: is a folder; give a file name to export to")
    if not stat.S_ISREG(st.st_mode):
        raise ExportRefused(f"{out}: is not a regular file (a device, pipe or socket); "
                            "leave out -o to write to standard output")
    if index_path is not None and str(index_path) != ":memory:":
        for name in (str(index_path), f"{index_path}-wal", f"{index_path}-shm"):
            with contextlib.suppress(OSError):
                if os.path.samefile(out, name):
                    raise ExportRefused(f"{out}: is the index itself; exporting there would destroy it")
