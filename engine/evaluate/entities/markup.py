"""Stage 1 of the scorer: read text with named-entity mark-up into lexemes and spans.

Accepted mark-up (case-insensitive element names):

* MUC: ``<ENAMEX TYPE="PERSON">...</ENAMEX>``, ``<TIMEX TYPE="DATE">``, ``<NUMEX TYPE="MONEY">``;
* the paper's short form ``<P>...</P>``, ``<L>``, ``<O>``, and ``<PERSON>...</PERSON>`` etc.;
* timing, as in LDC Hub-4 and Transcriber files: ``<Segment S_time=.. E_time=..>``,
  ``<Turn startTime=.. endTime=..>``, ``<Section ...>``, ``<Sync Time=..>``, ``<Time sec=..>``;
  words inside get times spread over the segment in proportion to their length;
* ignored containers ``<DOC>``, ``<TEXT>``, ``<TXT>``, ``<Episode>``, ``<Background>``,
  ``<Trans>``; ``<COMMENT>``, ``<DOCNO>``, ``<DOCID>`` with their content.

Stripping (section 2.1): mark-up and punctuation go, words are upper-cased, hyphenated
words split, ``{breath}`` / ``[noise]`` tokens dropped. Anything else in angle
brackets, entities nested or left open, and unknown types raise :class:`MarkupError`
with the line and column.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import numpy as np

from engine.entities import config
from engine.entities.errors import MarkupError
from engine.entities.spans import ENTITY_TYPES, TYPE_ELEMENT, EntitySpan, Transcript

_NEWLINE = re.compile("\n")
_TAG = re.compile(r"<(/?)\s*([A-Za-z_][\w.:-]*)((?:[^<>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>")
_ATTR = re.compile(r"([A-Za-z_][\w.:-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>/]+))")
_WORD_CHARS = re.compile(r"[^\w'\-]+", re.UNICODE)
_SPACE = re.compile(r"\S+")

_ELEMENTS = ("ENAMEX", "TIMEX", "NUMEX")
_CONTAINERS = {"DOC", "TEXT", "TXT", "EPISODE", "BACKGROUND", "TRANS", "SEGMENT", "TURN", "SECTION", "SYNC"}
_SKIP_CONTENT = {"COMMENT", "DOCNO", "DOCID"}
_START_ATTRS = ("S_TIME", "STARTTIME", "TIME", "SEC")
_END_ATTRS = ("E_TIME", "ENDTIME")


def normalise_token(token: str) -> list[str]:
    """Lexemes of one whitespace-separated token: punctuation stripped, upper case.

    ``"Gingrich's,"`` -> ``["GINGRICH'S"]``; ``"forty-two"`` -> ``["FORTY", "TWO"]``;
    ``"{breath}"`` and ``"--"`` -> ``[]``.
    """
    if token.isalnum():
        return [token.upper()]
    if token[:1] in "{[" and token[-1:] in "}]":
        return []
    out = []
    for part in _WORD_CHARS.sub(" ", token).replace("-", " ").replace("_", " ").split():
        part = part.strip("'")
        if part:
            out.append(part.upper())
    return out


@dataclass
class _Open:
    type: str
    element: str  # ENAMEX/TIMEX/NUMEX, SHORT or TYPE: what must close it
    close_name: str
    first_word: int
    line: int
    column: int
    shown: str


@dataclass
class _Segment:
    first_word: int
    start: float
    end: float
    unit: str


class MarkupReader:
    """Incremental reader: feed chunks of text with their position, then :meth:`finish`.

    One reader builds one :class:`Transcript`. ``feed`` may be called per line (STM,
    trn, CTM fields) or once for a whole SGML file.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.words: list[str] = []
        self.where: list[tuple[int, int]] = []
        self.units: list[str] = []
        self.word_times: list[tuple[float, float]] = []
        self.entities: list[EntitySpan] = []
        self.segments: list[_Segment] = []
        self._open: _Open | None = None
        self._skip: tuple[str, int, int] | None = None
        self._unit = ""

    # -- input -------------------------------------------------------------------------------
    def new_segment(self, start: float = np.nan, end: float = np.nan, unit: str | None = None) -> None:
        """Start a segment: later words share its times (NaN if unknown) and unit."""
        if unit is not None:
            self._unit = unit
        self.segments.append(_Segment(len(self.words), start, end, self._unit))

    def feed(self, text: str, line: int = 1, column: int = 1, *, times: tuple[float, float] | None = None) -> None:
        """Read ``text`` whose first character sits at (line, column) in the source.

        With ``times`` (start, end in seconds) every word of the chunk gets those
        times (CTM): the words are then not re-timed from their segment.
        """
        if "<" not in text and ">" not in text:  # plain words: the common case
            if self._skip is None and (lexemes := [lex for tok in text.split() for lex in normalise_token(tok)]):
                self.add_words(lexemes, (line, column), times)
            return
        pos = 0
        where = _Positions(text, line, column)
        for m in _TAG.finditer(text):
            self._text(text, pos, m.start(), where, times)
            self._tag(m, *where(m.start()))
            pos = m.end()
        self._text(text, pos, len(text), where, times)

    def _text(self, text: str, lo: int, hi: int, where: _Positions, times) -> None:
        chunk = text[lo:hi]
        if "<" in chunk or ">" in chunk:
            at = lo + min(i for i in (chunk.find("<"), chunk.find(">")) if i >= 0)
            ln, col = where(at)
            raise MarkupError(self.source, ln, col, f"stray or unterminated angle bracket near {text[at:at + 20]!r}")
        if self._skip is not None:
            return
        lexemes = [lex for token in chunk.split() for lex in normalise_token(token)]
        if lexemes:
            self.add_words(lexemes, where(lo), times)

    def add_words(self, lexemes: list[str], where: tuple[int, int], times: tuple[float, float] | None = None) -> None:
        """Append normalised words; ``where`` is the (line, column) of the text they came from.

        Raises MarkupError for a word longer than ``config.MAX_WORD_CHARS``.
        """
        n = len(lexemes)
        longest = max(lexemes, key=len) if n > 1 else lexemes[0] if n else ""
        if len(longest) > config.MAX_WORD_CHARS:
            raise MarkupError(self.source, *where, f"a word of {len(longest)} characters, more than"
                                                   f" {config.MAX_WORD_CHARS}; is this a transcript?")
        if n == 1 and times is not None:
            self.words.append(lexemes[0])
            self.where.append(where)
            self.units.append(self._unit)
            self.word_times.append(times)
            return
        self.words.extend(lexemes)
        self.where.extend([where] * n)
        self.units.extend([self._unit] * n)
        if times is None:
            self.word_times.extend([(np.nan, np.nan)] * n)
        else:  # a CTM token split into several lexemes shares its time evenly
            t0, t1 = times
            step = (t1 - t0) / n
            self.word_times.extend((t0 + k * step, t0 + (k + 1) * step) for k in range(n))

    def _tag(self, m: re.Match, line: int, column: int) -> None:
        closing, name, attr_text, selfclose = m.group(1) == "/", m.group(2), m.group(3), m.group(4) == "/"
        upper = name.upper()
        attrs = {a.group(1).upper(): next(g for g in a.groups()[1:] if g is not None) for a in _ATTR.finditer(attr_text)}
        shown = m.group()
        if self._skip is not None:
            if closing and upper == self._skip[0]:
                self._skip = None
            return
        if upper in _SKIP_CONTENT:
            if not closing and not selfclose:
                self._skip = (upper, line, column)
            return
        if upper in _CONTAINERS or (upper == "TIME" and "SEC" in attrs):
            if not closing:
                self._timing(attrs, line, column, shown)
            return
        if upper in _ELEMENTS:
            if closing:
                self._close(upper, shown, line, column)
                return
            etype = attrs.get("TYPE")
            if etype is None:
                raise MarkupError(self.source, line, column, f"{shown} has no TYPE attribute")
            etype = etype.upper()
            if TYPE_ELEMENT.get(etype) != upper:
                allowed = ", ".join(t for t, e in TYPE_ELEMENT.items() if e == upper)
                raise MarkupError(self.source, line, column, f"unknown entity type {etype!r} in {shown} (known: {allowed})")
            self._start(etype, upper, shown, line, column)
            return
        if upper in config.SHORT_TAGS or upper in ENTITY_TYPES:
            etype = config.SHORT_TAGS.get(upper, upper)
            if closing:
                self._close(upper, shown, line, column)
            else:
                self._start(etype, upper, shown, line, column)
            return
        raise MarkupError(self.source, line, column, f"unknown tag {shown}")

    def _timing(self, attrs: dict[str, str], line: int, column: int, shown: str) -> None:
        start = next((attrs[a] for a in _START_ATTRS if a in attrs), None)
        end = next((attrs[a] for a in _END_ATTRS if a in attrs), None)
        if start is None and end is None:
            return
        try:
            t0 = float(start) if start is not None else np.nan
            t1 = float(end) if end is not None else np.nan
        except ValueError:
            raise MarkupError(self.source, line, column, f"times in {shown} are not numbers") from None
        if np.isinf(t0) or np.isinf(t1) or (start is not None and np.isnan(t0)) or (end is not None and np.isnan(t1)):
            raise MarkupError(self.source, line, column, f"times in {shown} are not finite numbers")
        if self.segments and np.isnan(self.segments[-1].end) and not np.isnan(t0):
            self.segments[-1].end = t0
        self.new_segment(t0, t1)

    def _start(self, etype: str, close_name: str, shown: str, line: int, column: int) -> None:
        if self._open is not None:
            o = self._open
            raise MarkupError(self.source, line, column,
                              f"nested entity: {shown} inside {o.shown} opened at line {o.line}, column {o.column}")
        self._open = _Open(etype, close_name, close_name, len(self.words), line, column, shown)

    def _close(self, name: str, shown: str, line: int, column: int) -> None:
        o = self._open
        if o is None:
            raise MarkupError(self.source, line, column, f"{shown} closes no open entity")
        if name != o.close_name:
            raise MarkupError(self.source, line, column,
                              f"{shown} does not close {o.shown} opened at line {o.line}, column {o.column}")
        if len(self.words) == o.first_word:
            raise MarkupError(self.source, o.line, o.column, f"entity {o.shown} has no words")
        last = len(self.words) - 1
        text = " ".join(self.words[o.first_word:])
        self.entities.append(EntitySpan(o.type, o.first_word, last, text))
        self._open = None

    # -- output ------------------------------------------------------------------------------
    def finish(self) -> Transcript:
        if self._open is not None:
            o = self._open
            raise MarkupError(self.source, o.line, o.column, f"unclosed entity {o.shown}")
        if self._skip is not None:
            name, line, column = self._skip
            raise MarkupError(self.source, line, column, f"unclosed <{name}>")
        n = len(self.words)
        times = np.array(self.word_times, dtype=np.float64).reshape(n, 2)
        starts, ends = times[:, 0].copy(), times[:, 1].copy()
        self._time_from_segments(starts, ends)
        firsts = sorted({s.first_word for s in self.segments if not np.isnan(s.start) and s.first_word < n})
        return Transcript(self.words, starts, ends, self.units, self.entities, self.where, self.source, firsts)

    def _time_from_segments(self, starts: np.ndarray, ends: np.ndarray) -> None:
        """Spread each timed segment over its words, in proportion to their length (section 2.1)."""
        n = len(self.words)
        if not self.segments or n == 0:
            return
        first = np.array([s.first_word for s in self.segments], dtype=np.int64)
        seg_start = np.array([s.start for s in self.segments], dtype=np.float64)
        seg_end = np.array([s.end for s in self.segments], dtype=np.float64)
        nxt = np.append(seg_start[1:], np.nan)
        seg_end = np.where(np.isnan(seg_end), nxt, seg_end)
        last = np.append(first[1:], n)
        size = last - first
        bad = np.isnan(seg_end) | (seg_end <= seg_start)
        seg_end = np.where(bad, seg_start + 0.35 * size, seg_end)
        keep = (size > 0) & ~np.isnan(seg_start)
        if not keep.any():
            return
        seg_of_word = np.repeat(np.arange(len(first)), size)
        timed = keep[seg_of_word] & np.isnan(starts)  # CTM words keep their own times
        lengths = np.fromiter((len(w) + 1 for w in self.words), dtype=np.float64, count=n)
        cum = np.cumsum(lengths)
        before = cum - lengths - np.repeat(np.concatenate(([0.0], cum))[first], size)
        total = np.repeat(np.add.reduceat(lengths, np.minimum(first, n - 1)) * (size > 0), size)
        span = np.repeat(seg_end - seg_start, size)[timed]
        t0 = np.repeat(seg_start, size)[timed]
        before, lengths, total = before[timed], lengths[timed], total[timed]  # the timed words' totals are > 0
        starts[timed] = t0 + span * before / total
        ends[timed] = t0 + span * (before + lengths) / total


class _Positions:
    """Line and column of ``text[index]`` when ``text[0]`` is at (line, column).

    The newline offsets are found once per text, and each look-up is a binary
    search: counting newlines from the start for every tag made reading quadratic.
    """

    def __init__(self, text: str, line: int, column: int) -> None:
        self.newlines = [m.start() for m in _NEWLINE.finditer(text)]
        self.line, self.column = line, column

    def __call__(self, index: int) -> tuple[int, int]:
        before = bisect.bisect_left(self.newlines, index)
        if before == 0:
            return self.line, self.column + index
        return self.line + before, index - self.newlines[before - 1]


def parse_marked_text(text: str, source: str = "<text>") -> Transcript:
    """Read a whole SGML-ish text with entity mark-up (and optional segment times)."""
    reader = MarkupReader(source)
    reader.feed(text)
    return reader.finish()
