"""Speakers in the app: the timeline lane, named paragraphs, rename, merge, the speaker filter and name queries.

The library holds the broadcast's true words; its two stories are given two speakers through the store
(one turn per story), as ingest writes them.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from app import colours
from app.timeline_view import LANE_HEIGHT, RULER_HEIGHT, SPEAKERS_LANE, WAVE_HEIGHT
from engine.storage.store import SpeakerRow, SpeakerTurns, Store, TurnRow
from tests.app.gui_helpers import open_recording, store_truth, wait_loaded

pytestmark = pytest.mark.gui


@pytest.fixture
def spoken(library: Path, broadcast) -> Path:  # type: ignore[no-untyped-def]
    """The library, story 1 read by speaker 1 and story 2 by speaker 2."""
    words = broadcast.truth.words
    first, second = broadcast.truth.stories[:2]
    with Store(library) as store:
        n_words = len(store.words(1))
        per_word = [1 if k <= first.last_word else 2 if k >= second.first_word else None for k in range(n_words)]
        store.replace_speakers(1, SpeakerTurns(
            speakers=(SpeakerRow(1, first.end - first.start), SpeakerRow(2, second.end - second.start)),
            turns=(TurnRow(1, words[first.first_word].start, words[first.last_word].end),
                   TurnRow(2, words[second.first_word].start, words[second.last_word].end)),
            word_speakers=per_word))
    return library


def _lane(canvas) -> tuple[int, tuple]:  # type: ignore[no-untyped-def]
    k = next(i for i, lane in enumerate(canvas.lanes) if lane.name == SPEAKERS_LANE)
    return k, canvas.lanes[k].spans


def _lane_y(k: int) -> int:
    return RULER_HEIGHT + WAVE_HEIGHT + k * LANE_HEIGHT + LANE_HEIGHT // 2


def _answer_dialog(qtbot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type ``text`` into the rename dialog once it is up, and press OK."""

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)  # not up yet
            return
        dialog.setTextValue(text)
        dialog.accept()

    QTimer.singleShot(20, answer)


def test_the_lane_draws_each_turn_in_its_speakers_colour(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    canvas = window.view.timeline.canvas
    k, turns = _lane(canvas)
    assert [(t.label, t.speaker) for t in turns] == [("Speaker 1", 1), ("Speaker 2", 2)]
    image = canvas.grab().toImage()
    for turn in turns:
        x = round(canvas.x_of(turn.end)) - 3  # clear of the name drawn from the bar's left end
        assert image.pixelColor(x, _lane_y(k)).name() == colours.speaker_chip(turn.speaker)


def test_a_click_on_a_turn_plays_it_from_its_start(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    wait_loaded(qtbot, window)
    canvas = window.view.timeline.canvas
    k, turns = _lane(canvas)
    turn = turns[1]
    x = round(canvas.x_of((turn.start + turn.end) / 2))
    assert canvas.time_at(x) - turn.start > 0.5
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(x, _lane_y(k)))
    assert window.player.media.position() / 1000 == pytest.approx(turn.start, abs=0.05)


def test_a_right_click_on_a_turn_offers_that_speaker(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    canvas = window.view.timeline.canvas
    k, turns = _lane(canvas)
    x = round(canvas.x_of((turns[1].start + turns[1].end) / 2))
    canvas.speaker_menu_requested.disconnect(window.view._show_speaker_menu)  # the menu would wait for a click
    with qtbot.waitSignal(canvas.speaker_menu_requested) as asked:
        qtbot.mouseClick(canvas, Qt.MouseButton.RightButton, pos=QPoint(x, _lane_y(k)))
    assert asked.args[0] == 2
    texts = [a.text() for a in window.view.speaker_menu(2).actions()]
    assert texts == ["Rename “Speaker 2”…", "Find “Speaker 2” in other recordings", "Merge “Speaker 2” into"]


def test_paragraphs_start_at_turns_with_the_speakers_name(make_window, qtbot, spoken: Path, library: Path) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    layout = window.view.transcript.text.layout_
    named = [p for p in layout.paragraphs if p.speaker]
    assert [p.speaker for p in named] == [1, 2]
    assert "<b>Speaker 2:\u00a0</b>" in named[1].html
    text = window.view.transcript.plain_text()
    assert text.count("Speaker 1:") == 1 and text.count("Speaker 2:") == 1
    second = window.view.detail.turns[1]
    first_of_second = next(i for i, w in enumerate(window.view.detail.words) if w["start"] >= second.start)
    # The word map still lands on the words: the second turn's first word follows its name.
    cursor = window.view.transcript.text.word_cursor(first_of_second)
    assert cursor.selectedText() == window.view.detail.words[first_of_second]["text"]


def test_a_recording_without_speakers_has_no_names(make_window, qtbot, library: Path) -> None:
    window = make_window(library)
    open_recording(qtbot, window)
    assert "Speaker" not in window.view.transcript.plain_text()
    assert not any(p.speaker for p in window.view.transcript.text.layout_.paragraphs)
    assert _lane(window.view.timeline.canvas)[1] == ()


def test_rename_shows_the_name_everywhere_and_keeps_it(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    _answer_dialog(qtbot, "  Mayor   Ruiz ")
    with qtbot.waitSignal(window.view.speakers_changed):
        window.view.rename_speaker(2)
    qtbot.waitUntil(lambda: window.view.speaker_name(2) == "Mayor Ruiz")
    qtbot.waitUntil(window.view.transcript.text.is_filled)
    assert "Mayor Ruiz:" in window.view.transcript.plain_text()
    assert "Speaker 2" not in window.view.transcript.plain_text()
    assert [t.label for t in _lane(window.view.timeline.canvas)[1]] == ["Speaker 1", "Mayor Ruiz"]
    assert "Mayor Ruiz:" in window.view.export_text("txt")
    assert window.search_panel.speaker_filter.findText("Mayor Ruiz") > 0
    with Store(spoken) as store:
        assert [s["name"] for s in store.speakers(1)] == ["Speaker 1", "Mayor Ruiz"]


@pytest.mark.parametrize("name, refusal", [("   ", "a speaker's name cannot be empty"),
                                           ("x" * 61, "a speaker's name is at most 60 characters (this one has 61)")],
                         ids=["empty", "too-long"])
def test_a_bad_name_is_refused_in_one_line(make_window, qtbot, spoken: Path, name: str, refusal: str) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    _answer_dialog(qtbot, name)
    with qtbot.waitSignal(window.view.message) as said:
        window.view.rename_speaker(1)
    assert refusal in said.args[0] and "\n" not in said.args[0]
    with Store(spoken) as store:
        assert [s["name"] for s in store.speakers(1)] == ["Speaker 1", "Speaker 2"]


def test_merge_makes_two_speakers_one(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    open_recording(qtbot, window)
    merge = next(a for a in window.view.speaker_menu(2).actions() if a.text().startswith("Merge"))
    with qtbot.waitSignal(window.view.speakers_changed):
        next(a for a in merge.menu().actions() if a.text() == "Speaker 1").trigger()
    qtbot.waitUntil(lambda: len(window.view.detail.speakers) == 1)
    assert {t.speaker for t in _lane(window.view.timeline.canvas)[1]} == {1}
    qtbot.waitUntil(window.view.transcript.text.is_filled)
    assert window.view.transcript.plain_text().count("Speaker 1:") == 1  # one turn after another of the same speaker
    with Store(spoken) as store:
        assert [s["label"] for s in store.speakers(1)] == [1]


def _search(qtbot, window, *, query: str = "", speaker: str | None = None) -> list:  # type: ignore[no-untyped-def]
    panel = window.search_panel
    if speaker is not None:
        panel.speaker_filter.setCurrentIndex(panel.speaker_filter.findText(speaker))
    panel.query.setText(query)
    with qtbot.waitSignal(panel.searched):
        panel.search_now()
    return panel.model.hits


def test_the_speaker_filter_alone_lists_the_speakers_turns(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    hits = _search(qtbot, window, speaker="Speaker 2")
    turn = window.reader.store.turns(1)[1]
    assert [(h.speaker, h.start) for h in hits] == [("Speaker 2", turn["start"])]
    assert "norland" in hits[0].snippet
    assert "spoken by Speaker 2" in window.search_panel.status.text()


def test_a_query_with_the_speaker_filter_keeps_that_speakers_passages(make_window, qtbot, spoken: Path) -> None:
    window = make_window(spoken)
    assert _search(qtbot, window, query="riverton")  # said by speaker 1
    assert _search(qtbot, window, query="riverton", speaker="Speaker 2") == []
    hits = _search(qtbot, window, query="airways", speaker="Speaker 2")
    assert hits and {h.speaker for h in hits} == {"Speaker 2"}


def test_a_query_that_is_a_speakers_name_finds_their_turns(make_window, qtbot, spoken: Path) -> None:
    with Store(spoken) as store:
        store.rename_speaker(1, 2, "Mayor Ruiz")
    window = make_window(spoken)
    hits = _search(qtbot, window, query="mayor ruiz")
    assert hits and hits[0].speaker == "Mayor Ruiz" and hits[0].events[0].kind == "speaker"
    assert "Mayor Ruiz" in window.search_panel.model.role_data(hits[0], Qt.ItemDataRole.AccessibleTextRole)


def _voice(seed: int, like: np.ndarray | None = None, closeness: float = 0.0) -> np.ndarray:
    """A unit voice profile (192 values); with ``like``, at cosine about ``closeness`` to it."""
    v = np.random.default_rng(seed).standard_normal(192)
    v /= np.linalg.norm(v)
    if like is not None:
        v = closeness * like + np.sqrt(1 - closeness ** 2) * (v - (v @ like) * like) / np.linalg.norm(v - (v @ like) * like)
    return v.astype(np.float32)


def test_find_a_voice_lists_the_other_recordings_where_it_is_heard(make_window, qtbot, library: Path, broadcast,
                                                                    tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Speaker 2 of the first recording is the second recording's Speaker 1 (a profile 0.9 alike); the
    second recording's Speaker 2 is someone else (0.1). The hit plays the match from its first turn."""
    words = broadcast.truth.words
    first, second = broadcast.truth.stories[:2]
    anchor, reporter = _voice(1), _voice(2)
    with Store(library) as store:
        copy = tmp_path / "rerun.wav"
        shutil.copyfile(broadcast.wav, copy)
        again = store_truth(store, dataclasses.replace(broadcast, wav=copy), name="rerun.wav")
        for rec_id, voices in ((1, (anchor, reporter)), (again, (_voice(3, reporter, 0.9), _voice(4, reporter, 0.1)))):
            n_words = len(store.words(rec_id))
            store.replace_speakers(rec_id, SpeakerTurns(
                speakers=tuple(SpeakerRow(k + 1, 30.0, v.tobytes()) for k, v in enumerate(voices)),
                turns=(TurnRow(1, words[first.first_word].start, words[first.last_word].end),
                       TurnRow(2, words[second.first_word].start, words[second.last_word].end)),
                word_speakers=[1 if k <= first.last_word else 2 if k >= second.first_word else None
                               for k in range(n_words)]))
    window = make_window(library)
    open_recording(qtbot, window)
    wait_loaded(qtbot, window)
    action = next(a for a in window.view.speaker_menu(2).actions() if a.text().startswith("Find"))
    panel = window.search_panel
    action.trigger()
    qtbot.waitUntil(lambda: "voice like Speaker 2" in panel.status.text())
    assert [(h.recording_id, h.speaker) for h in panel.model.hits] == [(again, "Speaker 1")]
    assert panel.model.hits[0].start == pytest.approx(words[first.first_word].start)
    assert "90% alike" in panel.model.hits[0].snippet
    # Speaker 1 of the first recording is heard nowhere else.
    next(a for a in window.view.speaker_menu(1).actions() if a.text().startswith("Find")).trigger()
    qtbot.waitUntil(lambda: "No other recording has a voice like Speaker 1" in panel.status.text())
    assert panel.model.hits == []
