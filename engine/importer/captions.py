"""Caption and subtitle files as cues of timed text.

Formats, chosen by suffix:

* SubRip ``.srt``: numbered cues, ``00:00:01,000 --> 00:00:04,000``, text lines.
* WebVTT ``.vtt``: ``WEBVTT`` header, cues with ``00:01.000 --> 00:04.000`` (hours
  optional) and settings; ``NOTE``/``STYLE``/``REGION`` blocks skipped; tags
  (``<v Anna>``, ``<c>``, inline times) removed.
* Timed text ``.txt``: one line per utterance opening with a time, ``[1:02:03.5] text``
  or ``00:12 text``; a line lasts until the next one starts.
* NewsScape ``.txt3``: caption rows ``START|END|CC1|TEXT`` with story markers
  (``SEG_00|Type=Story start`` / ``Type=Commercial``); each marked segment becomes
  a story; times count from the file's ``TOP`` line (the start of the recording).

Any of UTF-8, UTF-16 (with or without a byte-order mark), Windows-1252 or Latin-1 is read as
written (:mod:`engine.textfile`), never with replacement characters.

Words inside a cue get equal shares of its time, so the first starts with the cue
and the last ends with it (an SRT written back from the cues has the same times).

A file with some unreadable rows (a cue whose times cannot be read or end before they start, a
timed-text line without a time, a .txt3 row with bad times) is read with its good rows; each run
of skipped lines is a :class:`SkippedRows` in ``Captions.skipped``. A file with no good row is
refused.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ParameterError, file_access_reason
from engine.segment.text import txt3_row, txt3_time
from engine.textfile import read_text
from engine.timefmt import clock, counted

FORMATS = ("srt", "vtt", "txt", "txt3")

_ARROW = re.compile(
    r"^\s*(?P<a>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*(?P<b>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})(?:\s.*)?$")
_TAG = re.compile(r"<[^>]*>")
_TIMED_LINE = re.compile(r"^\s*\[?(?P<t>(?:\d+:)?\d{1,2}:\d{2}(?:[.,]\d+)?)\]?\s+(?P<text>\S.*)$")
#: Seconds a word of the last line of a timed-text file is assumed to last.
LAST_LINE_SECONDS_PER_WORD = 0.4
#: Latest time a caption may give, hours (a recording is never this long; longer digit runs are damage).
MAX_CAPTION_HOURS = 10_000
#: Most words one cue may hold; a file that lost its line breaks becomes one giant cue.
MAX_CUE_WORDS = 5_000
#: Characters of a bad line quoted in an error.
_QUOTED_CHARS = 40


@dataclass(frozen=True)
class Cue:
    """Text shown from ``start`` to ``end`` seconds."""

    start: float
    end: float
    text: str


@dataclass(frozen=True)
class SkippedRows:
    """Lines ``first`` to ``last`` (1-based, inclusive) of a caption file, left out for ``reason``
    (the reason of the first unreadable row among them)."""

    first: int
    last: int
    reason: str

    def describe(self, path: str | Path) -> str:
        """One line for the user: ``FILE: lines 12-15 skipped: REASON``."""
        lines = f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"
        return f"{path}: {lines} skipped: {self.reason}"


@dataclass
class Captions:
    """A caption file's cues (in time order), the cue index each story starts at (may be empty) and,
    parallel to it, each one's kind (``"story"`` or ``"commercial"``), and the rows left out."""

    cues: list[Cue]
    story_starts: list[int] = field(default_factory=list)
    format: str = ""
    story_kinds: list[str] = field(default_factory=list)
    skipped: list[SkippedRows] = field(default_factory=list)


class _Damage:
    """Collects the unreadable rows of one file as runs of lines (blank lines between two bad rows join them)."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self.runs: list[SkippedRows] = []

    def skip(self, first: int, last: int, reason: str) -> None:
        runs = self.runs
        if runs and all(not line.strip() for line in self._lines[runs[-1].last : first - 1]):
            runs[-1] = SkippedRows(runs[-1].first, max(last, runs[-1].last), runs[-1].reason)
        else:
            runs.append(SkippedRows(first, last, reason))


def read_captions(path: str | Path) -> Captions:
    """Read a caption or subtitle file by its suffix (one of ``FORMATS``).

    Raises ParameterError naming the file and the line for anything unreadable.
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ParameterError(f"{path}: unknown transcript format {path.suffix or '(no suffix)'!r};"
                             f" expected one of {', '.join('.' + f for f in FORMATS)}")
    try:
        kind = path.stat().st_mode
        if stat.S_ISREG(kind):  # a device or a pipe (a link to /dev/zero, say) would be read for ever
            text = read_text(path)
    except OSError as exc:
        raise ParameterError(f"{path}: {file_access_reason(exc, 'read')}") from None
    except ValueError as exc:
        raise ParameterError(f"{path}: {exc}") from None
    if stat.S_ISDIR(kind):
        raise ParameterError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(kind):
        raise ParameterError(f"{path}: not a regular file (a device, pipe or socket); give a caption file")
    reader = {"srt": _subtitles, "vtt": _subtitles, "txt": _timed_text, "txt3": _txt3}[fmt]
    caps = reader(path, text.splitlines())
    caps.format = fmt
    if not caps.cues and caps.skipped:
        more = len(caps.skipped) - 1
        rest = f" (and {counted(more, 'more range')} skipped)" if more else ""
        raise ParameterError(f"{caps.skipped[0].describe(path)}{rest}; no readable timed text is left")
    if not caps.cues:
        raise ParameterError(f"{path}: no timed text found")
    for cue in caps.cues:
        if len(cue.text.split()) > MAX_CUE_WORDS:
            raise ParameterError(f"{path}: the cue at {clock(cue.start)} holds {len(cue.text.split())} words, more than"
                                 f" {MAX_CUE_WORDS}; has the file lost its line breaks?")
    return caps


def parse_time(stamp: str) -> float:
    """Seconds of ``[h:]mm:ss[.,fff]``.

    Raises ValueError, saying why, for a time past ``MAX_CAPTION_HOURS``.
    """
    parts = stamp.replace(",", ".").split(":")
    if any(len(p) > 9 for p in parts[:-1]) or len(parts[-1].partition(".")[0]) > 9:
        raise ValueError(f"a time past {MAX_CAPTION_HOURS} hours")
    seconds = float(parts[-1])
    minutes = int(parts[-2]) if len(parts) > 1 else 0
    hours = int(parts[-3]) if len(parts) > 2 else 0
    total = hours * 3600 + minutes * 60 + seconds
    if total > MAX_CAPTION_HOURS * 3600:
        raise ValueError(f"a time past {MAX_CAPTION_HOURS} hours")
    return total


def _quoted(line: str) -> str:
    """A bad line as an error quotes it: stripped, and cut short (a damaged file may hold megabytes on one line)."""
    text = line.strip()
    return repr(text if len(text) <= _QUOTED_CHARS else text[:_QUOTED_CHARS] + "…")


def _subtitles(path: Path, lines: list[str]) -> Captions:
    """SRT and WebVTT: blocks separated by blank lines, each with one ``-->`` line."""
    cues: list[Cue] = []
    damage = _Damage(lines)
    block: list[tuple[int, str]] = []
    for number, line in enumerate([*lines, ""], 1):
        if line.strip():
            block.append((number, line))
            continue
        if block:
            try:
                cue = _cue(block)
            except ValueError as exc:
                damage.skip(block[0][0], block[-1][0], str(exc))
            else:
                if cue is not None:
                    cues.append(cue)
            block = []
    return Captions(sorted(cues, key=lambda c: c.start), skipped=damage.runs)


def _cue(block: list[tuple[int, str]]) -> Cue | None:
    """The cue of one block of lines (None for a header, a note or a cue without text).

    Raises ValueError saying why the block's times cannot be read.
    """
    first = block[0][1].strip()
    if first.startswith(("WEBVTT", "NOTE", "STYLE", "REGION")):
        return None
    for k, (_, line) in enumerate(block):
        m = _ARROW.match(line)
        if m is None:
            continue
        try:
            start, end = parse_time(m["a"]), parse_time(m["b"])
        except ValueError as exc:
            raise ValueError(f"cannot read the cue times {_quoted(line)}: {exc}") from None
        if end < start:
            raise ValueError(f"the cue ends ({m['b']}) before it starts ({m['a']})")
        text = " ".join(_TAG.sub("", t).strip() for _, t in block[k + 1 :])
        return Cue(start, end, " ".join(text.split())) if text.strip() else None
    if "-->" in "".join(line for _, line in block):
        line = next(t for _, t in block if "-->" in t)
        raise ValueError(f"cannot read the cue times {_quoted(line)}")
    return None


def _timed_text(path: Path, lines: list[str]) -> Captions:
    """Lines opening with a time; each lasts until the next."""
    rows: list[tuple[float, str]] = []
    damage = _Damage(lines)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        m = _TIMED_LINE.match(line)
        if m is None:
            damage.skip(number, number, f"expected a line like '[00:01:02.5] text', got {_quoted(line)}")
            continue
        try:
            rows.append((parse_time(m["t"]), " ".join(m["text"].split())))
        except ValueError as exc:
            damage.skip(number, number, f"cannot read the time {_quoted(m['t'])}: {exc}")
    rows.sort(key=lambda r: r[0])
    cues = []
    for k, (start, text) in enumerate(rows):
        end = rows[k + 1][0] if k + 1 < len(rows) else start + LAST_LINE_SECONDS_PER_WORD * len(text.split())
        cues.append(Cue(start, max(end, start), text))
    return Captions(cues, skipped=damage.runs)


def _txt3(path: Path, lines: list[str]) -> Captions:
    """NewsScape captions: CC rows are cues, SEG markers open stories."""
    origin: float | None = None
    cues: list[Cue] = []
    starts: list[tuple[int, str]] = []  # (cue index, kind)
    damage = _Damage(lines)
    for number, line in enumerate(lines, 1):
        parts = line.split("|", 3)
        if parts[0] == "TOP" and len(parts) > 1:
            try:
                origin = txt3_time(parts[1])
            except ValueError:
                raise ParameterError(f"{path}:{number}: cannot read the start time {parts[1]!r}") from None
            continue
        try:
            row = txt3_row(line)
        except ValueError:
            damage.skip(number, number, f"cannot read the times {_quoted(parts[0])}, {_quoted(parts[1])}")
            continue
        if row is None:
            continue
        if row.opens_story:
            starts.append((len(cues), "commercial" if "Commercial" in row.text else "story"))
            continue
        if not row.is_caption:
            continue
        text = re.sub(r">{2,}", " ", row.text)
        if text.split():
            cues.append(Cue(row.start, max(row.end, row.start), " ".join(text.split())))
    if cues:
        base = origin if origin is not None else cues[0].start
        # Caption rows are not always in time order; keep them monotone, as a recogniser's words are.
        out, last = [], 0.0
        for c in cues:
            start = max(c.start - base, last, 0.0)
            out.append(Cue(start, max(c.end - base, start), c.text))
            last = start
        cues = out
    kinds = {s: kind for s, kind in starts if s < len(cues)}  # the last marker at a cue wins
    stories = sorted(kinds)
    if stories and stories[0] != 0:
        stories, kinds = [0, *stories], {0: "story", **kinds}
    return Captions(cues, stories, story_kinds=[kinds[s] for s in stories], skipped=damage.runs)
