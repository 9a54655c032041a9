"""Search across the library: as you type, filters, Enter plays from the hot spot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.delegates import RichTextRole
from app.format import clock
from engine.library import LibraryReader, SearchFilters
from engine.storage.store import Store
from tests.app.gui_helpers import Broadcast, store_truth, wait_loaded

pytestmark = pytest.mark.gui


@pytest.fixture
def two_recordings(library: Path, broadcast, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """The broadcast twice, under two names; only the first has events and entities."""
    copy = tmp_path / "morning-news.wav"
    shutil.copy(broadcast.wav, copy)
    with Store(library) as store:
        store_truth(store, Broadcast(copy, broadcast.truth), name="morning-news.wav")
        store.conn.execute("DELETE FROM events WHERE recording_id = 2")
        store.conn.execute("DELETE FROM entities WHERE recording_id = 2")
    return library


def _search(qtbot, window, text: str) -> list:  # type: ignore[no-untyped-def]
    panel = window.search_panel
    window.focus_search()
    panel.query.clear()
    with qtbot.waitSignal(panel.searched):
        qtbot.keyClicks(panel.query, text)
    return panel.model.hits


def test_search_as_you_type_runs_once_per_pause(qtbot, make_window, library: Path, pool) -> None:
    window = make_window(library)
    hits = _search(qtbot, window, "fuel costs")
    assert [pool.started.count(name) for name in (f"search {'fuel costs'!r}", "search 'f'")] == [1, 0]
    assert len(hits) == 1
    assert hits[0].snippet.count("<b>") == 2
    assert window.search_panel.model.index(0, 1).data() == clock(hits[0].hot_spot)
    assert "music" in window.search_panel.model.index(0, 3).data()


def test_enter_plays_from_the_matched_word(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    _search(qtbot, window, "okafor")
    panel = window.search_panel
    hit = panel.model.hits[0]
    qtbot.keyClick(panel.query, Qt.Key.Key_Return)  # runs the search again and moves to the first result
    assert panel.results.hasFocus() and panel.results.currentIndex().row() == 0
    qtbot.keyClick(panel.results, Qt.Key.Key_Return)
    assert window.player.recording_id == hit.recording_id
    wait_loaded(qtbot, window)
    okafor = next(w for w in window.view.detail.words if w["text"] == "okafor")
    assert hit.matched[0] == (okafor["idx"], okafor["start"])
    assert hit.hot_spot == pytest.approx(max(hit.start, okafor["start"] - 1.0))  # the lead-in before the word
    assert hit.hot_spot - 0.05 <= window.player.media.position() / 1000 <= okafor["start"] + 1.0
    assert window.view.transcript.text.hit_words() == [okafor["idx"]]


def test_single_and_double_click_play_once(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    _search(qtbot, window, "airways")
    results = window.search_panel.results
    rect = results.visualRect(window.search_panel.model.index(0, 0))
    played: list[object] = []
    window.search_panel.play_requested.connect(played.append)
    qtbot.mouseClick(results.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.player.recording_id == 1 and len(played) == 1  # one click plays
    airways = window.search_panel.model.hits[0].matched[0][1]
    assert window.player.position() == pytest.approx(airways, abs=1.0)  # within 1 s of the matched word
    qtbot.mouseDClick(results.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert len(played) == 1  # the double click's activation does not start it again


def test_arrow_keys_move_through_the_hits(qtbot, make_window, two_recordings: Path) -> None:
    window = make_window(two_recordings)
    panel = window.search_panel
    hits = _search(qtbot, window, "bridge")
    assert len(hits) == 2
    qtbot.keyClick(panel.query, Qt.Key.Key_Return)  # to the first hit
    assert panel.results.hasFocus() and panel.results.currentIndex().row() == 0
    played: list[object] = []
    panel.play_requested.connect(played.append)
    qtbot.keyClick(panel.results, Qt.Key.Key_Down)
    assert panel.results.currentIndex().row() == 1
    qtbot.keyClick(panel.results, Qt.Key.Key_Return)
    assert played == [panel.model.hits[1]]
    qtbot.keyClick(panel.results, Qt.Key.Key_Up)
    assert panel.results.currentIndex().row() == 0


def test_filters_by_recording_event_and_entity(qtbot, make_window, two_recordings: Path) -> None:
    window = make_window(two_recordings)
    panel = window.search_panel
    assert len(_search(qtbot, window, "bridge")) == 2
    with qtbot.waitSignal(panel.searched):
        panel.recording_filter.setCurrentIndex(panel.recording_filter.findText("morning-news.wav"))
    assert [h.recording for h in panel.model.hits] == ["morning-news.wav"]
    panel.recording_filter.setCurrentIndex(0)
    with qtbot.waitSignal(panel.searched):
        panel.event_filter.setCurrentIndex(panel.event_filter.findText("music"))
    assert [h.recording for h in panel.model.hits] == ["evening-news.wav"]
    panel.event_filter.setCurrentIndex(0)
    with qtbot.waitSignal(panel.searched):
        panel.entity_filter.setCurrentIndex(panel.entity_filter.findText("Harbour Bridge"))
    assert [h.recording for h in panel.model.hits] == ["evening-news.wav"]


def test_typing_finds_words_by_their_beginning(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    hits = _search(qtbot, window, "okaf")
    assert hits and window.search_panel.model.hits[0].snippet.count("<b>okafor</b>") >= 1
    assert "Completing as okafor." in window.search_panel.status.text()


def test_misspelt_and_stop_word_queries_say_why(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    assert _search(qtbot, window, "the okafr ") == []
    status = window.search_panel.status.text()
    assert status.endswith("\nIgnored “the” (too common to search for); “okafr” is not in any transcript"
                           " — did you mean “okafor”?")


def test_a_query_with_fts_syntax_is_taken_as_words(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    hits = _search(qtbot, window, 'bridge" OR *')
    assert hits and all("<b>bridge</b>" in h.snippet for h in hits)
    assert window.search_panel.status.text().startswith(f"{len(hits)} passage")
    assert _search(qtbot, window, "*") == []


def test_library_rows_keep_an_older_transcript_with_a_newer_failure(library: Path) -> None:
    with Store(library) as store:
        job = store.start_job("ingest", store.recording(1)["path"])
        store.finish_job(job, "failed", "truncated")
        rows = LibraryReader(store).library_rows()
    assert [(r.status, r.message, r.recording_id) for r in rows] == [("failed", "truncated", 1)]


def test_hits_carry_the_events_around_them(library: Path) -> None:
    with Store(library) as store:
        hits = LibraryReader(store).search("profits", SearchFilters(event_type="music"))
    assert len(hits) == 1
    assert {e.kind for e in hits[0].events} == {"music"}


def test_enter_keeps_the_unfinished_word_and_a_space_ends_it(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    assert _search(qtbot, window, "okaf")
    panel = window.search_panel
    with qtbot.waitSignal(panel.searched):
        qtbot.keyClick(panel.query, Qt.Key.Key_Return)
    assert panel.model.hits  # Enter searches what is typed, completions included
    assert _search(qtbot, window, "okaf ") == []  # a space ends the word


def test_did_you_mean_is_a_button_that_searches_for_the_word(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    panel = window.search_panel
    assert _search(qtbot, window, "okafr ") == []
    assert panel.did_you_mean.isVisible() and panel.did_you_mean.text() == "Search for “okafor” instead"
    with qtbot.waitSignal(panel.searched):
        qtbot.mouseClick(panel.did_you_mean, Qt.MouseButton.LeftButton)
    assert panel.query.text() == "okafor"
    assert panel.model.hits and not panel.did_you_mean.isVisible()


def test_no_passages_says_which_filters_narrowed_the_search(qtbot, make_window, two_recordings: Path) -> None:
    window = make_window(two_recordings)
    panel = window.search_panel
    panel.recording_filter.setCurrentIndex(panel.recording_filter.findText("morning-news.wav"))
    panel.event_filter.setCurrentIndex(panel.event_filter.findText("music"))
    assert _search(qtbot, window, "bridge") == []
    assert panel.status.text() == ("No passages for “bridge” near music, in morning-news.wav"
                                   " (set the filters to Any to search everything)")


def test_a_quoted_phrase_is_shown_in_one_pair_of_quotes(qtbot, make_window, library: Path) -> None:
    window = make_window(library)
    hits = _search(qtbot, window, '"harbour bridge"')
    assert window.search_panel.status.text().startswith(f"{len(hits)} passage")
    assert "for “harbour bridge”" in window.search_panel.status.text()


def test_around_it_lists_notable_events_never_speech_or_noise(qtbot) -> None:
    from app.search_panel import SearchResultsModel
    from engine.library import SearchHit, Span

    around = [Span(38.0, 41.0, "speech", "speech"), Span(39.5, 40.0, "noise", "noise"),
              Span(47.0, 52.0, "applause", "applause 5 s"), Span(20.0, 30.0, "music", "music 10 s")]
    model = SearchResultsModel()
    model.set_hits([SearchHit(1, "news.wav", "/r/news.wav", 35.0, 45.0, 40.0, "a <b>hit</b>", 1.0, tuple(around))])
    assert model.index(0, 3).data() == "applause +7 s, music −20 s"
    snippet = model.index(0, 0).data(RichTextRole)  # what the result list shows, one hit a block
    assert snippet.startswith("<b>news</b>") and "· 0:40" in snippet
    assert "<br>a <b>hit</b><br>" in snippet and snippet.endswith("applause +7 s, music −20 s</span>")


def test_a_filter_alone_lists_what_it_picks_out(qtbot, make_window, two_recordings: Path) -> None:
    window = make_window(two_recordings)
    panel = window.search_panel
    with qtbot.waitSignal(panel.searched):
        panel.event_filter.setCurrentIndex(panel.event_filter.findText("music"))
    hits = panel.model.hits
    assert hits and all(h.events[0].kind == "music" and h.hot_spot == h.events[0].start for h in hits)
    assert panel.status.text() == f"{len(hits)} passages near music; type to search inside them"
    panel.event_filter.setCurrentIndex(0)
    with qtbot.waitSignal(panel.searched):
        panel.entity_filter.setCurrentIndex(panel.entity_filter.findText("Harbour Bridge"))
    hits = panel.model.hits
    assert hits and {h.recording for h in hits} == {"evening-news.wav"}
    assert all("<b>" in h.snippet and h.matched for h in hits)
    assert "harbour" in hits[0].snippet.lower()
    with qtbot.waitSignal(panel.searched):
        qtbot.keyClicks(panel.query, "bridge")  # a query then searches inside the filter
    assert [h.recording for h in panel.model.hits] == ["evening-news.wav"]


def test_a_recording_filter_alone_lists_its_stories(two_recordings: Path) -> None:
    with Store(two_recordings) as store:
        reader = LibraryReader(store)
        hits = reader.browse(SearchFilters(recording_id=1))
        stories = store.stories(1)
    assert [(h.start, h.events[0].label) for h in hits] == [(s["start"], f"Story {s['idx'] + 1}") for s in stories]
