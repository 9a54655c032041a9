"""The transcript panel: click a word to play from it; the playing word is highlighted and followed; find."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app import colours
from app.format import counted
from app.transcript_doc import ENTITY_COLOURS, TranscriptLayout, build_transcript, word_at_time
from app.transcript_text import MAX_FIND_HIGHLIGHTS, TranscriptText
from app.widgets import tool_button, widget_shortcut
from engine.entities.tagger import is_english
from engine.library import RecordingDetail


class FindBar(QWidget):
    """Find in transcript: Enter for the next match, Shift+Enter for the previous, Esc to close."""

    def __init__(self, text: TranscriptText) -> None:
        super().__init__()
        self._text = text
        self._matches: list[QTextCursor] = []
        self._at = -1
        self.edit = QLineEdit(placeholderText="Find in transcript", clearButtonEnabled=True)
        self.edit.setAccessibleName("Find in transcript")
        self.edit.textChanged.connect(self.search)
        self.edit.returnPressed.connect(self.next)
        widget_shortcut("Shift+Return", self.edit, self.previous)
        widget_shortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close_bar, Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.prev_button = tool_button("▲", "Previous match", self.previous)
        self.next_button = tool_button("▼", "Next match", self.next)
        self.close_button = tool_button("✕", "Close find", self.close_bar)
        self.count = QLabel()
        self.count.setAccessibleName("Matches")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.edit, self.prev_button, self.next_button, self.count, self.close_button):
            layout.addWidget(w)
        self.hide()

    def open_bar(self) -> None:
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self._text.set_matches([])
        self._text.setFocus()

    def search(self, needle: str) -> None:
        self._matches, self._at = [], -1
        doc = self._text.document()
        if needle:
            cursor = QTextCursor(doc)
            while len(self._matches) < MAX_FIND_HIGHLIGHTS:
                cursor = doc.find(needle, cursor, QTextDocument.FindFlag(0))
                if cursor.isNull():
                    break
                self._matches.append(QTextCursor(cursor))
        self._text.set_matches(self._matches)
        self.next()

    def next(self) -> None:
        self._step(+1)

    def previous(self) -> None:
        self._step(-1)

    def _step(self, direction: int) -> None:
        if not self._matches:
            self.count.setText("no matches" if self.edit.text() else "")
            return
        self._at = (self._at + direction) % len(self._matches)
        self._text.setTextCursor(self._matches[self._at])
        self._text.ensureCursorVisible()
        self.count.setText(f"{self._at + 1} of {len(self._matches)}")


class TranscriptPanel(QWidget):
    """Title line with the follow switch, the legend, the text, and the find bar."""

    seek_requested = Signal(float)  # seconds

    def __init__(self) -> None:
        super().__init__()
        self.detail: RecordingDetail | None = None
        self._starts: list[float] = []
        self._shown_word: int | None = None
        self.title = QLabel("Open a recording from the library, or search.")
        self.title.setAccessibleName("Transcript title")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        # A long title may be cut rather than widen the window past a small screen.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setMinimumWidth(80)
        self.follow = QCheckBox("Follow playback")
        self.follow.setChecked(True)
        self.follow.setAccessibleName("Follow playback in the transcript")
        self.legend = QLabel(_legend_html())
        self.legend.setAccessibleName("Entity colours")
        self.text = TranscriptText()
        self.text.word_clicked.connect(self._word_clicked)
        self.text.filled.connect(lambda: self.text.highlight_word(self._shown_word, follow=self.follow.isChecked()))
        self.find_bar = FindBar(self.text)
        # The title and the switch on one line, the legend on its own: side by side they did not fit
        # the middle of a 1024-pixel window, and the title ran under the legend.
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.follow)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.legend)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.find_bar)
        self._pending_position: float | None = None
        self._follow_timer = QTimer(self, singleShot=True, interval=0)
        self._follow_timer.timeout.connect(self._apply_position)

    def show_detail(self, detail: RecordingDetail, layout: TranscriptLayout | None = None) -> None:
        self.detail = detail
        self._starts = [float(w["start"]) for w in detail.words]
        self._shown_word = None
        rec = detail.recording
        n_stories = sum(s.kind == "story" for s in detail.stories)
        words, stories = counted(len(detail.words), "word"), counted(n_stories, "story", "stories")
        self.title.setText(f"{rec['name']} — {words}, {stories}")
        language = str(rec.get("language") or "")
        if is_english(language):
            self.legend.setText(_legend_html())
            self.legend.setToolTip("")
        else:  # the taggers read English only: say why this transcript has no names marked
            self.legend.setText(f"no names tagged: the recording is in {language!r}")
            self.legend.setToolTip("Names (people, places, organisations) are tagged in English recordings only.")
        self.text.show_layout(layout or build_transcript(detail))

    def clear(self) -> None:
        self.detail = None
        self.legend.setText(_legend_html())
        self.legend.setToolTip("")
        self._starts = []
        self.title.setText("Open a recording from the library, or search.")
        self.text.clear_layout()

    def word_start(self, index: int) -> float:
        return self._starts[index]

    def current_word(self) -> int | None:
        return self._shown_word

    def show_position(self, seconds: float) -> None:
        """Highlight the word at ``seconds`` (coalesced: at most once per event-loop pass)."""
        self._pending_position = seconds
        self._follow_timer.start()

    def _apply_position(self) -> None:
        if self._pending_position is None or not self._starts:
            return
        index = word_at_time(self._starts, self._pending_position)
        if index != self._shown_word:
            self._shown_word = index
            self.text.highlight_word(index, follow=self.follow.isChecked())

    def _word_clicked(self, index: int) -> None:
        self.seek_requested.emit(self._starts[index])

    def plain_text(self) -> str:
        return self.text.toPlainText()


def _legend_html() -> str:
    shown = ("PERSON", "LOCATION", "ORGANIZATION", "DATE")
    chips = " ".join(f'<span style="color:{colours.CHIP_TEXT}; background-color:{ENTITY_COLOURS[t]}">'
                     f'&nbsp;{t.lower()}&nbsp;</span>' for t in shown)
    low = colours.current().low_confidence[-1][1]
    return f'<span style="color:{low}">low confidence</span> &nbsp;{chips}'
