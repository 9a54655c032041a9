"""Word sequences for the segmenter: normalisation and the corpus formats it reads.

Words are what a recognizer emits: lower case, no punctuation. Caption markup that
gives the answer away (``>>>`` story change, ``>>`` speaker change and the speaker
label after it, such as ``>>Reporter:``) is removed before anything else.

Formats
-------
* NewsScape ``.txt3``: caption rows ``START|END|CC1|TEXT`` and markers
  ``START|END|SEG_00|Type=Story start`` / ``Type=Commercial``. Every marker opens a
  segment; a commercial block counts as one segment (it is not a story, but a
  story ends where it begins).
* Plain text: stories separated by blank lines.
* Lee corpus: one article per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import numpy as np

from engine.errors import ParameterError
from engine.textfile import read_text
from engine.userfiles import read_bytes

_SPEAKER_LABEL = re.compile(r">>>?\s*(?:[A-Z][a-z]*\.?\s){0,2}[A-Z][a-z]+:")
_STRAY_LABEL = re.compile(r"\b[A-Z][a-z]+:")
#: Upper-case speaker labels at the start of a caption row or after a chevron ("KELLY:", "THE REPORTER:").
_UPPER_LABEL = re.compile(r"(?:^|(?<=>>))\s*(?:[A-Z][A-Z.'\-]*\s)?[A-Z][A-Z.'\-]+:(?=\s|$)")
_CHEVRONS = re.compile(r">{2,}")
_NOT_WORD = re.compile(r"[^a-z0-9']+")
#: Where a sentence ends: after . ? or ! and any closing quotes or brackets, before white space.
_SENTENCE_BREAK = re.compile(r"(?<=[.?!])\s+|(?<=[.?!][\"'\u2019\u201d)\]])\s+")
_SENTENCE_END = re.compile(r"[.?!][\"'\u2019\u201d)\]]?\s*$")
_EPOCH = date(2000, 1, 1)


@dataclass
class Transcript:
    """One recording's words, optional times and (for training data) its segments.

    Attributes
    ----------
    words : list of str, length n
        Normalised words.
    story_starts : ndarray of int64, shape (k,)
        Word index at which each segment starts, sorted, ``story_starts[0] == 0``;
        empty when the truth is unknown.
    starts, ends : ndarray of float64, shape (n,), or None
        Word start and end times in seconds from the start of the recording.
    sentence_starts : ndarray of int64
        Word indices at which a sentence starts, from the source punctuation (only
        the peer segmenters of the benchmark use it; the HMM never does).
    name : str
        Where the transcript came from.
    speaker_changes : ndarray of int64, or None
        Word indices at which a new speaker starts talking (a caption row's ``>>`` or ``>>>``,
        or diarized turns); None when the source says nothing about speakers.
    """

    words: list[str]
    story_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    starts: np.ndarray | None = None
    ends: np.ndarray | None = None
    sentence_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    name: str = ""
    speaker_changes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.words)

    def story_lengths(self) -> np.ndarray:
        """Length in words of every segment, shape (k,)."""
        edges = np.append(self.story_starts, len(self.words))
        return np.diff(edges)

    def slice(self, begin: int, end: int) -> Transcript:
        """The words ``[begin, end)`` with the segments that start inside them."""
        keep = (self.story_starts > begin) & (self.story_starts < end)
        starts = np.concatenate([[0], self.story_starts[keep] - begin]).astype(np.int64)
        sent = self.sentence_starts[(self.sentence_starts >= begin) & (self.sentence_starts < end)] - begin
        turns = self.speaker_changes
        if turns is not None:
            turns = (turns[(turns >= begin) & (turns < end)] - begin).astype(np.int64)
        return Transcript(
            words=self.words[begin:end],
            story_starts=starts,
            starts=None if self.starts is None else self.starts[begin:end],
            ends=None if self.ends is None else self.ends[begin:end],
            sentence_starts=sent.astype(np.int64),
            name=f"{self.name}[{begin}:{end}]",
            speaker_changes=turns,
        )


def strip_markup(text: str) -> str:
    """Remove caption markup that leaks story and speaker changes (chevrons, speaker labels)."""
    text = _UPPER_LABEL.sub(" ", text)
    text = _SPEAKER_LABEL.sub(" ", text)
    text = _CHEVRONS.sub(" ", text)
    return _STRAY_LABEL.sub(" ", text)


def chevron_offsets(text: str) -> list[int]:
    """How many words of a caption row's ``text`` come before each of its ``>>`` or ``>>>`` marks.

    Both marks are read alike, as "another speaker starts here": ``>>>`` also marks a story
    in some caption days, so telling them apart would leak the story truth.
    """
    return [len(normalize_words(text[:m.start()])) for m in _CHEVRONS.finditer(text)]


def normalize_words(text: str) -> list[str]:
    """Lower-case words without punctuation, markup removed, as a recognizer emits them."""
    cleaned = _NOT_WORD.sub(" ", strip_markup(text).lower())
    return [w for w in (tok.strip("'") for tok in cleaned.split()) if w]


def _sentences(text: str) -> list[tuple[list[str], bool]]:
    """Normalised words of ``text`` split at its sentence punctuation, each with whether it ends a sentence."""
    out = []
    for piece in _SENTENCE_BREAK.split(strip_markup(text)):
        words = normalize_words(piece)
        if words:
            out.append((words, bool(_SENTENCE_END.search(piece))))
    return out


def from_stories(stories: Sequence[str], *, name: str = "") -> Transcript:
    """A transcript made of whole stories (raw text each), boundaries exactly known.

    A word starts a sentence when it is the first word or the text before it ends
    in ``.``, ``?`` or ``!``: punctuation alone decides, never the story breaks, so
    unpunctuated text has no sentence starts (beyond word 0) and cannot leak them.
    """
    words: list[str] = []
    story_starts: list[int] = []
    sentence_starts: list[int] = []
    pending = True
    punctuated = False
    for story in stories:
        sentences = _sentences(story)
        if not sentences:
            continue
        story_starts.append(len(words))
        for sentence, ends in sentences:
            if pending:
                sentence_starts.append(len(words))
            pending = ends
            punctuated = punctuated or ends
            words.extend(sentence)
    return Transcript(
        words=words,
        story_starts=np.asarray(story_starts, dtype=np.int64),
        sentence_starts=np.asarray(sentence_starts if punctuated else [], dtype=np.int64),
        name=name,
    )


def txt3_time(stamp: str) -> float:
    """Seconds since 2000-01-01 of a ``YYYYMMDDhhmmss.mmm`` caption time (exact to the millisecond)."""
    whole, _, frac = stamp.partition(".")
    moment = datetime.strptime(whole, "%Y%m%d%H%M%S")
    days = (moment.date() - _EPOCH).days
    seconds = moment.hour * 3600 + moment.minute * 60 + moment.second
    return days * 86400.0 + seconds + (float("0." + frac) if frac else 0.0)


@dataclass(frozen=True)
class Txt3Row:
    """One timed row of a NewsScape ``.txt3`` caption file; times in seconds since 2000-01-01."""

    start: float
    end: float
    kind: str  # "CC1", "SEG_00", ...
    text: str

    @property
    def opens_story(self) -> bool:
        """A SEG marker that starts a story or a commercial block."""
        return self.kind.startswith("SEG") and ("Story start" in self.text or "Commercial" in self.text)

    @property
    def is_caption(self) -> bool:
        return self.kind.startswith("CC")


def txt3_row(line: str) -> Txt3Row | None:
    """The timed row on ``line``, or None for a header or other line; ValueError if its times are unreadable."""
    parts = line.split("|", 3)
    if len(parts) < 4 or not parts[0][:1].isdigit():
        return None
    return Txt3Row(txt3_time(parts[0]), txt3_time(parts[1]), parts[2], parts[3])



def txt3_rows(lines: Iterable[str]) -> Iterator[Txt3Row]:
    """The timed rows of a .txt3 file's lines, skipping headers and rows with unreadable times."""
    for line in lines:
        try:
            row = txt3_row(line)
        except ValueError:
            continue
        if row is not None:
            yield row

def read_txt3(path: str | Path) -> Transcript:
    """Read a NewsScape caption file; words get times interpolated inside each caption row.

    Raises
    ------
    ParameterError
        If the file cannot be read or holds no caption text.
    """
    path = Path(path)
    try:
        lines = read_text(path).splitlines()
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read caption file ({exc.strerror})") from exc
    except ValueError as exc:
        raise ParameterError(f"{path}: {exc}") from None
    words: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    story_starts: list[int] = []
    sentence_starts: list[int] = []
    speaker_changes: list[int] = []
    pending_sentence = True
    punctuated = False
    for row in txt3_rows(lines):
        t0, t1 = row.start, row.end
        if row.opens_story:
            story_starts.append(len(words))
            continue
        if not row.is_caption:
            continue
        row_words: list[str] = []
        for piece_words, ends_sentence in _sentences(row.text):
            if pending_sentence:
                sentence_starts.append(len(words) + len(row_words))
            pending_sentence = ends_sentence
            punctuated = punctuated or ends_sentence
            row_words.extend(piece_words)
        n = len(row_words)
        speaker_changes.extend(len(words) + k for k in chevron_offsets(row.text) if k < n)
        span = max(t1 - t0, 0.0)
        for i, word in enumerate(row_words):
            words.append(word)
            starts.append(t0 + span * i / n)
            ends.append(t0 + span * (i + 1) / n)
    if not words:
        raise ParameterError(f"{path}: no caption text found (expected rows like START|END|CC1|TEXT)")
    origin = starts[0]
    marks = np.unique(np.asarray([s for s in story_starts if s < len(words)], dtype=np.int64))
    if marks.size and marks[0] != 0:
        marks = np.concatenate([[0], marks])
    return Transcript(
        words=words,
        story_starts=marks,
        starts=np.round(np.asarray(starts) - origin, 9),
        ends=np.round(np.asarray(ends) - origin, 9),
        sentence_starts=np.asarray(sentence_starts if punctuated else [], dtype=np.int64),
        name=path.name,
        # captions that never write a chevron say nothing about speakers
        speaker_changes=np.unique(np.asarray(speaker_changes, dtype=np.int64)) if speaker_changes else None,
    )


def read_story_text(path: str | Path) -> Transcript:
    """Read a plain-text file whose stories are separated by blank lines."""
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read text file ({exc.strerror})") from exc
    except ValueError as exc:
        raise ParameterError(f"{path}: {exc}") from None
    stories = [s for s in re.split(r"\n\s*\n", text) if s.strip()]
    transcript = from_stories(stories, name=path.name)
    if not transcript.words:
        raise ParameterError(f"{path}: no words found")
    return transcript


def read_transcript(path: str | Path) -> Transcript:
    """A ``.txt3`` caption file or a plain-text file, by suffix."""
    path = Path(path)
    if not path.is_file():
        raise ParameterError(f"{path}: no such file")
    return read_txt3(path) if path.suffix.lower() == ".txt3" else read_story_text(path)


def read_corpus(directory: str | Path) -> list[Transcript]:
    """Every ``.txt3`` file in ``directory`` (or, if none, every ``.txt`` file), sorted by name."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ParameterError(f"{directory}: not a folder")
    files = sorted(directory.glob("*.txt3")) or sorted(directory.glob("*.txt"))
    if not files:
        raise ParameterError(f"{directory}: no .txt3 or .txt transcripts found")
    return [read_transcript(f) for f in files]


def read_lee_articles(path: str | Path) -> list[str]:
    """The articles of a Lee corpus file, one per line (Latin-1 tolerated)."""
    path = Path(path)
    try:
        raw = read_bytes(path)
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read Lee corpus file ({exc.strerror})") from exc
    text = raw.decode("utf-8", errors="replace") if raw.isascii() else raw.decode("latin-1")
    return [line.strip() for line in text.splitlines() if line.strip()]


def choi_documents(
    articles: Sequence[str], *, n_documents: int, articles_per_document: int, rng: np.random.Generator
) -> list[Transcript]:
    """Choi-style test documents: each concatenates distinct articles drawn at random.

    Parameters
    ----------
    articles : sequence of str
        Raw article texts.
    n_documents, articles_per_document : int
        How many documents, and how many articles each concatenates.
    rng : numpy.random.Generator
        Source of the random draws (fixed seed for a reproducible test set).
    """
    if articles_per_document > len(articles) or articles_per_document < 1 or n_documents < 1:
        raise ParameterError(
            f"cannot draw {n_documents} documents of {articles_per_document} articles from {len(articles)} articles"
        )
    docs = []
    for i in range(n_documents):
        picks = rng.choice(len(articles), size=articles_per_document, replace=False)
        docs.append(from_stories([articles[j] for j in picks], name=f"choi-{i}"))
    return docs


def concatenate_articles(articles: Sequence[str], *, per_document: int, name: str = "lee") -> list[Transcript]:
    """Training documents: articles in the given order, ``per_document`` to a document, each used once."""
    return [
        from_stories(articles[i : i + per_document], name=f"{name}-{i // per_document}")
        for i in range(0, len(articles), per_document)
    ]


def sentence_starts_from_display(displays: Sequence[str]) -> np.ndarray:
    """Word indices that open a sentence in a recogniser's cased, punctuated word forms.

    ``displays[t]`` is word ``t`` as the recogniser wrote it (Whisper: ``"Tonight,"``,
    ``"weather."``). Word 0 opens a sentence, and so does every word after one that ends
    in ``.``, ``?`` or ``!`` (closing quotes allowed). Returns int64 (k,); an empty array
    when no word ends a sentence (unpunctuated output: the caller should treat it as such).
    """
    ends = np.fromiter((bool(_SENTENCE_END.search(d)) for d in displays), dtype=bool, count=len(displays))
    if not ends.any():
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([[0], np.flatnonzero(ends[:-1]) + 1]).astype(np.int64)


def read_commercial_blocks(path: str | Path) -> np.ndarray:
    """Word spans of the commercial blocks a NewsScape ``.txt3`` marks, int64 (m, 2): [first word, end).

    Word indices are those of :func:`read_txt3` on the same file; a block runs from its
    ``Type=Commercial`` marker to the next marker (or the end). Only benchmarks use this, to
    count hypothesised boundaries that fall inside a commercial block.
    """
    path = Path(path)
    try:
        lines = read_text(path).splitlines()
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read caption file ({exc.strerror})") from exc
    except ValueError as exc:
        raise ParameterError(f"{path}: {exc}") from None
    n_words = 0
    markers: list[tuple[int, bool]] = []
    for row in txt3_rows(lines):
        if row.opens_story:
            markers.append((n_words, "Commercial" in row.text))
        elif row.is_caption:
            n_words += sum(len(words) for words, _ in _sentences(row.text))
    spans = [(a, b) for (a, is_ad), (b, _) in zip(markers, [*markers[1:], (n_words, False)], strict=True)
             if is_ad and b > a]
    return np.asarray(spans, dtype=np.int64).reshape(-1, 2)
