"""Transcript export: SRT, WebVTT, plain text, JSON and RTTM (speaker turns).

Subtitles follow the sentences and the usual conventions (cues of at most two lines of 42
characters and 7 s, ``engine.config.SUBTITLE_*``); plain text has one sentence a line.
Words are written as people write them (``engine.writing``). Where the words have speakers,
a cue or sentence never spans two of them, and a speaker's name marks each turn: WebVTT voice spans
(``<v Name>``) on every cue, "Name: " before the first cue or line of a turn in SRT and TXT.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import config
from engine.errors import EarshotError, ParameterError
from engine.timefmt import timestamp
from engine.writing import ends_sentence, join_written, written_groups

FORMATS = ("srt", "vtt", "txt", "json")
#: The transcript formats and RTTM, the speaker turns alone (for researchers; the command line offers it).
ALL_FORMATS = (*FORMATS, "rttm")


@dataclass(frozen=True)
class WrittenWord:
    """One word as written, from one stored word or several legacy pieces; times in seconds."""

    start: float
    end: float
    text: str
    speaker: str = ""  # the speaker's name, "" for none

    @property
    def ends_sentence(self) -> bool:
        """Ends in . ? ! or … (closing quotes aside) and is no abbreviation ("U.S.", "Mr.")."""
        return ends_sentence(self.text)


@dataclass(frozen=True)
class Cue:
    """One subtitle: its times in seconds and its lines (at most ``config.SUBTITLE_LINES``)."""

    start: float
    end: float
    lines: tuple[str, ...]
    speaker: str = ""  # the speaker's name, "" for none




def export_transcript(
    fmt: str, recording: dict[str, Any], words: Sequence[dict[str, Any]], segments: Sequence[dict[str, Any]], *,
    speakers: Sequence[dict[str, Any]] = (), turns: Sequence[dict[str, Any]] = (),
) -> str:
    """Render one recording's transcript.

    ``words`` rows have idx, start, end, conf, text, display (seconds) and, optionally, speaker (a
    label of ``speakers``, None for none); ``segments`` rows have start, end, text; ``speakers`` rows
    label, name, seconds; ``turns`` rows speaker (label), start, end. SRT and WebVTT cues follow the
    sentences (:func:`subtitle_cues`), TXT has one sentence a line; both read the words, and fall
    back to the segments for a transcript stored without words. RTTM has one line per turn.
    """
    if fmt not in ALL_FORMATS:
        raise ParameterError(f"unknown export format {fmt!r}; choose one of {', '.join(ALL_FORMATS)}")
    names = {int(sp["label"]): str(sp["name"]) for sp in speakers}
    if fmt == "rttm":
        return _rttm(recording, turns, names)
    written = written_words(words, names)
    if fmt == "json":
        return _json(recording, words, segments, speakers, turns, names)
    if not written:
        cues = [Cue(float(s["start"]), float(s["end"]), (str(s["text"]),)) for s in segments]
        sentences = [(str(s["text"]), "") for s in segments]
    else:
        cues = subtitle_cues(written)
        sentences = [(" ".join(w.text for w in sentence), sentence[0].speaker) for sentence in split_sentences(written)]
    if fmt == "srt":
        return "\n".join(f"{i}\n{timestamp(c.start, ',')} --> {timestamp(c.end, ',')}\n" + "\n".join(lines) + "\n"
                         for i, (c, lines) in enumerate(zip(cues, _turn_prefixed(cues), strict=True), 1))
    if fmt == "vtt":
        return "WEBVTT\n\n" + "\n".join(
            f"{timestamp(c.start, '.')} --> {timestamp(c.end, '.')}\n" + "\n".join(_voiced(c)) + "\n" for c in cues)
    text = [Cue(0.0, 0.0, (line,), speaker) for line, speaker in sentences]
    return "".join(lines[0] + "\n" for lines in _turn_prefixed(text))


def _turn_prefixed(cues: Sequence[Cue]) -> list[tuple[str, ...]]:
    """Each cue's lines, the first of a speaker's turn led by "Name: "."""
    out, current = [], ""
    for cue in cues:
        lines = cue.lines
        if cue.speaker and cue.speaker != current:
            lines = (f"{cue.speaker}: {lines[0]}", *lines[1:])
        current = cue.speaker or current
        out.append(lines)
    return out


def _voiced(cue: Cue) -> tuple[str, ...]:
    """A WebVTT cue's lines in a voice span naming its speaker (the name's <, > and & escaped)."""
    if not cue.speaker:
        return cue.lines
    name = cue.speaker.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f"<v {name}>{cue.lines[0]}", *cue.lines[1:])


def written_words(words: Sequence[dict[str, Any]], names: Mapping[int, str] | None = None) -> list[WrittenWord]:
    """The words rows as written words: display forms, legacy pieces ("U" ".S.") joined; with ``names``
    (label -> name), each carries the name of its first piece's speaker."""
    shown = [str(w.get("display") or w["text"]) for w in words]
    names = names or {}
    return [WrittenWord(float(words[g.start]["start"]), float(words[g[-1]]["end"]), "".join(shown[i] for i in g),
                        _name(words[g.start].get("speaker"), names))
            for g in written_groups(shown)]


def _name(label: object, names: Mapping[int, str]) -> str:
    return "" if label is None else names.get(int(str(label)), "")


def split_sentences(words: Sequence[WrittenWord], *,
                    pause: float = config.SENTENCE_PAUSE_SECONDS) -> list[list[WrittenWord]]:
    """``words`` cut after each word ending in . ? ! or … (closing quotes aside), at pauses
    of at least ``pause`` s (for transcripts without punctuation), and where the speaker changes."""
    sentences: list[list[WrittenWord]] = []
    current: list[WrittenWord] = []
    for i, word in enumerate(words):
        current.append(word)
        gap = words[i + 1].start - word.end if i + 1 < len(words) else 0.0
        turn = i + 1 < len(words) and words[i + 1].speaker != word.speaker
        if word.ends_sentence or gap >= pause or turn or i + 1 == len(words):
            sentences.append(current)
            current = []
    return sentences


def subtitle_cues(words: Sequence[WrittenWord], *, line_chars: int = config.SUBTITLE_LINE_CHARS,
                  max_lines: int = config.SUBTITLE_LINES, max_seconds: float = config.SUBTITLE_MAX_SECONDS) -> list[Cue]:
    """Subtitle cues that end where sentences end, each at most ``max_lines`` lines of at most
    ``line_chars`` characters (a single longer word aside) and ``max_seconds`` s long.

    A sentence too long for one cue is cut before the word that would overflow it, or after
    its last comma when that falls in the second half of the cue.
    """
    cues: list[Cue] = []
    for sentence in split_sentences(words):
        rest = list(sentence)
        while rest:
            n = 1
            while n < len(rest) and _fits(rest[: n + 1], line_chars, max_lines, max_seconds):
                n += 1
            if n < len(rest):
                commas = [k + 1 for k in range(n - 1) if rest[k].text.endswith((",", ";", ":"))]
                if commas and commas[-1] * 2 >= n:
                    n = commas[-1]
            cue, rest = rest[:n], rest[n:]
            cues.append(Cue(cue[0].start, cue[-1].end, _lines([w.text for w in cue], line_chars, max_lines),
                            cue[0].speaker))
    return cues


def _fits(cue: Sequence[WrittenWord], line_chars: int, max_lines: int, max_seconds: float) -> bool:
    if cue[-1].end - cue[0].start > max_seconds:
        return False
    lines = _lines([w.text for w in cue], line_chars, max_lines)
    return len(lines) <= max_lines and all(len(line) <= line_chars for line in lines)


def _lines(texts: Sequence[str], line_chars: int, max_lines: int) -> tuple[str, ...]:
    """The words on as few lines as fit ``line_chars`` (up to ``max_lines``), the break where the
    two lines are most even; one line longer than the limit when nothing else fits."""
    one = " ".join(texts)
    if len(one) <= line_chars or len(texts) == 1 or max_lines < 2:
        return (one,)
    splits = [(" ".join(texts[:k]), " ".join(texts[k:])) for k in range(1, len(texts))]
    best = min(splits, key=lambda pair: max(len(pair[0]), len(pair[1])))
    return best


def _json(recording: dict[str, Any], words: Sequence[dict[str, Any]], segments: Sequence[dict[str, Any]],
          speakers: Sequence[dict[str, Any]], turns: Sequence[dict[str, Any]], names: Mapping[int, str]) -> str:
    keep = ("id", "path", "name", "duration", "sample_rate", "engine", "model", "language", "content_hash")
    doc = {
        "recording": {k: recording.get(k) for k in keep},
        "words": [
            {"start": round(w["start"], 3), "end": round(w["end"], 3), "conf": round(w["conf"], 4), "text": w["text"],
             "display": w.get("display") or w["text"], "speaker": _name(w.get("speaker"), names) or None}
            for w in words
        ],
        "segments": [
            {"start": round(s["start"], 3), "end": round(s["end"], 3), "text": _cue_text(s, words)} for s in segments
        ],
        "speakers": [{"label": f"S{sp['label']}", "name": sp["name"], "seconds": round(sp["seconds"], 2)}
                     for sp in speakers],
        "turns": [{"speaker": _name(t["speaker"], names), "label": f"S{t['speaker']}", "start": round(t["start"], 3),
                   "end": round(t["end"], 3)} for t in turns],
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def _rttm(recording: dict[str, Any], turns: Sequence[dict[str, Any]], names: Mapping[int, str]) -> str:
    """NIST RTTM ``SPEAKER`` lines, one per turn: the file id is the recording's name without its
    extension, the speaker its name, spaces in either as ``_`` (RTTM fields are single words)."""
    file_id = "_".join(Path(str(recording.get("name") or "recording")).stem.split()) or "recording"
    return "".join(
        f"SPEAKER {file_id} 1 {t['start']:.3f} {t['end'] - t['start']:.3f} <NA> <NA> "
        f"{'_'.join(_name(t['speaker'], names).split()) or 'S' + str(t['speaker'])} <NA> <NA>\n" for t in turns)


def _cue_text(segment: dict[str, Any], words: Sequence[dict[str, Any]]) -> str:
    """A segment's words as the recogniser wrote them (cased, punctuated) where the words rows say so."""
    first, last = segment.get("first_word"), segment.get("last_word")
    if first is None or last is None or not any(w.get("display") for w in words[first : last + 1]):
        return str(segment["text"])
    return join_written([w.get("display") or w["text"] for w in words[first : last + 1]])


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
