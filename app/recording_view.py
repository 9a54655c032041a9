"""The middle of the window: timeline over transcript over the player bar, for the recording that is open.

Loading a recording (its words, stories, events, entities, speakers; then its waveform)
runs as pool tasks; answers for a recording that is no longer open are dropped. A right click
on a speaker's turn (timeline) or words (transcript) offers to rename or merge the speaker;
the change is written by a pool task and the recording is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMenu, QSplitter, QVBoxLayout, QWidget

from app import dialogs
from app.player import Player
from app.player_bar import PlayerBar
from app.settings import AppSettings
from app.tasks import Task, TaskPool
from app.timeline_view import TimelinePanel
from app.transcript_doc import TranscriptLayout, build_transcript
from app.transcript_view import TranscriptPanel
from engine.audio.waveform import load_envelope
from engine.errors import EarshotError
from engine.export import export_transcript, write_export
from engine.importer import attach_audio, has_audio
from engine.jobs import JobReport
from engine.library import RecordingDetail, open_reader
from engine.storage.store import Store


class RecordingView(QWidget):
    opened = Signal(int)  # recording id, once its transcript is shown
    message = Signal(str)  # for the status bar
    audio_attached = Signal(int)  # the new recording id of a transcript that was given its audio
    speakers_changed = Signal(int)  # recording id, after a speaker was renamed or merged (and it was read again)
    find_voice_requested = Signal(int, int, str)  # recording id, speaker label, its name: find the voice elsewhere

    def __init__(self, pool: TaskPool, player: Player, settings: AppSettings, db_path: Callable[[], Path]) -> None:
        super().__init__()
        self._pool = pool
        self._db_path = db_path
        self.player = player
        self.detail: RecordingDetail | None = None
        self.recording_id: int | None = None
        self._wave_task: Task | None = None
        self._after_open: tuple[float, bool] | None = None
        self._mark: tuple[int, ...] = ()

        self.timeline = TimelinePanel()
        self.transcript = TranscriptPanel()
        self.player_bar = PlayerBar(player, settings)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self.timeline)
        split.addWidget(self.transcript)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(split, 1)
        layout.addWidget(self.player_bar)

        self.player_bar.attach_requested.connect(lambda: self.attach_audio())
        self.transcript.seek_requested.connect(self.play_at)
        self.timeline.canvas.seek_requested.connect(self.play_at)
        self.timeline.canvas.speaker_menu_requested.connect(self._show_speaker_menu)
        self.transcript.text.menu_for_word.connect(self._add_speaker_actions)
        player.position_changed.connect(self._follow)

    # -- opening ----------------------------------------------------------------------------

    def open(self, recording_id: int, *, seek: float | None = None, play: bool = False,
             mark: tuple[int, ...] = ()) -> None:
        """Show a recording; optionally then seek the player to ``seek`` seconds (and play), and
        mark the words ``mark`` (a search hit's matches) in the transcript."""
        self._after_open = (seek, play) if seek is not None else None
        self._mark = mark
        if recording_id == self.recording_id and self.detail is not None:
            self._apply_after_open()
            return
        self.recording_id = recording_id
        if self._wave_task is not None:
            self._wave_task.cancel()
        self._load(recording_id)

    def _load(self, recording_id: int) -> None:
        db_path = self._db_path()

        def load(report: object) -> tuple[RecordingDetail, TranscriptLayout]:
            with open_reader(db_path) as reader:
                detail = reader.detail(recording_id)
            return detail, build_transcript(detail)

        self._pool.submit(load, f"open recording {recording_id}",
                          finished=lambda result: self._show(recording_id, *result),
                          failed=self.message.emit)

    def close_recording(self) -> None:
        self.recording_id, self.detail = None, None
        self.transcript.clear()

    def _show(self, recording_id: int, detail: RecordingDetail, layout: TranscriptLayout) -> None:
        if recording_id != self.recording_id:
            return
        self.detail = detail
        self.transcript.show_detail(detail, layout)
        self.timeline.show_detail(detail)
        rec = detail.recording
        if self.player.recording_id != recording_id:
            self.player.load(recording_id, self._audio())
        self._apply_after_open()
        self._follow(self.player.position())
        self._start_waveform(recording_id, rec)
        self.opened.emit(recording_id)

    def _apply_after_open(self) -> None:
        if self.detail is None:
            return
        if self._mark:
            self.transcript.text.mark_hit_words(list(self._mark))
            self._mark = ()
        if self._after_open is None:
            return
        seek, play = self._after_open
        self._after_open = None
        self.play_at(seek) if play else self._seek(seek)

    def _start_waveform(self, recording_id: int, rec: dict) -> None:
        if not has_audio(rec):
            self._show_envelope(recording_id, None, "no audio")
            return
        path, digest, duration = rec["path"], rec["content_hash"], float(rec["duration"])
        task = Task(lambda report: load_envelope(path, digest, duration, report), f"waveform of {rec['name']}")
        task.finished.connect(lambda env: self._show_envelope(recording_id, env, ""))
        task.failed.connect(lambda message: self._show_envelope(recording_id, None, f"no waveform: {message}"))
        self._wave_task = task
        self._pool.start(task)

    def _show_envelope(self, recording_id: int, envelope: object, message: str) -> None:
        if recording_id == self.recording_id:
            self.timeline.show_envelope(envelope, message)  # type: ignore[arg-type]

    # -- speakers ---------------------------------------------------------------------------

    def speaker_name(self, label: int) -> str:
        """The open recording's name for speaker ``label`` ("" when it has none)."""
        rows = self.detail.speakers if self.detail is not None else []
        return next((str(sp["name"]) for sp in rows if int(sp["label"]) == label), "")

    def speaker_menu(self, label: int, parent: QWidget | None = None) -> QMenu:
        """"Rename <name>…" and "Merge <name> into ▸ <other speakers>" for speaker ``label``."""
        menu = QMenu(parent or self)
        self._add_speaker_actions(menu, label, with_word=False)
        return menu

    def _add_speaker_actions(self, menu: QMenu, label: int, *, with_word: bool = True) -> None:
        """Add the speaker actions to ``menu``; with ``with_word`` ``label`` is a word index (transcript menu)."""
        if with_word:
            words = self.detail.words if self.detail is not None else []
            label = int(words[label].get("speaker") or 0) if 0 <= label < len(words) else 0
        name = self.speaker_name(label)
        if not name:
            return
        if not menu.isEmpty():
            menu.addSeparator()
        menu.addAction(f"Rename “{name}”…", lambda: self.rename_speaker(label))
        menu.addAction(f"Find “{name}” in other recordings", lambda: self.find_voice(label))
        others = [sp for sp in (self.detail.speakers if self.detail else []) if int(sp["label"]) != label]
        merge = menu.addMenu(f"Merge “{name}” into")
        merge.setEnabled(bool(others))
        for sp in others:
            merge.addAction(str(sp["name"]), self._merge_into(int(sp["label"]), label))

    def _merge_into(self, keep: int, drop: int) -> Callable[[], None]:
        return lambda: self.merge_speakers(keep, drop)

    def _show_speaker_menu(self, label: int, where: QPoint) -> None:
        if self.speaker_name(label):
            self.speaker_menu(label).exec(where)

    def rename_speaker(self, label: int) -> None:
        """Ask for a new name for speaker ``label`` of the open recording and store it."""
        old = self.speaker_name(label)
        if self.detail is None or not old:
            return
        dialog = QInputDialog(self)
        dialog.setObjectName("rename_speaker")
        dialog.setWindowTitle("Rename speaker")
        dialog.setLabelText(f"A name for “{old}” (S{label}), shown in the transcript, the timeline and search:")
        dialog.setTextValue(old)
        if not dialog.exec():
            return
        name, rec_id = dialog.textValue(), int(self.detail.recording["id"])
        self._change_speakers(lambda store: store.rename_speaker(rec_id, label, name),
                              f"rename speaker {old}", f"Renamed {old} to {' '.join(name.split())}")

    def find_voice(self, label: int) -> None:
        """Ask for the recordings where speaker ``label`` of the open recording is heard too (by voice)."""
        if self.detail is not None and self.speaker_name(label):
            self.find_voice_requested.emit(int(self.detail.recording["id"]), label, self.speaker_name(label))

    def merge_speakers(self, keep: int, drop: int) -> None:
        """Make speaker ``drop`` of the open recording part of speaker ``keep`` (one person found as two)."""
        if self.detail is None:
            return
        rec_id, kept, gone = int(self.detail.recording["id"]), self.speaker_name(keep), self.speaker_name(drop)
        self._change_speakers(lambda store: store.merge_speakers(rec_id, keep, drop),
                              f"merge speaker {gone} into {kept}", f"Merged {gone} into {kept}")

    def _change_speakers(self, change: Callable[[Store], None], name: str, done: str) -> None:
        """Write a speaker change on the pool, then read the recording again and say ``done``."""
        rec_id, db_path = self.recording_id, self._db_path()

        def run(report: object) -> None:
            with Store(db_path) as store:
                change(store)

        def written(_: object) -> None:
            self.message.emit(done)
            if rec_id is not None and rec_id == self.recording_id:
                self._load(rec_id)
                self.speakers_changed.emit(rec_id)

        self._pool.submit(run, name, finished=written, failed=self.message.emit)

    # -- playback ---------------------------------------------------------------------------

    def play_at(self, seconds: float) -> None:
        """Play the open recording from ``seconds`` (a transcript without audio says so instead)."""
        if self.detail is None:
            return
        if self._audio() is None:
            self.player.load(int(self.detail.recording["id"]), None)
            self.message.emit(no_audio_message(self.detail.recording["name"]))
            return
        self.player.play_from(int(self.detail.recording["id"]), self._audio(), seconds)

    def _seek(self, seconds: float) -> None:
        if self.detail is not None:
            self.player.load(int(self.detail.recording["id"]), self._audio())
            self.player.seek(seconds)

    def _audio(self) -> str | None:
        rec = self.detail.recording if self.detail is not None else None
        return str(rec["path"]) if rec is not None and has_audio(rec) else None

    def attach_audio(self, files: list[str] | None = None) -> None:
        """Give the open transcript (imported without audio) the recording it transcribes."""
        if self.detail is None or self._audio() is not None:
            return
        files = files if files is not None else dialogs.ask_open_files(self, "Attach the recording")
        if not files:
            return
        rec_id, audio, db_path = int(self.detail.recording["id"]), files[0], self._db_path()

        def run(report: JobReport) -> int:  # the detectors run over the audio: progress and cancel go with it
            with Store(db_path) as store:
                return attach_audio(store, rec_id, audio, report=report)

        self._pool.submit(run, f"attach {audio}", finished=self._attached, failed=self.message.emit)

    def _attached(self, new_id: int) -> None:
        self.message.emit(f"Attached the audio; {self.detail.recording['name'] if self.detail else 'the transcript'}"
                          " now plays it")
        self.audio_attached.emit(new_id)
        self.open(new_id)

    def _follow(self, seconds: float) -> None:
        if self.player.recording_id is not None and self.player.recording_id == self.recording_id:
            self.transcript.show_position(seconds)
            self.timeline.canvas.set_position(seconds)

    # -- copy and export --------------------------------------------------------------------

    def export_text(self, fmt: str) -> str:
        """The open transcript in ``fmt`` (srt, vtt, txt, json)."""
        if self.detail is None:
            return ""
        d = self.detail
        turns = [{"speaker": t.speaker, "start": t.start, "end": t.end} for t in d.turns]
        return export_transcript(fmt, d.recording, d.words, d.segments, speakers=d.speakers, turns=turns)

    def export_to(self, fmt: str, path: str) -> None:
        if self.detail is None:
            self.message.emit("Open a recording first.")
            return
        try:
            write_export(path, self.export_text(fmt), index_path=self._db_path())
        except EarshotError as exc:
            self.message.emit(str(exc))
            return
        self.message.emit(f"Exported {self.detail.recording['name']} as {fmt.upper()} to {path}")

    def copy_transcript(self) -> None:
        cursor = self.transcript.text.textCursor()
        text = cursor.selectedText().replace("\u2029", "\n") if cursor.hasSelection() else self.transcript.plain_text()
        QGuiApplication.clipboard().setText(text)
        self.message.emit("Copied the selection." if cursor.hasSelection() else "Copied the transcript.")

    def suggested_name(self, fmt: str) -> str:
        return str(Path(self.detail.recording["path"]).with_suffix(f".{fmt}")) if self.detail else f"transcript.{fmt}"


def no_audio_message(name: str) -> str:
    """What a user is told on trying to play a transcript imported without its recording."""
    return f"{name} has no audio: it was imported from a transcript. Use “Attach audio…” below to play it."
