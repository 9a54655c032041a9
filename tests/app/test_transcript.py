"""The transcript: layout, click a word to play, follow playback, find, copy and export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app import colours, dialogs
from app.transcript_doc import build_transcript
from engine.storage.store import Store
from engine.timefmt import timestamp
from tests.app.gui_helpers import open_recording, store_truth, wait_loaded

pytestmark = pytest.mark.gui


def test_every_word_sits_where_the_layout_says(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    text, detail = window.view.transcript.text, window.view.detail
    assert [text.word_text(i) for i in range(len(detail.words))] == [w["text"] for w in detail.words]
    plain = window.view.transcript.plain_text()
    assert "Story 1 · 0:0" in plain and "Story 2 · " in plain
    assert "[♪ music" in plain  # the music beds, inline
    assert 'background-color:#ffe0b2' in text.layout_.html  # a PERSON mention
    assert f"color:{colours.LIGHT.low_confidence[0][1]}" in text.layout_.html  # a low-confidence word


def test_click_a_word_to_play_from_it(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    transcript = window.view.transcript
    index = next(i for i, w in enumerate(window.view.detail.words) if w["text"] == "okafor")
    qtbot.mouseClick(transcript.text.viewport(), Qt.MouseButton.LeftButton, pos=transcript.text.word_point(index))
    assert window.player.is_playing()
    wait_loaded(qtbot, window)
    start = transcript.word_start(index)
    assert start - 0.05 <= window.player.media.position() / 1000 <= start + 3.0
    qtbot.waitUntil(lambda: transcript.current_word() is not None and transcript.current_word() >= index)


def test_the_current_word_follows_the_player(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    transcript = window.view.transcript
    words = window.view.detail.words
    wait_loaded(qtbot, window)
    for k in (3, len(words) // 2, len(words) - 2):
        window.player.seek(words[k]["start"] + 0.01)
        qtbot.waitUntil(lambda k=k: transcript.current_word() == k)
        selections = transcript.text.extraSelections()
        assert selections[-1].cursor.selectedText() == words[k]["text"]


def test_find_in_transcript(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    find = window.view.transcript.find_bar
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert find.isVisible() and find.edit.hasFocus()
    qtbot.keyClicks(find.edit, "the")
    n = window.view.transcript.plain_text().lower().count("the")
    assert find.count.text() == f"1 of {n}"
    qtbot.keyClick(find.edit, Qt.Key.Key_Return)
    assert find.count.text() == f"2 of {n}"
    assert window.view.transcript.text.textCursor().selectedText().lower() == "the"
    qtbot.keyClick(find.edit, Qt.Key.Key_Escape)
    assert not find.isVisible()


@pytest.mark.parametrize("fmt", ["srt", "vtt", "txt", "json"])
def test_export_from_the_menu(make_window, qtbot, library: Path, tmp_path: Path, monkeypatch, fmt: str) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    out = tmp_path / f"out.{fmt}"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *args: str(out))
    action = next(a for a in window.actions_by_menu["&File"] if a.text() == f"&Export transcript as {fmt.upper()}…")
    action.trigger()
    text = out.read_text(encoding="utf-8")
    with Store(library) as store:
        segments, words = store.segments(1), store.words(1)
    if fmt == "json":  # every word and every segment, with its times, as the index holds them
        doc = json.loads(text)
        assert doc["recording"]["id"] == 1 and doc["recording"]["name"] == window.view.detail.recording["name"]
        assert [(w["start"], w["end"], w["text"]) for w in doc["words"]] == [
            (round(w["start"], 3), round(w["end"], 3), w["text"]) for w in words]
        assert [(c["start"], c["end"]) for c in doc["segments"]] == [
            (round(g["start"], 3), round(g["end"], 3)) for g in segments]
    elif fmt in ("srt", "vtt"):  # cues by sentence: its number (SRT), its times, then up to two lines of its words
        sep = "," if fmt == "srt" else "."
        cues = text.removeprefix("WEBVTT\n\n").split("\n\n")
        starts, ends = {timestamp(w["start"], sep) for w in words}, {timestamp(w["end"], sep) for w in words}
        shown: list[str] = []
        for i, cue in enumerate(cues, 1):
            lines = cue.strip("\n").split("\n")
            if fmt == "srt":
                assert lines.pop(0) == str(i)
            start, _, end = lines.pop(0).partition(" --> ")
            assert start in starts and end in ends and 1 <= len(lines) <= 2
            shown += " ".join(lines).split()
        assert shown == [w["display"] or w["text"] for w in words]
    else:  # a sentence a line, every word once
        assert " ".join(text.splitlines()).split() == [w["display"] or w["text"] for w in words]
    assert f"as {fmt.upper()} to {out}" in window.statusBar().currentMessage()


def test_copy_the_transcript(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.clipboard().text() == window.view.transcript.plain_text()


def test_layout_maps_clicks_on_times_and_headings_to_the_paragraph(library: Path) -> None:
    from engine.library import LibraryReader

    with Store(library) as store:
        detail = LibraryReader(store).detail(1)
    layout = build_transcript(detail)
    assert sum(p.heading for p in layout.paragraphs) == 2
    for paragraph in layout.paragraphs:
        assert paragraph.word_at(0) == paragraph.first_word  # its time, or its heading
    for i, (n, offset) in enumerate(layout.word_place):
        assert layout.paragraphs[n].word_at(offset + 1) == i


def test_a_long_transcript_fills_in_slices_and_stays_clickable(make_window, qtbot, library: Path) -> None:
    from engine.library import RecordingDetail

    window = make_window(library)
    open_recording(qtbot, window)
    d = window.view.detail
    words = [dict(w, idx=i, start=i * 0.4, end=i * 0.4 + 0.3) for i, w in enumerate(d.words * 300)]
    segments = [{"first_word": a, "last_word": min(a + 39, len(words) - 1)} for a in range(0, len(words), 40)]
    long = RecordingDetail(d.recording, words, segments, [], [], [], [])
    text = window.view.transcript.text
    window.view.transcript.show_detail(long)
    assert not text.is_filled()  # the first slice only: the UI thread is free again
    with qtbot.waitSignal(text.filled, timeout=60000):
        pass
    last = len(words) - 1
    assert text.word_text(last) == words[last]["text"]
    assert text.word_at(text.word_cursor(last).selectionStart()) == last


def test_a_recording_in_another_language_says_why_no_names_are_marked(make_window, qtbot, tmp_path: Path,
                                                                      broadcast) -> None:
    db = tmp_path / "french.sqlite"
    with Store(db) as store:
        store_truth(store, broadcast, name="french.wav", language="fr")
    window = make_window(db)
    legend = window.view.transcript.legend
    assert "person" in legend.text()
    open_recording(qtbot, window)
    assert legend.text() == "no names tagged: the recording is in 'fr'"
    assert "English recordings only" in legend.toolTip()
    window.view.transcript.clear()
    assert "person" in legend.text()


def test_event_marks_suit_the_sound_and_the_legend_lists_dates(make_window, qtbot, library: Path) -> None:
    from app.transcript_doc import build_transcript
    from engine.library import RecordingDetail, Span

    window = make_window(library)
    open_recording(qtbot, window)
    d = window.view.detail
    clapped = RecordingDetail(d.recording, d.words, d.segments, d.stories, d.entities,
                              sorted([*d.events, Span(10.0, 13.0, "applause", "applause 3 s")], key=lambda e: e.start),
                              d.x_durations)
    html = build_transcript(clapped).html
    assert "[♪\u00a0music" in html  # a note for music ...
    assert "[applause 3 s]" in html  # ... and none on applause
    assert "♪\u00a0applause" not in html
    assert "date" in window.view.transcript.legend.text()  # dates are highlighted in the transcript too


def test_words_stored_in_pieces_are_shown_whole_and_stay_clickable(qtbot) -> None:  # type: ignore[no-untyped-def]
    import re

    from engine.library import RecordingDetail

    shown = ["The", "U", ".S.", "paid", "$5", ",000", "to", "a", "26", "-year", "-old."]
    words = [{"start": i * 0.4, "end": i * 0.4 + 0.3, "conf": 0.9, "text": t.lower(), "display": t}
             for i, t in enumerate(shown)]
    detail = RecordingDetail({"id": 1}, words, [{"first_word": 0}], [], [], [], [])
    layout = build_transcript(detail)
    plain = re.sub(r"<[^>]+>", "", layout.paragraphs[0].html).replace("\u00a0", " ")
    assert plain.endswith("The U.S. paid $5,000 to a 26-year-old.")
    for i, (n, offset) in enumerate(layout.word_place):  # a click on each piece still finds its word
        assert layout.paragraphs[n].word_at(offset) == i
