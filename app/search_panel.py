"""Search across the whole library as you type; a click or Enter on a hit plays from its first matched word.

Each query runs as a pool task with its own connection; typing restarts a short
timer, and answers to queries that have since changed are dropped, so the
field never waits for the index.
"""

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListView,
    QVBoxLayout,
    QWidget,
)

from app.delegates import MUTED_CLASS, RichTextRole, SnippetDelegate
from app.format import clock, counted
from app.table_model import RowTableModel
from app.tasks import TaskPool
from app.widgets import push_button
from engine.library import NOTABLE_EVENTS, LibraryReader, SearchFilters, SearchHit, open_reader
from engine.search import QueryReport

#: Pause in typing before a query runs (ms).
TYPING_PAUSE_MS = 150
#: Width the result list wants at least (px): a few words of a passage a line.
RESULTS_MIN_WIDTH = 200
#: Hits shown per query.
RESULT_LIMIT = 100


class SearchResultsModel(RowTableModel):
    COLUMNS = ("Recording", "Time", "Passage", "Around it")
    CELLS = (lambda hit: Path(hit.recording).stem, lambda hit: clock(hit.hot_spot), lambda hit: hit.snippet,
             lambda hit: _events_around(hit))

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[SearchHit] = []

    def set_hits(self, hits: list[SearchHit]) -> None:
        self.beginResetModel()
        self.hits = hits
        self.endResetModel()

    def rows(self) -> list[Any]:
        return self.hits

    def role_data(self, hit: SearchHit, role: int) -> Any:
        if role == RichTextRole:
            return _snippet_html(hit)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            plain = re.sub(r"<[^>]+>", "", hit.snippet)
            around = _events_around(hit)
            said = f", {hit.speaker}" if hit.speaker else ""
            return f"{Path(hit.recording).stem}, {clock(hit.hot_spot)}{said}: {html.unescape(plain)}" + (
                f" ({around})" if around else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{hit.recording}\nplays from {clock(hit.hot_spot)} (passage {clock(hit.start)}–{clock(hit.end)})"
        return None


def _snippet_html(hit: SearchHit) -> str:
    """A hit as a snippet: the recording and the time it plays from, the passage with its matches in bold,
    then the notable events around it (muted: the delegate colours ``MUTED_CLASS``)."""
    head = f'<b>{html.escape(Path(hit.recording).stem)}</b> <span class="{MUTED_CLASS}">· {clock(hit.hot_spot)}</span>'
    if hit.speaker:
        head += f' <span class="{MUTED_CLASS}">·</span> {html.escape(hit.speaker)}'
    around = _events_around(hit)
    tail = f'<br><span class="{MUTED_CLASS}">{html.escape(around)}</span>' if around else ""
    return f"{head}<br>{hit.snippet}{tail}"


def _events_around(hit: SearchHit) -> str:
    """The three notable events nearest the hot spot (not speech or noise, which are everywhere), with their
    offsets from it."""
    notable = [e for e in hit.events if e.kind in NOTABLE_EVENTS]
    nearest = sorted(notable, key=lambda e: abs(e.start - hit.hot_spot))[:3]
    return ", ".join(f"{e.kind} {_offset(e.start - hit.hot_spot)}" for e in nearest)


class SearchPanel(QWidget):
    """Query field, filters, results."""

    play_requested = Signal(object)  # SearchHit
    searched = Signal(str, int)  # query, number of hits (after an answer is shown)

    def __init__(self, pool: TaskPool, db_path: Path) -> None:
        super().__init__()
        self._pool = pool
        self.db_path = db_path
        self._asked = 0  # id of the latest query sent
        self._focus_results = False  # Enter was pressed in the query: move to the results when they come
        self.query = QLineEdit(placeholderText="Search every recording…  (Ctrl+K)", clearButtonEnabled=True)
        self.query.setAccessibleName("Search the library")
        self.query.textChanged.connect(self._typed)
        self.query.returnPressed.connect(self._search_and_focus)
        self.event_filter = _combo("Near event", "Any event")
        self.entity_filter = _combo("Mentions entity", "Any entity")
        self.entity_filter.setEditable(True)
        entity_edit = self.entity_filter.lineEdit()
        assert entity_edit is not None  # an editable combo box has one
        entity_edit.setPlaceholderText("Any entity")
        self.recording_filter = _combo("In recording", "All recordings")
        self.speaker_filter = _combo("Spoken by", "Any speaker")
        for combo in (self.event_filter, self.entity_filter, self.recording_filter, self.speaker_filter):
            combo.currentIndexChanged.connect(self._typed)
        entity_edit.editingFinished.connect(self._typed)

        self.model = SearchResultsModel()
        # One snippet per hit (recording and time, the passage, what is around it), wrapped to the list's width.
        self.results = QListView()
        self.results.setAccessibleName("Search results")
        self.results.setModel(self.model)
        self.results.setItemDelegate(SnippetDelegate(self.results))
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setWordWrap(True)
        self.results.setResizeMode(QListView.ResizeMode.Adjust)  # re-wrap when the panel is resized
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setMinimumWidth(RESULTS_MIN_WIDTH)
        self.results.clicked.connect(self._activated)
        self.results.activated.connect(self._activated)  # Enter (and, on some styles, a double click)
        self._last_played: tuple[int, int, float] | None = None  # (query id, row, monotonic seconds)
        self.status = QLabel("Type to search the transcripts of every recording.")
        self.status.setAccessibleName("Search status")
        self.status.setWordWrap(True)
        # "Did you mean" as a button: one click searches for the corrected query.
        self.did_you_mean = push_button("", "Search for the suggested words", self._use_suggestion)
        self.did_you_mean.setFlat(True)
        self.did_you_mean.setVisible(False)
        self._suggested = ""

        self._timer = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._timer.timeout.connect(self.search_now)

        # Two rows of two: four side by side did not fit a narrow search column.
        filters = QGridLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        for k, combo in enumerate((self.event_filter, self.entity_filter, self.recording_filter, self.speaker_filter)):
            filters.addWidget(combo, k // 2, k % 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.query)
        layout.addLayout(filters)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.did_you_mean, 0, Qt.AlignmentFlag.AlignLeft)
        self.setTabOrder(self.query, self.event_filter)
        self.setTabOrder(self.event_filter, self.entity_filter)
        self.setTabOrder(self.entity_filter, self.recording_filter)
        self.setTabOrder(self.recording_filter, self.speaker_filter)
        self.setTabOrder(self.speaker_filter, self.results)

    # -- filters ----------------------------------------------------------------------------

    def refresh_filters(self, reader: LibraryReader) -> None:
        """Fill the filter lists from the index, keeping the current choices."""
        _refill(self.event_filter, [(t, t) for t in reader.event_types()])
        _refill(self.entity_filter, [(n, n) for n in reader.entity_names()])
        _refill(self.recording_filter, [(name, rec_id) for rec_id, name in reader.recordings_brief()])
        _refill(self.speaker_filter, [(name, name) for name in reader.speaker_names()])

    def filters(self) -> SearchFilters:
        entity = self.entity_filter.currentText().strip()
        return SearchFilters(
            event_type=self.event_filter.currentData(),
            entity=entity if entity and entity != "Any entity" else None,
            recording_id=self.recording_filter.currentData(),
            speaker=self.speaker_filter.currentData(),
        )

    # -- searching --------------------------------------------------------------------------

    def _typed(self, *_: object) -> None:
        self._timer.start()

    def search_now(self) -> None:
        self._timer.stop()
        text, filters = self.query.text().strip(), self.filters()
        self._asked += 1
        asked = self._asked
        if not text:
            self._suggest("")
            if filters == SearchFilters():
                self.model.set_hits([])
                self.status.setText("Type to search the transcripts of every recording.")
                return
            self._browse(asked, filters)
            return
        started = time.perf_counter()
        db_path = self.db_path

        # A last word not followed by a space may be unfinished: it also matches the words it begins.
        typed = self.query.text().lstrip()

        def run(report: object) -> tuple[list[SearchHit], QueryReport]:
            with open_reader(db_path) as reader:
                return (reader.search(typed, filters, limit=RESULT_LIMIT, prefix=True),
                        reader.explain(typed, prefix=True))

        self._pool.submit(
            run, f"search {text!r}",
            finished=lambda answer: self._answer(asked, text, answer[0], answer[1], time.perf_counter() - started),
            failed=lambda message: self._failed(asked, message),
        )

    def _browse(self, asked: int, filters: SearchFilters) -> None:
        """A filter without a query lists what it picks out (mentions, events, stories)."""
        db_path = self.db_path

        def run(report: object) -> list[SearchHit]:
            with open_reader(db_path) as reader:
                return reader.browse(filters, limit=RESULT_LIMIT)

        self._pool.submit(run, "browse by filter", finished=lambda hits: self._browsed(asked, hits),
                          failed=lambda message: self._failed(asked, message))

    def find_voice(self, rec_id: int, label: int, name: str) -> None:
        """List the speakers of other recordings whose voice is like speaker ``label`` of ``rec_id`` (a new
        query or filter replaces the list)."""
        self._timer.stop()
        self._asked += 1
        asked, db_path = self._asked, self.db_path
        self.status.setText(f"Looking for the voice of {name} in other recordings…")

        def run(report: object) -> list[SearchHit]:
            with open_reader(db_path) as reader:
                return reader.find_voice(rec_id, label)

        def found(hits: list[SearchHit]) -> None:
            if asked != self._asked:
                return
            self.model.set_hits(hits)
            self._suggest("")
            self.status.setText(f"{counted(len(hits), 'recording')} with a voice like {name}, most alike first" if hits
                                else f"No other recording has a voice like {name}")

        self._pool.submit(run, f"find the voice of {name}", finished=found,
                          failed=lambda message: self._failed(asked, message))

    def _browsed(self, asked: int, hits: list[SearchHit]) -> None:
        if asked != self._asked:
            return
        self.model.set_hits(hits)
        more = " (the first ones)" if len(hits) >= RESULT_LIMIT else ""
        narrowed = self._filters_text()
        self.status.setText(f"{counted(len(hits), 'passage')} {narrowed}{more}; type to search inside them" if hits
                            else f"No passages {narrowed}")
        self.searched.emit("", len(hits))

    def _answer(self, asked: int, text: str, hits: list[SearchHit], report: QueryReport, seconds: float) -> None:
        if asked != self._asked:
            return  # the query changed while this one ran
        self.model.set_hits(hits)
        if self._focus_results and hits:
            self.results.setFocus()
            self.results.setCurrentIndex(self.model.index(0, 0))
        self._focus_results = False
        more = " (showing the best)" if len(hits) >= RESULT_LIMIT else ""
        noun = "passage" if len(hits) == 1 else "passages"
        asked_for = f"“{_unquoted(text)}”"
        found = f"{len(hits)} {noun} for {asked_for}{more} — {seconds * 1000:.0f} ms" if hits else f"No passages for {asked_for}"
        if not hits and (narrowed := self._filters_text()):
            found += f" {narrowed} (set the filters to Any to search everything)"
        note = report.message()
        self._suggest(_corrected(text, report.suggestions))
        if note:
            found += f"\n{note[:1].upper()}{note[1:]}" + ("" if note.endswith("?") else ".")
        self.status.setText(found)
        self.searched.emit(text, len(hits))

    def _filters_text(self) -> str:
        """The filters that narrow the search, as words ("near applause, mentioning Leeds"), or ""."""
        f = self.filters()
        parts = [f"near {f.event_type}" if f.event_type else "", f"mentioning {f.entity}" if f.entity else "",
                 f"in {self.recording_filter.currentText()}" if f.recording_id is not None else "",
                 f"spoken by {f.speaker}" if f.speaker else ""]
        return ", ".join(p for p in parts if p)

    def _suggest(self, query: str) -> None:
        self._suggested = query
        self.did_you_mean.setText(f"Search for “{query}” instead" if query else "")
        self.did_you_mean.setVisible(bool(query))

    def _use_suggestion(self) -> None:
        if self._suggested:
            self.query.setText(self._suggested)
            self.search_now()

    def _failed(self, asked: int, message: str) -> None:
        if asked == self._asked:
            self.status.setText(f"Search failed: {message}")

    def _search_and_focus(self) -> None:
        self._focus_results = True
        self.search_now()

    def _activated(self, index: QModelIndex) -> None:
        """Play the hit; the click and the activation of one double click play it once."""
        now = time.monotonic()
        key = (self._asked, index.row())
        if self._last_played is not None and self._last_played[:2] == key and \
                now - self._last_played[2] < QApplication.doubleClickInterval() / 1000:
            return
        self._last_played = (*key, now)
        self.play_requested.emit(self.model.hits[index.row()])

    def focus_query(self) -> None:
        self.query.setFocus()
        self.query.selectAll()


def _unquoted(text: str) -> str:
    """A query that is one quoted phrase, without its quotes (the status line adds its own)."""
    if len(text) > 1 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        return text[1:-1]
    return text


def _corrected(text: str, suggestions: dict[str, str]) -> str:
    """``text`` with each unknown word replaced by the closest word the library has ("" without any)."""
    if not suggestions:
        return ""
    for word, hint in suggestions.items():
        text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", hint, text, flags=re.IGNORECASE)
    return text.strip()


def _offset(seconds: float) -> str:
    """Where an event is relative to the hot spot: ``+12 s``, ``−1:05``."""
    sign = "+" if seconds >= 0 else "−"
    return f"{sign}{abs(seconds):.0f} s" if abs(seconds) < 60 else f"{sign}{clock(abs(seconds))}"


def _combo(name: str, anything: str) -> QComboBox:
    combo = QComboBox()
    combo.setAccessibleName(name)
    combo.setToolTip(name)
    combo.addItem(anything, None)
    combo.setMinimumContentsLength(8)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    return combo


def _refill(combo: QComboBox, items: list[tuple[str, object]]) -> None:
    current, typed = combo.currentData(), combo.currentText()
    combo.blockSignals(True)
    while combo.count() > 1:
        combo.removeItem(1)
    for label, data in items:
        combo.addItem(label, data)
    index = combo.findData(current) if current is not None else 0
    combo.setCurrentIndex(max(0, index))
    if combo.isEditable() and current is None and index <= 0:
        combo.setEditText(typed)
    combo.blockSignals(False)
