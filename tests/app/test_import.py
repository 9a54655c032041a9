"""Import transcripts from the File menu; pickers open in the user's folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import dialogs
from app.recording_view import no_audio_message
from engine.importer import import_transcript
from engine.storage.store import Store
from tests.engine.importer.test_import import SRT
from tests.fixtures.audio import espeak

pytestmark = pytest.mark.gui


def _import_from_the_menu(window) -> None:  # type: ignore[no-untyped-def]
    """Click File > Import transcripts (the picker is answered by the test's monkeypatch)."""
    action = next(a for a in window.actions_by_menu["&File"] if a.text().startswith("&Import transcripts"))
    action.trigger()


def test_import_action_makes_the_transcript_searchable(qtbot, make_window, library: Path, tmp_path: Path,
                                                       monkeypatch) -> None:
    srt = tmp_path / "harbour-captions.srt"
    srt.write_text(SRT, encoding="utf-8")
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args, **kwargs: [str(srt)])
    window = make_window(library)
    _import_from_the_menu(window)
    assert window.statusBar().currentMessage() == "Imported 1 transcript"
    names = [window.library.row_at(r).name for r in range(window.library.rowCount())]
    assert "harbour-captions.srt" in names
    hits = window.reader.search("yorkshire")
    assert [h.recording for h in hits] == ["harbour-captions.srt"]
    assert hits[0].matched[0][1] == pytest.approx(1.0 + 3.25 * 5 / 6)  # "Yorkshire." is the cue's 6th word


def test_a_mixed_batch_lists_the_good_file_and_says_why_the_bad_one_failed(
        qtbot, make_window, library: Path, tmp_path: Path, monkeypatch) -> None:
    good = tmp_path / "harbour-captions.srt"
    good.write_text(SRT, encoding="utf-8")
    bad = tmp_path / "broken.srt"
    bad.write_text("1\n00:00:05,000 --> 00:00:01,000\nhello\n", encoding="utf-8")
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args, **kwargs: [str(bad), str(good)])
    window = make_window(library)
    _import_from_the_menu(window)
    assert window.statusBar().currentMessage() == (
        f"Imported 1 transcript; 1 failed — {bad}: lines 1-3 skipped: the cue ends (00:00:01,000) before it"
        " starts (00:00:05,000); no readable timed text is left")
    names = [window.library.row_at(r).name for r in range(window.library.rowCount())]
    assert "harbour-captions.srt" in names and "broken.srt" not in names  # listed without F5
    assert [h.recording for h in window.reader.search("yorkshire")] == ["harbour-captions.srt"]


def test_pickers_never_open_in_the_app_folder(qtbot, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(dialogs, "_last_folder", "")
    app_folder = Path(dialogs.__file__).resolve().parents[1]
    assert Path(dialogs.start_folder()).resolve() != app_folder
    dialogs._remember(str(tmp_path / "x.srt"))
    assert dialogs.start_folder() == str(tmp_path)


def test_a_transcript_without_audio_says_so_and_takes_an_attached_file(qtbot, make_window, tmp_path: Path) -> None:
    srt = tmp_path / "harbour-captions.srt"
    srt.write_text(SRT, encoding="utf-8")
    db = tmp_path / "lib.sqlite"
    with Store(db) as store:
        rec_id = import_transcript(store, srt)
    window = make_window(db)
    view, bar = window.view, window.view.player_bar
    view.open(rec_id)
    qtbot.waitUntil(lambda: view.detail is not None)
    assert not bar.play_button.isEnabled() and bar.time_label.text() == "No audio"
    assert bar.attach_button.isVisible()
    view.play_at(3.0)  # a click on a word
    assert not window.player.is_playing()
    assert window.statusBar().currentMessage() == no_audio_message("harbour-captions.srt")
    hit = window.reader.search("yorkshire")[0]
    window.play_hit(hit)  # a search hit: the words, no pretend playback
    assert not window.player.is_playing() and bar.time_label.text() == "No audio"

    wav = tmp_path / "harbour.wav"
    espeak("Floods closed the bridge in Yorkshire.", wav)
    view.attach_audio([str(wav)])
    qtbot.waitUntil(lambda: view.detail is not None and view.detail.recording["path"] == str(wav.resolve()))
    assert bar.play_button.isEnabled() and not bar.attach_button.isVisible()
    with Store(db) as store:
        assert [r["path"] for r in store.recordings()] == [str(wav.resolve())]  # in place of the silent one
    assert window.reader.audio_path(view.recording_id) == str(wav.resolve())


def test_a_partly_damaged_file_is_imported_and_the_skipped_rows_are_shown(
        qtbot, make_window, library: Path, tmp_path: Path, monkeypatch) -> None:
    damaged = tmp_path / "damaged.srt"
    damaged.write_text(SRT.replace("00:00:05,000 --> 00:00:09,500", "00:00:09,500 --> 00:00:05,000"), encoding="utf-8")
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args, **kwargs: [str(damaged)])
    window = make_window(library)
    _import_from_the_menu(window)
    assert window.statusBar().currentMessage() == (
        f"Imported 1 transcript; {damaged}: lines 5-7 skipped: the cue ends (00:00:05,000) before it starts"
        " (00:00:09,500)")
    assert [h.recording for h in window.reader.search("yorkshire")] == ["damaged.srt"]
    assert window.reader.search("engineers") == []  # the skipped cue's words
    cancel = next(a for a in window.actions_by_menu["&File"] if a.text() == "Cancel the &import")
    assert not cancel.isEnabled()  # enabled only while an import runs


def test_cancelling_an_import_with_audio_writes_nothing(qtbot, make_window, library: Path, tmp_path: Path,
                                                       monkeypatch) -> None:
    """File > Cancel the import, chosen while the detectors analyse the recording beside the captions."""
    srt = tmp_path / "bulletin.srt"
    srt.write_text(SRT, encoding="utf-8")
    espeak("Floods closed the bridge in Yorkshire. Engineers say the river will fall by Friday.",
           tmp_path / "bulletin.wav")
    monkeypatch.setattr(dialogs, "ask_open_files", lambda *args, **kwargs: [str(srt)])
    window = make_window(library)
    cancel = next(a for a in window.actions_by_menu["&File"] if a.text() == "Cancel the &import")
    seen: list[str] = []

    def on_message(text: str) -> None:
        seen.append(text)
        if text.startswith("Importing transcripts:") and cancel.isEnabled():
            cancel.trigger()

    window.statusBar().messageChanged.connect(on_message)
    _import_from_the_menu(window)
    assert any(m.startswith("Importing transcripts:") for m in seen)
    assert window.statusBar().currentMessage() == "Import cancelled; the transcripts imported before it stay"
    assert not cancel.isEnabled()
    assert window.reader.search("yorkshire") == []
