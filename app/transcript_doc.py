"""Lay a recording's transcript out as paragraphs of rich text, and remember where every word landed.

Not a widget: :func:`build_transcript` runs on a pool thread. It returns one
:class:`Paragraph` per text block (a story heading, or a run of words led by
its time), each with the offsets of its words inside the block, so the view can
fill its document a few paragraphs at a time (an hours-long transcript never
blocks the UI) and map clicks and playback times to words without searching.

Words are shaded by recognition confidence, entity mentions sit on a background
coloured by type, events appear as inline markers. Paragraphs also break where the
speaker changes and then start with the speaker's name in bold ("Mayor Ruiz:").
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from app import colours
from app.format import clock
from engine.library import NOTABLE_EVENTS, RecordingDetail, Span
from engine.writing import continues

#: Background colour per entity type (unknown types get OTHER's).
ENTITY_COLOURS = {
    "PERSON": "#ffe0b2", "LOCATION": "#c8e6c9", "GPE": "#c8e6c9", "ORGANIZATION": "#bbdefb", "ORG": "#bbdefb",
    "DATE": "#e1bee7", "OTHER": "#eeeeee",
}
#: Text colour per event marker type (light palette; app.colours has both).
EVENT_COLOURS = colours.LIGHT.events
#: A sign before an event's label where one reads right (a note for music, not for applause or laughter).
_EVENT_MARKS = {"music": "♪"}
_NBSP = "\u00a0"


@dataclass
class Paragraph:
    """One text block.

    Attributes
    ----------
    html : its inline rich text (no block tags).
    heading : a story heading (no words of its own).
    first_word : index of the word a click on its time or heading plays from.
    speaker : label of the speaker whose turn it starts (its name leads it), 0 for none.
    offsets : position of each of its words inside the block, ascending; word ``first_word + k`` is at ``offsets[k]``.
    lengths : characters of each of its words.
    """

    html: str
    heading: bool = False
    first_word: int = 0
    speaker: int = 0
    offsets: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)

    def word_at(self, offset: int) -> int:
        """The word under ``offset`` in this block, or the paragraph's first word (its time, its heading)."""
        k = bisect.bisect_right(self.offsets, offset) - 1
        if k >= 0 and offset <= self.offsets[k] + self.lengths[k]:
            return self.first_word + k
        return self.first_word


@dataclass
class TranscriptLayout:
    """Paragraphs in order, and where each word is: ``word_place[i] == (paragraph, offset in it)``."""

    paragraphs: list[Paragraph]
    word_place: list[tuple[int, int]]
    word_lengths: list[int]

    @property
    def html(self) -> str:
        """The whole transcript as one HTML document (for export-like uses; the view fills paragraph by paragraph)."""
        return "".join(f"<p>{p.html}</p>" for p in self.paragraphs)


def word_at_time(starts: Sequence[float], seconds: float) -> int | None:
    """Index of the word playing at ``seconds``: the last one that started at or before it."""
    i = bisect.bisect_right(starts, seconds) - 1
    return i if i >= 0 else None


def build_transcript(detail: RecordingDetail) -> TranscriptLayout:
    """The transcript as paragraphs of HTML, in the shades of the current palette (app.colours)."""
    shades = colours.current()
    words = detail.words
    story_at = {s.first_word: s for s in detail.stories if s.first_word >= 0}
    segment_starts = {int(s["first_word"]) for s in detail.segments}
    entity_of = _entity_per_word(detail.entities, len(words))
    events = sorted((e for e in detail.events if e.kind in NOTABLE_EVENTS), key=lambda e: e.start)
    names = {int(sp["label"]): str(sp["name"]) for sp in detail.speakers}
    speaker = 0  # the speaker of the turn so far
    paragraphs: list[Paragraph] = []
    place: list[tuple[int, int]] = []
    lengths: list[int] = []
    parts: list[str] = []
    pos = 0  # position of the next character inside the current paragraph
    e = 0
    for i, w in enumerate(words):
        story = story_at.get(i)
        turn = int(w.get("speaker") or 0) if int(w.get("speaker") or 0) in names else 0
        new_turn = turn != 0 and turn != speaker
        speaker = turn or speaker
        if story is not None or i in segment_starts or new_turn or not paragraphs:
            if parts:
                paragraphs[-1].html = "".join(parts)
            if story is not None:
                heading = f"{story.label} · {clock(story.start)}"
                paragraphs.append(Paragraph(html.escape(heading), heading=True, first_word=i))
            stamp = clock(w["start"]) + _NBSP + _NBSP
            paragraphs.append(Paragraph("", first_word=i, speaker=speaker if new_turn else 0))
            parts, pos = [f'<span style="color:{shades.timestamp}">{stamp}</span>'], len(stamp)
            if new_turn:
                lead = f"{names[turn]}:{_NBSP}"
                parts.append(f"<b>{html.escape(lead)}</b>")
                pos += len(lead)
        elif not continues(w.get("display") or w["text"]):  # legacy pieces ("U" ".S.") join up
            parts.append(" ")
            pos += 1
        while e < len(events) and events[e].start <= w["start"]:
            marker, n_chars = _event_marker(events[e], shades)
            parts.append(marker + " ")
            pos += n_chars + 1
            e += 1
        text = w.get("display") or w["text"]
        paragraph = paragraphs[-1]
        paragraph.offsets.append(pos)
        paragraph.lengths.append(len(text))
        place.append((len(paragraphs) - 1, pos))
        lengths.append(len(text))
        parts.append(_word_html(text, float(w["conf"]), entity_of[i], shades))
        pos += len(text)
    if not words:
        return TranscriptLayout([Paragraph(f'<span style="color:{shades.timestamp}">No words were recognised in this'
                                           ' recording.</span>')], [], [])
    parts += [" " + _event_marker(event, shades)[0] for event in events[e:]]
    paragraphs[-1].html = "".join(parts)
    return TranscriptLayout(paragraphs, place, lengths)


def _entity_per_word(entities: Sequence[Span], n_words: int) -> list[str | None]:
    out: list[str | None] = [None] * n_words
    for ent in entities:
        for k in range(max(0, ent.first_word), min(n_words, ent.last_word + 1)):
            out[k] = ent.kind
    return out


def _word_html(text: str, conf: float, entity: str | None, shades: colours.Shades) -> str:
    style = []
    low = next((colour for bound, colour in shades.low_confidence if conf < bound), None)
    if entity is not None:  # a light chip: dark text whatever the palette
        style.append(f"color:{colours.CHIP_LOW_CONFIDENCE if low else colours.CHIP_TEXT}")
        style.append(f"background-color:{ENTITY_COLOURS.get(entity, ENTITY_COLOURS['OTHER'])}")
    elif low is not None:
        style.append(f"color:{low}")
    escaped = html.escape(text)
    if not style:
        return escaped
    title = f' title="{html.escape(entity)}"' if entity else ""
    return f'<span style="{"; ".join(style)}"{title}>{escaped}</span>'


def _event_marker(event: Span, shades: colours.Shades) -> tuple[str, int]:
    """HTML of an inline event marker and its plain-text length."""
    mark = _EVENT_MARKS.get(event.kind)
    text = f"{mark}{_NBSP}{event.label}" if mark else event.label
    colour = shades.events.get(event.kind, shades.event_other)
    return f'<span style="color:{colour}; font-style:italic">[{html.escape(text)}]</span>', len(text) + 2
