"""Every read the GUI makes of the index, in one place, shaped for the panels.

Recordings, words, segments, stories, events, entities and jobs come through
:class:`engine.storage.store.Store`; search through :func:`engine.search.search`.
No SQL here: every statement is in ``engine/storage``.

One :class:`LibraryReader` per thread (SQLite connections stay in their
thread): the UI thread keeps one; pool tasks open their own with
:func:`open_reader`.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import search as engine_search
from engine.detect.rate import RATE_EVENT_TYPES, rate_label
from engine.importer.save import has_audio
from engine.search.config import SNIPPET_MARKS
from engine.storage.store import Store
from engine.writing import join_written, written_groups

#: Untranscribed non-speech before a word, in seconds, that the timeline marks as X-duration.
X_DURATION_MIN_SECONDS = 1.0
#: Event types the timeline gives a lane of their own, in lane order.
EVENT_LANES = ("applause", "laughter", "audience", "music")
#: Event types that mark speech-rate extremes.
RATE_TYPES = RATE_EVENT_TYPES
#: Events worth pointing out in the transcript and beside search hits (speech and noise would be everywhere).
NOTABLE_EVENTS = frozenset(EVENT_LANES + RATE_TYPES)

#: Browsing by a filter alone: seconds of words shown either side of an item, at most this many words,
#: and at most this many of its own words in bold (a story's opening, an entity's words).
BROWSE_CONTEXT_SECONDS = 4.0
BROWSE_SNIPPET_WORDS = 40
BROWSE_MARKED_WORDS = 8

#: Job states that leave a row in the library when no newer transcript exists.
_JOB_ROW_STATES = ("failed", "interrupted", "cancelled")


@dataclass(frozen=True)
class LibraryRow:
    """One line of the library: an indexed recording, or a file whose last ingest did not finish."""

    path: str
    name: str
    status: str  # done, failed, interrupted, cancelled
    message: str = ""
    recording_id: int | None = None
    duration: float = 0.0
    word_count: int = 0
    engine: str = ""
    model: str = ""
    date: float = 0.0  # unix time it was indexed (or the job ended)
    language: str = ""  # ISO 639-1 code of the language identified and stored


@dataclass(frozen=True)
class Span:
    """Something that happens between two times (seconds) of a recording."""

    start: float
    end: float
    kind: str  # event type, entity type, "story", "commercial"
    label: str = ""
    first_word: int = -1
    last_word: int = -1
    speaker: int = 0  # a speaker turn's label (1, 2, ...); 0 for everything else


@dataclass(frozen=True)
class SearchFilters:
    """Narrow a search: only hits near an event of this type, mentioning this entity, in this recording,
    or where a speaker of this name talks."""

    event_type: str | None = None
    entity: str | None = None
    recording_id: int | None = None
    speaker: str | None = None


@dataclass(frozen=True)
class SearchHit:
    """One passage that matches a query, with the second to start playing from."""

    recording_id: int
    recording: str
    path: str
    start: float
    end: float
    hot_spot: float
    snippet: str
    rank: float
    events: tuple[Span, ...] = field(default_factory=tuple)
    #: The matched words: (word index, start seconds), in order.
    matched: tuple[tuple[int, float], ...] = ()
    #: The name of the passage's first speaker ("" for none).
    speaker: str = ""


@dataclass(frozen=True)
class RecordingDetail:
    """Everything the transcript and the timeline show for one recording."""

    recording: dict[str, Any]
    words: list[dict[str, Any]]
    segments: list[dict[str, Any]]
    stories: list[Span]
    entities: list[Span]
    events: list[Span]
    x_durations: list[Span]
    #: label, name, seconds, turns, words per speaker (Store.speakers); empty for a recording without turns.
    speakers: list[dict[str, Any]] = field(default_factory=list)
    #: Speaker turns in time order: kind "speaker", label the speaker's name, ``speaker`` its label.
    turns: list[Span] = field(default_factory=list)


class LibraryReader:
    """Read-side queries over one Store, used from one thread."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- the library ------------------------------------------------------------------------

    def library_rows(self) -> list[LibraryRow]:
        """Indexed recordings, plus files whose latest ingest failed, stopped or was cancelled.

        A recording whose newer ingest failed or stopped shows that problem; one whose newer
        ingest was cancelled stays as indexed.
        """
        rows = [
            LibraryRow(r["path"], r["name"], r["status"], "", int(r["id"]), float(r["duration"]),
                       int(r["word_count"]), r["engine"], r["model"], float(r["ingested_at"]), r["language"] or "")
            for r in self.store.recordings()
        ]
        indexed = {r.path: r for r in rows}
        for job in self.store.latest_ingest_jobs():
            if job["status"] not in _JOB_ROW_STATES:
                continue
            done = indexed.get(job["path"])
            # A cancelled "transcribe again" is the user's choice, not a problem: the old transcript stands.
            if done is not None and (done.date >= float(job["ended"]) or job["status"] == "cancelled"):
                continue
            row = LibraryRow(job["path"], Path(job["path"]).name, job["status"], job["message"], date=float(job["ended"]))
            if done is not None:  # an older transcript is still indexed; show it with the newer problem
                row = LibraryRow(done.path, done.name, job["status"], job["message"], done.recording_id,
                                 done.duration, done.word_count, done.engine, done.model, done.date, done.language)
            indexed[job["path"]] = row
        return sorted(indexed.values(), key=lambda r: r.name.lower())

    def forget_failed(self, path: str) -> None:
        """Drop a file's failed ingest records so it leaves the library (its jobs stay in the log file)."""
        self.store.forget_ingest_jobs(path, _JOB_ROW_STATES)

    def audio_path(self, recording_id: int) -> str | None:
        """The file to play for a recording; None for a transcript imported without its audio."""
        rec = self.store.recording(recording_id)
        return str(rec["path"]) if has_audio(rec) else None

    def recordings_brief(self) -> list[tuple[int, str]]:
        return [(int(r["id"]), r["name"]) for r in self.store.recordings(order_by="name")]

    # -- one recording ----------------------------------------------------------------------

    def detail(self, recording_id: int) -> RecordingDetail:
        rec = self.store.recording(recording_id)
        words = self.store.words(recording_id)
        return RecordingDetail(
            recording=rec,
            words=words,
            segments=self.store.segments(recording_id),
            stories=self.stories(recording_id),
            entities=self.entities(recording_id),
            events=self.events(recording_id, words),
            x_durations=self.x_durations(words),
            speakers=self.store.speakers(recording_id),
            turns=[Span(float(t["start"]), float(t["end"]), "speaker", str(t["name"]), speaker=int(t["speaker"]))
                   for t in self.store.turns(recording_id)],
        )

    def stories(self, recording_id: int) -> list[Span]:
        """Stories numbered in order ("Story 3"), and commercial blocks ("Commercials", kind "commercial")."""
        out, n = [], 0
        for r in self.store.stories(recording_id):
            commercial = r.get("kind") == "commercial"
            n += not commercial
            out.append(Span(r["start"], r["end"], "commercial" if commercial else "story",
                            "Commercials" if commercial else f"Story {n}", r["first_word"], r["last_word"]))
        return out

    def entities(self, recording_id: int) -> list[Span]:
        return [Span(r["start"], r["end"], r["type"], join_written(r["text"].split()), r["first_word"], r["last_word"])
                for r in self.store.entities(recording_id)]  # names stored from pieces ("U .S.") shown whole

    def events(self, recording_id: int, words: list[dict[str, Any]] | None = None) -> list[Span]:
        """Hot spots; fast and slow speech labelled with syllables per second and words per minute."""
        starts = [w["start"] for w in (self.store.words(recording_id) if words is None else words)]
        return [Span(r["start"], r["end"], r["type"], _event_label(r, starts)) for r in self.store.events(recording_id)]

    @staticmethod
    def x_durations(words: list[dict[str, Any]], min_seconds: float = X_DURATION_MIN_SECONDS) -> list[Span]:
        """Untranscribed stretches before words (``x_duration``) of at least ``min_seconds``."""
        return [
            Span(w["start"] - w["x_duration"], w["start"], "x_duration", f"{w['x_duration']:.1f} s", w["idx"], w["idx"])
            for w in words if (w.get("x_duration") or 0.0) >= min_seconds
        ]

    # -- search -----------------------------------------------------------------------------

    def event_types(self) -> list[str]:
        return self.store.event_types()

    def entity_names(self, limit: int = 500) -> list[str]:
        """The most mentioned entity names, most frequent first."""
        return self.store.entity_names(limit)

    def speaker_names(self, limit: int = 500) -> list[str]:
        """The library's speaker names, most talk time first."""
        return self.store.speaker_names(limit)

    def search(self, query: str, filters: SearchFilters = SearchFilters(), *, limit: int = 50,
               prefix: bool = False) -> list[SearchHit]:
        """The hot-spot passages that answer ``query``, best first (:func:`engine.search.search`);
        each plays from its first matched word less a short lead-in.

        A query that is a speaker's name (case-insensitive, as typed) lists that speaker's turns first
        (as :meth:`browse` with the speaker filter), then the passages where the name is said.
        """
        wanted = engine_search.SearchFilters(
            event_types=(filters.event_type,) if filters.event_type else (), entity=filters.entity,
            recordings=(filters.recording_id,) if filters.recording_id is not None else (), speaker=filters.speaker,
        )
        turns = self._speaker_turns(query, filters, limit)
        hits = turns + [
            SearchHit(h.recording_id, h.name, h.path, h.start, h.end, h.play_from, _snippet_html(h.snippet), h.score,
                      tuple(Span(e.start, e.end, e.type, e.type) for e in h.events),
                      tuple((m.word, m.start) for m in h.matches),
                      self.store.speaker_name_of_words(h.recording_id, h.first_word, h.last_word))
            for h in engine_search.search(self.store, query, limit=limit, filters=wanted, prefix=prefix)
        ]
        return hits[:limit]

    def _speaker_turns(self, query: str, filters: SearchFilters, limit: int) -> list[SearchHit]:
        """The turns of the speaker ``query`` names, when it names one and no other speaker filter is set."""
        name = " ".join(query.split())
        if not name or filters.speaker or name.casefold() not in {n.casefold() for n in self.store.speaker_names()}:
            return []
        return self.browse(SearchFilters(filters.event_type, filters.entity, filters.recording_id, name), limit=limit)

    def browse(self, filters: SearchFilters, *, limit: int = 50) -> list[SearchHit]:
        """What the filters alone pick out, without a query: an entity's mentions (near the event type, if
        set), an event type's events, or a recording's stories; in recording and time order. Each plays
        from its start; its snippet is the words around it, the entity's or story's opening words in bold.
        """
        rows = self.store.filtered_spans(event_type=filters.event_type, entity=filters.entity,
                                         recording_id=filters.recording_id, speaker=filters.speaker, limit=limit)
        words: dict[int, list[dict[str, Any]]] = {}
        hits = []
        for r in rows:
            rec_words = words.setdefault(int(r["recording_id"]), self.store.words(int(r["recording_id"])))
            span = Span(float(r["start"]), float(r["end"]), str(r["kind"]), str(r["label"]),
                        int(r["first_word"]), int(r["last_word"]))
            marked = range(0) if span.first_word < 0 else range(  # an event has no words of its own
                span.first_word, min(span.last_word, span.first_word + BROWSE_MARKED_WORDS - 1) + 1)
            hits.append(SearchHit(
                int(r["recording_id"]), str(r["name"]), str(r["path"]), span.start, span.end, span.start,
                _words_around(rec_words, span, marked), 0.0, (span,),
                tuple((i, float(rec_words[i]["start"])) for i in marked if i < len(rec_words)),
                self._hit_speaker(int(r["recording_id"]), span)))
        return hits

    def find_voice(self, rec_id: int, label: int) -> list[SearchHit]:
        """The speakers of other recordings whose voice is like speaker ``label`` of ``rec_id``, most
        similar first (:func:`engine.speakers.find.find_speaker` at its held-out threshold). Each hit
        plays from the speaker's first turn; its snippet says how alike the voices are and opens with
        the first words said there. Raises NotFoundError for a speaker stored without a voice profile."""
        from engine.speakers.find import find_speaker  # lazy: NumPy linear algebra only when asked

        hits = []
        for m in find_speaker(self.store, rec_id, label):
            start = m.first if m.first is not None else 0.0
            said = ""
            if m.first is not None:  # the words around the first turn, read as a range, not the whole transcript
                words = self.store.words_between(m.recording_id, start - BROWSE_CONTEXT_SECONDS,
                                                 start + 2 * BROWSE_CONTEXT_SECONDS)
                said = html.escape(join_written([w["display"] or w["text"] for w in words]))
                said = f"… {said} …" if said else ""
            head = f"<b>{html.escape(m.name)}</b>: voice {m.similarity:.0%} alike, {m.seconds / 60:.1f} min of talk"
            hits.append(SearchHit(m.recording_id, m.title, m.path, start, start, start,
                                  f"{head}<br>{said}" if said else head, m.similarity, (), (), m.name))
        return hits

    def _hit_speaker(self, rec_id: int, span: Span) -> str:
        """The speaker of a browsed span: the turn's own, else its first word's ("" for none)."""
        if span.kind == "speaker":
            return span.label
        return self.store.speaker_name_of_words(rec_id, span.first_word, span.last_word) if span.first_word >= 0 else ""

    def explain(self, query: str, *, prefix: bool = False) -> engine_search.QueryReport:
        """How ``query`` was read: ignored and unknown words (with the closest known word), completions.

        ``.message()`` is the one line to show ("" when everything was searched for as typed).
        """
        return engine_search.explain(self.store, query, prefix=prefix)


@contextlib.contextmanager
def open_reader(db_path: str | Path) -> Iterator[LibraryReader]:
    """A reader with its own connection, for one task on a pool thread."""
    store = Store(db_path)
    try:
        yield LibraryReader(store)
    finally:
        store.close()


def _event_label(row: dict[str, Any], word_starts: list[float]) -> str:
    if row["type"] in RATE_TYPES:
        return rate_label(row["type"], row["start"], row["end"], row["value"], word_starts)
    length = row["end"] - row["start"]
    label = f"{row['type']} {length:.0f} s" if length >= 1 else row["type"]
    if row["type"] == "audience" and row["score"] is not None and row["value"] is not None:
        # the detector could not tell applause from laughter: say how sure it was and which way it leaned
        label += f": applause or laughter, score {row['score']:.2f}, {100 * row['value']:.0f} % laughter"
    return label


def _words_around(words: list[dict[str, Any]], span: Span, marked: range) -> str:
    """HTML of the words from ``BROWSE_CONTEXT_SECONDS`` before ``span`` to as long after it, ``marked`` in bold."""
    around = [(i, w) for i, w in enumerate(words)
              if span.start - BROWSE_CONTEXT_SECONDS <= w["start"] <= span.end + BROWSE_CONTEXT_SECONDS]
    around = around[:BROWSE_SNIPPET_WORDS]
    text = [f"<b>{html.escape(w['display'] or w['text'])}</b>" if i in marked else html.escape(w["display"] or w["text"])
            for i, w in around]
    shown = [w["display"] or w["text"] for _, w in around]
    joined = " ".join("".join(text[k] for k in group) for group in written_groups(shown))
    return ("… " if around and around[0][0] > 0 else "") + joined + (" …" if text else "")


def _snippet_html(snippet: str) -> str:
    """The engine marks query words with SNIPPET_MARKS; escape the rest and make the marks bold."""

    opening, closing = SNIPPET_MARKS
    text = html.escape(snippet, quote=False)
    return text.replace(html.escape(opening), "<b>").replace(html.escape(closing), "</b>")
