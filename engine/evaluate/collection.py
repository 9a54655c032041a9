"""A passage-retrieval test collection built from data: recordings, topics, judgements.

Sources (``../shared/data``): the Lee corpus (short ABC news articles, ten to a
recording, Choi-style) and NewsScape caption days (cut into ~30-minute
recordings at story or commercial boundaries, ``>>``/``>>>`` markup stripped).
Each recording's words get times (Lee: synthetic, ~2.7 words per second;
NewsScape: the caption line's span shared out evenly over its words) and go
into the index the way ingest writes them (``Store.save_recording``), then
``index_passages``; with ``with_stories`` the source's own story boundaries
are written to the ``stories`` table first, as segmentation would.

A topic is one story (at least ``min_story_words`` words): its query is the
``max_terms`` rarest headline words (content terms of the first sentence that
occur in at least two stories, rarest first), its one judged passage the whole
story, as characters of the recording's transcript text and as seconds.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.passages import Judgement, Retrieved
from engine.search.passage_blocks import index_passages
from engine.search.query import Hit
from engine.search.segments import segment_bounds
from engine.search.text import terms
from engine.storage.store import NewRecording, Store, StoryRow, WordRow

#: Synthetic timing of Lee text: seconds per word plus per character, pause between stories.
LEE_WORD_SECONDS = 0.08
LEE_CHAR_SECONDS = 0.055
STORY_PAUSE_SECONDS = 1.5


@dataclass(frozen=True)
class Story:
    first: int  # word positions in the recording, inclusive
    last: int
    is_story: bool  # False: commercial or untagged caption text
    confidence: float | None = None  # posterior of the boundary that opens it (None: given, not found)


@dataclass
class SourceRecording:
    name: str
    words: list[str]
    starts: np.ndarray
    ends: np.ndarray
    stories: list[Story]

    def char_offsets(self) -> np.ndarray:
        """Char offset of each word in the transcript text, and one past the end."""
        lengths = np.fromiter(map(len, self.words), dtype=np.int64, count=len(self.words))
        return np.concatenate([[0], np.cumsum(lengths + 1)])


@dataclass(frozen=True)
class Topic:
    id: str
    query: str
    recording: str
    story: Story


# -- sources -----------------------------------------------------------------------------


def read_lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return [line.strip() for line in text.splitlines() if line.strip()]


def lee_recordings(folder: Path, *, per_recording: int = 10) -> list[SourceRecording]:
    """The Lee articles (background file, then the 50 test articles), ``per_recording`` to a recording."""
    articles = read_lines(folder / "lee_background.cor") + read_lines(folder / "lee.cor")
    out = []
    for k in range(0, len(articles), per_recording):
        words: list[str] = []
        starts: list[float] = []
        ends: list[float] = []
        stories = []
        t = 0.0
        for article in articles[k : k + per_recording]:
            first = len(words)
            for w in article.split():
                d = LEE_WORD_SECONDS + LEE_CHAR_SECONDS * len(w)
                words.append(w)
                starts.append(t)
                ends.append(t + d)
                t += d + 0.02
            stories.append(Story(first, len(words) - 1, True))
            t += STORY_PAUSE_SECONDS
        out.append(SourceRecording(f"lee-{k // per_recording:02d}", words, np.array(starts), np.array(ends), stories))
    return out


def _seconds(stamp: str) -> float:
    """Seconds since midnight of a YYYYMMDDhhmmss.mmm caption time."""
    return int(stamp[8:10]) * 3600 + int(stamp[10:12]) * 60 + float(stamp[12:])


def newsscape_recordings(folder: Path, *, minutes: float = 30.0) -> list[SourceRecording]:
    """Every NewsScape day, cut into recordings of about ``minutes`` at segment boundaries."""
    out = []
    for path in sorted(folder.glob("*.txt3")):
        segments = _caption_segments(path)
        part: list[tuple[bool, list[tuple[str, float, float]]]] = []
        k = 0
        for seg in segments:
            part.append(seg)
            first_t, last_t = part[0][1][0][1], part[-1][1][-1][2]
            if last_t - first_t >= minutes * 60:
                out.append(_recording(f"{path.stem}-part{k:02d}", part))
                part, k = [], k + 1
        if part:
            out.append(_recording(f"{path.stem}-part{k:02d}", part))
    return out


def _caption_segments(path: Path) -> list[tuple[bool, list[tuple[str, float, float]]]]:
    """(is a story, [(word, start, end)]) for each story, commercial or untagged stretch."""
    segments: list[tuple[bool, list[tuple[str, float, float]]]] = []
    current: tuple[bool, list[tuple[str, float, float]]] = (False, [])
    for line in read_lines(path):
        parts = line.split("|", 3)
        if len(parts) < 4 or not parts[0][:1].isdigit():
            continue
        if parts[2].startswith("SEG"):
            if current[1]:
                segments.append(current)
            current = ("Story start" in parts[3], [])
        elif parts[2] == "CC1":
            words = parts[3].replace(">>>", " ").replace(">>", " ").split()
            if not words:
                continue
            t0, t1 = _seconds(parts[0]), _seconds(parts[1])
            step = max(t1 - t0, 0.01) / len(words)
            current[1].extend((w, t0 + i * step, t0 + (i + 1) * step - 0.01) for i, w in enumerate(words))
    if current[1]:
        segments.append(current)
    return segments


def _recording(name: str, part: list[tuple[bool, list[tuple[str, float, float]]]]) -> SourceRecording:
    origin = part[0][1][0][1]
    words: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    stories: list[Story] = []
    for is_story, seg in part:
        first = len(words)
        for w, a, b in seg:
            words.append(w)
            starts.append(max(a - origin, 0.0))
            ends.append(max(b - origin, 0.0))
        stories.append(Story(first, len(words) - 1, is_story))
    # Caption rows are not always in time order: keep word times monotone, as a recogniser's are.
    start_arr = np.maximum.accumulate(np.array(starts))
    return SourceRecording(name, words, start_arr, np.maximum(np.array(ends), start_arr), stories)


# -- topics and judgements ------------------------------------------------------------------


def headline(words: Sequence[str], *, max_words: int = 25, min_words: int = 5) -> list[str]:
    """The story's first sentence (at least ``min_words``, at most ``max_words`` words)."""
    for i, w in enumerate(words[:max_words]):
        if i + 1 >= min_words and w.endswith((".", "!", "?")):
            return list(words[: i + 1])
    return list(words[:max_words])


def make_topics(recordings: Sequence[SourceRecording], *, prefix: str, max_terms: int = 4,
                min_story_words: int = 60, min_terms: int = 2) -> list[Topic]:
    """One topic per story long enough, queried by its rarest headline terms (see the module doc)."""
    story_terms = [(rec, s, set(terms(" ".join(rec.words[s.first : s.last + 1]))))
                   for rec in recordings for s in rec.stories]
    df = Counter(t for _, _, ts in story_terms for t in ts)
    topics: list[Topic] = []
    for rec, story, _ in story_terms:
        if not story.is_story or story.last - story.first + 1 < min_story_words:
            continue
        head = list(dict.fromkeys(t for t in terms(" ".join(headline(rec.words[story.first : story.last + 1])))
                                  if t.isalpha() and len(t) > 2 and df[t] >= 2))
        head.sort(key=lambda t: df[t])  # stable: rarest first, then headline order
        if len(head) >= min_terms:
            topics.append(Topic(f"{prefix}{len(topics) + 1:04d}", " ".join(head[:max_terms]), rec.name, story))
    return topics


def sentence_starts(words: Sequence[str]) -> list[int]:
    """Index of the first word of every sentence (a word ending in . ! or ? closes one)."""
    return [0] + [i + 1 for i, w in enumerate(words[:-1]) if w.endswith((".", "!", "?"))]


def judgements(topics: Iterable[Topic], recordings: Sequence[SourceRecording], *, units: str,
               per_sentence: bool = True) -> list[Judgement]:
    """Each topic's story as its relevant text, in characters or seconds.

    With ``per_sentence`` the story is judged as one passage per sentence (each
    running up to the next sentence, so together they cover the story exactly),
    as an annotator highlighting sentence by sentence would mark it: R is the
    same, only the number of judged passages R_p (which passage R-precision
    uses) grows.
    """
    by_name = {r.name: r for r in recordings}
    out = []
    for t in topics:
        rec = by_name[t.recording]
        first, last = t.story.first, t.story.last
        starts = [first + i for i in sentence_starts(rec.words[first : last + 1])] if per_sentence else [first]
        edges: list[float]
        if units == "chars":
            chars = rec.char_offsets()
            edges = [float(chars[i]) for i in starts] + [float(chars[last] + len(rec.words[last]))]
        else:
            edges = [float(rec.starts[i]) for i in starts] + [float(rec.ends[last])]
        out += [Judgement(t.id, doc_id(t.recording), a, b - a) for a, b in itertools.pairwise(edges)]
    return out


def doc_id(name: str) -> str:
    """A recording's name as a document id of run and judgement files (no whitespace)."""
    return "_".join(name.split()) or "_"


def run_rows(topic: str, hits: Sequence[Hit], *, units: str) -> list[Retrieved]:
    """A topic's hits as run rows (document = recording name, see :func:`doc_id`)."""
    if units == "chars":
        return [Retrieved(topic, doc_id(h.name), h.char_start, h.char_end - h.char_start, k + 1, h.text_score)
                for k, h in enumerate(hits) if h.char_end > h.char_start]
    return [Retrieved(topic, doc_id(h.name), round(h.start, 3), round(h.end - h.start, 3), k + 1, h.text_score)
            for k, h in enumerate(hits) if h.end > h.start]


# -- indexing -------------------------------------------------------------------------------------


def index_recordings(store: Store, recordings: Iterable[SourceRecording], *, with_stories: bool = True,
                     engine: str = "text") -> dict[str, int]:
    """Write each recording as ingest does, then its stories and passages; return ids by name."""
    ids = {}
    for rec in recordings:
        if not rec.words:
            raise ParameterError(f"{rec.name}: a recording needs words")
        words = [WordRow(float(a), float(b), 1.0, w) for w, a, b in zip(rec.words, rec.starts, rec.ends, strict=True)]
        bounds = segment_bounds([words])  # type: ignore[list-item]
        digest = hashlib.sha256(" ".join(rec.words).encode()).hexdigest()
        rid = store.save_recording(NewRecording(
            path=f"collection/{rec.name}", name=rec.name, content_hash=digest, size_bytes=0,
            duration=float(rec.ends[-1]), sample_rate=16_000, channels=1, codec="none", container="none",
            engine=engine, model="collection", language="en", words=words, segments=bounds,
        ))
        with store.atomic():
            if with_stories:
                store.replace_stories(rid, [StoryRow(s.first, s.last, s.confidence) for s in rec.stories])
            index_passages(store, rid)
        ids[rec.name] = rid
    return ids


def perturbed_copy(rec: SourceRecording, *, name: str, rng: np.random.Generator, vocabulary: Sequence[str],
                   swap: float = 0.05) -> SourceRecording:
    """The recording with its stories shuffled and ``swap`` of its words replaced by random
    vocabulary words (for scale tests: same statistics, not the same text)."""
    order = rng.permutation(len(rec.stories))
    words: list[str] = []
    starts: list[np.ndarray] = []
    ends: list[np.ndarray] = []
    stories = []
    t = 0.0
    for k in order:
        s = rec.stories[k]
        seg = list(rec.words[s.first : s.last + 1])
        flip = np.flatnonzero(rng.random(len(seg)) < swap)
        for i, j in zip(flip, rng.integers(0, len(vocabulary), len(flip)), strict=True):
            seg[i] = vocabulary[j]
        a, b = rec.starts[s.first : s.last + 1], rec.ends[s.first : s.last + 1]
        shift = t - a[0]
        stories.append(Story(len(words), len(words) + len(seg) - 1, s.is_story))
        words += seg
        starts.append(a + shift)
        ends.append(b + shift)
        t = float(b[-1] + shift) + STORY_PAUSE_SECONDS
    return SourceRecording(name, words, np.concatenate(starts), np.concatenate(ends), stories)


def hours(recordings: Iterable[SourceRecording]) -> float:
    return sum(float(r.ends[-1]) for r in recordings if len(r.ends)) / 3600

