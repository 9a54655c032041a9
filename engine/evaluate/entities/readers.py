"""Reference and hypothesis files for the scorer: detect the format, read it into a Transcript.

Formats
-------
``sgml``
    Running text with entity mark-up, optionally with segment times (see :mod:`markup`).
``stm``
    NIST segment time marks: ``file channel speaker start end [<labels>] text``; the
    text may carry mark-up. Word times are spread over each segment.
``trn``
    One utterance per line, ``text (utterance-id)``; utterances are aligned by id.
``ctm``
    NIST word times: ``file channel start duration word [confidence]``. A word may carry
    the short tags, ``<P>NEWT`` ... ``GINGRICH</P>``. Entities may instead come from a
    tagger (the CLI tags a CTM without tags).

Lines starting with ``;;`` are comments in stm, trn and ctm files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.entities.errors import TranscriptError
from engine.entities.spans import EntitySpan, Transcript
from engine.evaluate.entities.markup import MarkupReader, normalise_token, parse_marked_text
from engine.userfiles import read_text

FORMATS = ("sgml", "stm", "trn", "ctm")

#: One way to match each number: ``\d+\.?\d*`` split a long run of digits every way it could,
#: so a hostile line of 100,000 digits took minutes.
_FLOAT = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_CTM_LINE = re.compile(rf"^\s*(\S+)\s+(\S+)\s+({_FLOAT})\s+({_FLOAT})\s+(\S+)(?:\s+({_FLOAT}|NA))?\s*$")
_STM_LINE = re.compile(rf"^\s*(\S+)\s+(\S+)\s+(\S+)\s+({_FLOAT})\s+({_FLOAT})(\s+<[^<>]*,[^<>]*>)?(.*)$")
_TRN_LINE = re.compile(r"^(.*)\(([^()]+)\)\s*$")


def detect_format(path: Path, text: str) -> str:
    """The format named by the file's suffix, else guessed from its first lines."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return suffix
    lines = [ln for _, ln in _scored_lines(text)][:50]
    if lines and all(_CTM_LINE.match(ln) for ln in lines):
        return "ctm"
    if lines and all(_TRN_LINE.match(ln) for ln in lines):
        return "trn"
    if lines and all(_STM_LINE.match(ln) and "<" not in ln.split()[0] for ln in lines):
        return "stm"
    return "sgml"


def read_transcript(path: str | Path, fmt: str | None = None) -> tuple[Transcript, str]:
    """Read ``path`` in ``fmt`` (detected when None); return the transcript and the format."""
    path = Path(path)
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot read: {exc}") from None
    fmt = fmt or detect_format(path, text)
    if fmt not in FORMATS:
        raise TranscriptError(f"{path}: unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    reader = {"sgml": lambda: parse_marked_text(text, str(path)), "stm": lambda: read_stm(text, str(path)),
              "trn": lambda: read_trn(text, str(path)), "ctm": lambda: read_ctm(text, str(path))}[fmt]
    return reader(), fmt


def _scored_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, line) of every line that is neither blank nor a ``;;`` comment."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.startswith(";;"):
            yield number, line


def _match(pattern: re.Pattern[str], line: str, where: str, expected: str) -> re.Match[str]:
    """``pattern``'s match of ``line``, or TranscriptError "``where``: not ``expected``: line"."""
    m = pattern.match(line)
    if not m:
        raise TranscriptError(f"{where}: not {expected}: {line!r}")
    return m


def _check_times(rows: list[tuple[Any, ...]], text: str, source: str) -> None:
    """TranscriptError "``source``:line: times are not finite numbers" for a row (file, channel, t0, t1, ..., line
    number, ...) of ``text`` whose times overflow (1e999)."""
    for row in rows:
        if not (math.isfinite(row[2]) and math.isfinite(row[3])):
            line = text.splitlines()[row[5] - 1]  # split again only to quote the line
            raise TranscriptError(f"{source}:{row[5]}: times are not finite numbers: {line!r}")


def read_ctm(text: str, source: str = "<ctm>") -> Transcript:
    """Words with times, in file order per (file, channel); short tags allowed on words.

    Lines are not re-sorted by time inside a channel: tags on words depend on their order."""
    rows = []
    for number, line in _scored_lines(text):
        parts = line.split()
        try:  # the common case, without a regular expression
            if len(parts) not in (5, 6):
                raise ValueError
            rows.append((parts[0], parts[1], float(parts[2]), float(parts[3]), parts[4], number,
                         line.index(parts[4], len(parts[0]) + len(parts[1]) + len(parts[2]) + len(parts[3])) + 1))
            continue
        except ValueError:
            pass
        m = _match(_CTM_LINE, line, f"{source}:{number}", "a CTM line (file channel start duration word [conf])")
        rows.append((m.group(1), m.group(2), float(m.group(3)), float(m.group(4)), m.group(5), number, m.start(5) + 1))
    first_seen: dict[tuple[str, str], int] = {}
    for r in rows:
        first_seen.setdefault((r[0], r[1]), len(first_seen))
    _check_times(rows, text, source)
    rows.sort(key=lambda r: first_seen[(r[0], r[1])])  # stable: words keep file order within a channel
    reader = MarkupReader(source)
    for file, channel, start, dur, word, number, column in rows:
        unit = f"{file} {channel}"
        if unit != reader._unit or not reader.segments:
            reader.new_segment(unit=unit)
        if "<" in word or ">" in word:
            reader.feed(word, number, column, times=(start, start + dur))
        elif lexemes := normalise_token(word):
            reader.add_words(lexemes, (number, column), (start, start + dur))
    return reader.finish()


def read_stm(text: str, source: str = "<stm>") -> Transcript:
    """Segments with times and marked-up text; segments are sorted by file, channel and start."""
    rows = []
    for number, line in _scored_lines(text):
        m = _match(_STM_LINE, line, f"{source}:{number}", "an STM line (file channel speaker start end text)")
        rows.append((m.group(1), m.group(2), float(m.group(4)), float(m.group(5)), m.group(7), number, m.start(7) + 1))
    _check_times(rows, text, source)
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    reader = MarkupReader(source)
    for file, channel, start, end, body, number, column in rows:
        reader.new_segment(start, end, unit=f"{file} {channel}")
        if body.strip().upper() in ("IGNORE_TIME_SEGMENT_IN_SCORING",):
            continue
        reader.feed(body, number, column)
    return reader.finish()


def read_trn(text: str, source: str = "<trn>") -> Transcript:
    """Utterances ``text (id)``; the id is each word's alignment unit."""
    reader = MarkupReader(source)
    for number, line in _scored_lines(text):
        m = _match(_TRN_LINE, line, f"{source}:{number}", "a trn line (text (utterance-id))")
        reader.new_segment(unit="utt " + m.group(2).strip())
        reader.feed(m.group(1), number, 1)
    return reader.finish()


def transcript_from_index(words: Sequence[Mapping[str, Any]] | Sequence[Sequence[Any]],
                          entities: Iterable[Mapping[str, Any] | EntitySpan] = (), *,
                          name: str = "index") -> Transcript:
    """A hypothesis from a recording in the index.

    Parameters
    ----------
    words : sequence
        The recording's words in order, each a mapping with ``start``, ``end`` (seconds),
        ``conf`` and ``text`` (as ``Store.words`` returns them) or a tuple
        ``(start, end, conf, text)``.
    entities : iterable
        Its entities, mappings with ``type``, ``first_word``, ``last_word`` (inclusive
        indices into ``words``), as ``Store.entities`` returns them, or EntitySpans.

    Index words are mapped to lexemes like any hypothesis word: a word that normalises
    to nothing (``[noise]``) is dropped and entity indices are moved accordingly.
    """
    lexemes: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    first_lexeme = np.zeros(len(words) + 1, dtype=np.int64)
    for i, w in enumerate(words):
        start, end, _conf, text = ((w["start"], w["end"], w["conf"], w["text"]) if isinstance(w, Mapping) else w)
        first_lexeme[i] = len(lexemes)
        parts = normalise_token(str(text))
        step = (float(end) - float(start)) / max(len(parts), 1)
        for k, part in enumerate(parts):
            lexemes.append(part)
            starts.append(float(start) + k * step)
            ends.append(float(start) + (k + 1) * step)
    first_lexeme[len(words)] = len(lexemes)
    spans = []
    for e in entities:
        score: float | None
        if isinstance(e, EntitySpan):
            etype, lo, hi, score = e.type, e.first_word, e.last_word, e.score
        else:
            etype, lo, hi, score = e["type"], int(e["first_word"]), int(e["last_word"]), e.get("score")
        if not 0 <= lo <= hi < len(words):
            raise TranscriptError(f"{name}: entity {etype} over words {lo}..{hi} lies outside the {len(words)} words")
        first, last = int(first_lexeme[lo]), int(first_lexeme[hi + 1]) - 1
        if last >= first:
            spans.append(EntitySpan(str(etype).upper(), first, last, " ".join(lexemes[first:last + 1]),
                                    1.0 if score is None else float(score)))
    spans.sort(key=lambda s: s.first_word)
    n = len(lexemes)
    return Transcript(lexemes, np.array(starts, dtype=np.float64).reshape(n), np.array(ends, dtype=np.float64).reshape(n),
                      [""] * n, spans, [], name)


def with_entities(transcript: Transcript, entities: Sequence[EntitySpan]) -> Transcript:
    """The same words with other entities (e.g. a tagger's on an untagged CTM)."""
    return Transcript(transcript.words, transcript.starts, transcript.ends, transcript.units, list(entities),
                      transcript.where, transcript.source, transcript.segment_first)
