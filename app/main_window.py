"""The main window: library and search on the left, the open recording in the middle, queue and log below."""

from __future__ import annotations

import logging
import sys
from collections import Counter
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeyEvent, QKeySequence, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QApplication,
    QComboBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStyle,
)

import engine
from app import colours, dialogs, gc_guard, pyside_refcounts
from app.evaluation.window import EvaluationWindow
from app.format import counted, duration_text, reason
from app.help_dialog import ShortcutsDialog
from app.ingest_controller import TERMINAL, FileStatus, IngestController, IngestOptions
from app.ingest_panel import IngestPanel
from app.library_model import LibraryModel
from app.library_panel import LibraryPanel
from app.log_panel import LogPanel
from app.models_panel import ModelsPanel
from app.player import LARGE_SKIP, SMALL_SKIP, Player
from app.recording_view import RecordingView
from app.search_panel import SearchPanel
from app.settings import AppSettings
from app.settings_dialog import SettingsDialog
from app.tasks import TaskPool
from app.widgets import fit_inside_screen, palette_icon, push_button
from engine.errors import EarshotError
from engine.export import FORMATS
from engine.importer import import_transcript, matching_audio
from engine.jobs import CancelToken, JobReport, JobState
from engine.library import LibraryReader, LibraryRow, SearchHit
from engine.logs import setup_logging
from engine.paths import data_dir, log_dir
from engine.selftest import SAMPLE, library_sample
from engine.storage.store import Store

log = logging.getLogger("earshot.app")

#: Coalesce library refreshes while files finish (ms).
REFRESH_DELAY_MS = 300
#: Width of the library and search docks on a wide window (px).
LIBRARY_DOCK_WIDTH = 640


class MainWindow(QMainWindow):
    """Everything is built here and wired through signals; the panels do not know each other."""

    def __init__(self, db_path: Path, *, pool: TaskPool | None = None, settings: AppSettings | None = None) -> None:
        super().__init__()
        pyside_refcounts.install()
        self._collector = gc_guard.UiThreadCollector(self)
        self.settings = settings or AppSettings()
        self.pool = pool or TaskPool()
        self.import_cancel = CancelToken()  # the running import's flag
        self.db_path = Path(db_path)
        self.store = Store(self.db_path)
        self.reader = LibraryReader(self.store)
        self.interrupted = self.store.mark_interrupted_jobs()
        colours.use_dark(colours.is_dark(self.palette().color(QPalette.ColorRole.Base).name()))
        self.setWindowTitle(f"Earshot — {self.db_path.name}")
        self.resize(1280, 800)
        self.setAcceptDrops(True)
        self.model_button: QPushButton | None = None

        self.player = Player()
        self.ingest = IngestController(self.pool, self._ingest_options)
        self.library = LibraryModel()
        self.library_panel = LibraryPanel(self.library)
        self.search_panel = SearchPanel(self.pool, self.db_path)
        self.ingest_panel = IngestPanel(self.ingest)
        self.log = LogPanel()
        self.log.attach()
        self.view = RecordingView(self.pool, self.player, self.settings, lambda: self.db_path)
        self.setCentralWidget(self.view)
        self.docks = self._make_docks()
        self._colour_dock_buttons()
        self._arranged = False
        self.models_panel: ModelsPanel | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.help_dialog: ShortcutsDialog | None = None
        self.about_box: QMessageBox | None = None
        self.evaluation: EvaluationWindow | None = None
        self.library_status = QLabel()
        self.library_status.setAccessibleName("Library summary")
        self.statusBar().addPermanentWidget(self.library_status)

        self._closed = False
        self._outcomes: list[FileStatus] = []  # files that ended since the queue was last idle
        self._open_when_indexed: str | None = None  # the sample: opened once it is transcribed
        self._refresh_timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self._wire()
        self.actions_by_menu = self._make_menus()
        self._space_guard = _SpaceForControls(self)
        qt_app = QApplication.instance()
        assert qt_app is not None  # the window is made inside a running application
        qt_app.installEventFilter(self._space_guard)
        self.refresh()
        if self.interrupted:
            notes = [Store.interrupted_note(job) for job in self.interrupted]
            more = f" (and {len(notes) - 2} more, listed as interrupted)" if len(notes) > 2 else ""
            self.show_message("; ".join(note[0].upper() + note[1:] for note in notes[:2]) + more + ".")

    # -- construction -----------------------------------------------------------------------

    def _make_docks(self) -> dict[str, QDockWidget]:
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        docks = {}
        for key, title, widget, area in (
            ("library", "Library", self.library_panel, Qt.DockWidgetArea.LeftDockWidgetArea),
            ("search", "Search", self.search_panel, Qt.DockWidgetArea.LeftDockWidgetArea),
            ("queue", "Ingest queue", self.ingest_panel, Qt.DockWidgetArea.BottomDockWidgetArea),
            ("log", "Log", self.log, Qt.DockWidgetArea.BottomDockWidgetArea),
        ):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{key}")
            dock.setWidget(widget)
            dock.setAccessibleName(title)
            self.addDockWidget(area, dock)
            docks[key] = dock
        return docks

    def _colour_dock_buttons(self) -> None:
        """The docks' float and close icons in the palette's button text colour (the stock ones are dark
        grey, unreadable on a dark palette)."""
        icons = {"qt_dockwidget_closebutton": QStyle.StandardPixmap.SP_TitleBarCloseButton,
                 "qt_dockwidget_floatbutton": QStyle.StandardPixmap.SP_TitleBarNormalButton}
        for dock in self.docks.values():
            for button in dock.findChildren(QAbstractButton):
                if button.objectName() in icons:
                    button.setIcon(palette_icon(self, icons[button.objectName()]))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "docks"):
            # After the docks have taken the new palette themselves (they reset their icons then).
            QTimer.singleShot(0, self, self._colour_dock_buttons)
        super().changeEvent(event)

    def _arrange_docks(self) -> None:
        """Tabs and sizes of the docks, then the user's saved layout.

        Done on the first show: arranged before it, Qt 6.12 leaves stale dock tab bars painted on the window.
        """
        docks = self.docks
        self.tabifyDockWidget(docks["library"], docks["search"])
        self.tabifyDockWidget(docks["queue"], docks["log"])
        docks["library"].raise_()
        docks["queue"].raise_()
        # At most two fifths of the width: at 1024 pixels the recording keeps 600 of them.
        self.resizeDocks([docks["library"]], [min(LIBRARY_DOCK_WIDTH, self.width() * 2 // 5)], Qt.Orientation.Horizontal)
        self.resizeDocks([docks["queue"]], [170], Qt.Orientation.Vertical)
        self._restore_layout()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._arranged:
            self._arranged = True
            self._arrange_docks()

    def _wire(self) -> None:
        self.library_panel.open_requested.connect(lambda rec_id: self.view.open(rec_id))
        self.library_panel.add_files_requested.connect(self.add_files)
        self.library_panel.sample_requested.connect(self.add_sample)
        self.ingest.model_advice.connect(self._advise_model)
        self.library_panel.reingest_requested.connect(lambda paths: self.enqueue(paths, force=True))
        self.library_panel.remove_requested.connect(self.remove_rows)
        self.ingest_panel.add_files_requested.connect(self.add_files)
        self.search_panel.play_requested.connect(self.play_hit)
        self.ingest.file_changed.connect(self._file_changed)
        self.ingest.file_progress.connect(self.library.progress)
        self.ingest.log_line.connect(self.log.add_line)
        self.ingest.busy_changed.connect(self._busy_changed)
        self.view.message.connect(self.show_message)
        self.view.audio_attached.connect(lambda _rec_id: self.refresh())
        self.view.speakers_changed.connect(lambda _rec_id: self._speakers_changed())
        self.view.find_voice_requested.connect(self.find_voice)
        self.player.error.connect(self.show_message)

    def _make_menus(self) -> dict[str, list[QAction]]:
        menus: dict[str, list[QAction]] = {}

        def add(menu_name: str, text: str, slot, shortcut=None) -> QAction:  # type: ignore[no-untyped-def]
            action = QAction(text, self)
            if shortcut is not None:
                keys = shortcut if isinstance(shortcut, list) else [shortcut]
                action.setShortcuts([QKeySequence(k) for k in keys])
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            menus.setdefault(menu_name, []).append(action)
            self.addAction(action)
            return action

        add("&File", "&Add recordings…", self.add_files, QKeySequence.StandardKey.Open)
        add("&File", "Add a &folder…", self.add_folder, "Ctrl+Shift+O")
        add("&File", "&Import transcripts (SRT, WebVTT, captions)…", lambda: self.import_transcripts(), "Ctrl+I")
        self.cancel_import_action = add("&File", "Cancel the &import", self.cancel_import)
        self.cancel_import_action.setEnabled(False)
        for fmt in FORMATS:
            add("&File", f"&Export transcript as {fmt.upper()}…", lambda _=False, f=fmt: self.export(f))
        add("&File", "&Copy transcript or selection", self.view.copy_transcript, "Ctrl+Shift+C")
        add("&File", "&Settings…", self.open_settings, "Ctrl+,")
        add("&File", "&Quit", self.close, QKeySequence.StandardKey.Quit)
        add("&Library", "&Refresh", self.refresh, QKeySequence.StandardKey.Refresh)
        add("&Library", "&Search the library", self.focus_search, "Ctrl+K")
        add("&Library", "&Find in transcript", self.view.transcript.find_bar.open_bar, QKeySequence.StandardKey.Find)
        add("&Library", "Cancel &all ingests", self.ingest.cancel_all)
        add("&Playback", "&Play / pause", self.player.toggle, ["Space", "K"])
        add("&Playback", f"&Back {SMALL_SKIP:.0f} seconds", lambda: self.player.skip(-SMALL_SKIP), "Left")
        add("&Playback", f"&Forward {SMALL_SKIP:.0f} seconds", lambda: self.player.skip(SMALL_SKIP), "Right")
        add("&Playback", f"Back {LARGE_SKIP:.0f} seconds", lambda: self.player.skip(-LARGE_SKIP), "J")
        add("&Playback", f"Forward {LARGE_SKIP:.0f} seconds", lambda: self.player.skip(LARGE_SKIP), "L")
        add("&Playback", "Slower", lambda: self._step_speed(-1), "[")
        add("&Playback", "Faster", lambda: self._step_speed(+1), "]")
        add("&Tools", "&Evaluation…", self.open_evaluation)
        for dock in self.docks.values():
            action = dock.toggleViewAction()
            menus.setdefault("&View", []).append(action)
        add("&Help", "&Keyboard shortcuts", self.open_help, QKeySequence.StandardKey.HelpContents)
        add("&Help", "&About Earshot", self.open_about)
        for name, actions in menus.items():
            menu = self.menuBar().addMenu(name)
            for action in actions:
                menu.addAction(action)
        return menus

    def _restore_layout(self) -> None:
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """Keep the window inside the screen it is on (a saved size from a bigger screen shrinks)."""
        fit_inside_screen(self)

    # -- the library ------------------------------------------------------------------------

    def find_voice(self, rec_id: int, label: int, name: str) -> None:
        """List, in the search panel, the other recordings where the voice of speaker ``label`` is heard."""
        self.focus_search()
        self.search_panel.find_voice(rec_id, label, name)

    def _speakers_changed(self) -> None:
        """A speaker was renamed or merged: the speaker filter's names and the results shown may have changed."""
        self.search_panel.refresh_filters(self.reader)
        self.search_panel.search_now()

    def refresh(self) -> None:
        if self._closed:
            return
        self.library.set_rows(self.reader.library_rows())
        self.search_panel.refresh_filters(self.reader)
        n = sum(1 for r in range(self.library.rowCount()) if self.library.row_at(r).recording_id is not None)
        total = duration_text(self.library.total_seconds())
        self.library_panel.status.setText(f"{counted(n, 'recording')}, {total} of audio, indexed in {self.store.path}")
        self.library_status.setText(f"{counted(n, 'recording')} · {total}")

    def _file_changed(self, status: FileStatus) -> None:
        self.library.apply(status)
        if status.path == self._open_when_indexed and status.state in TERMINAL:
            self._open_when_indexed = None
            if status.state in (JobState.DONE, JobState.SKIPPED) and status.recording_id is not None:
                self.view.open(status.recording_id)
        if status.state in TERMINAL:
            self._refresh_timer.start()
            self._outcomes.append(status)
            if status.state is JobState.FAILED:
                self.show_message(f"{Path(status.path).name}: {reason(status.path, status.message)}")

    def _busy_changed(self, busy: bool) -> None:
        if busy:
            return
        counts = Counter(s.state.value for s in self._outcomes)
        failed = [s for s in self._outcomes if s.state is JobState.FAILED]
        self._outcomes = []
        summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        if len(failed) == 1:
            summary += f" — {Path(failed[0].path).name}: {reason(failed[0].path, failed[0].message)}"
        elif failed:
            summary += " — the reasons are on the rows and in the log"
        self.show_message(f"Ingest finished: {summary}." if summary else "Ingest finished.")

    def remove_rows(self, rows: list[LibraryRow]) -> None:
        for row in rows:
            try:
                if row.recording_id is not None:
                    if self.player.recording_id == row.recording_id:
                        self.player.stop()
                    if self.view.recording_id == row.recording_id:
                        self.view.close_recording()
                    self.store.remove_recording(row.recording_id)
                self.reader.forget_failed(row.path)
                self.library.forget(row.path)
            except EarshotError as exc:
                self.show_message(str(exc))
        self.refresh()
        self.show_message(f"Removed {len(rows)} recording(s) from the library.")

    # -- ingest -----------------------------------------------------------------------------

    def _ingest_options(self) -> IngestOptions:
        return IngestOptions(self.db_path, workers=self.settings.workers,
                             detector_settings=self.settings.detector_settings(), cluster=self.settings.cluster)

    def enqueue(self, paths: list[str], *, force: bool = False) -> list[str]:
        queued = self.ingest.enqueue(paths, force=force)
        if queued:
            self.docks["queue"].raise_()
        return queued

    def add_files(self) -> None:
        files = dialogs.ask_open_files(self)
        if files:
            self.enqueue(files)

    def import_transcripts(self, files: list[str] | None = None) -> None:
        """Index existing transcripts (each with the recording of the same name beside it, if any)."""
        files = files if files is not None else dialogs.ask_open_files(
            self, "Import transcripts", dialogs.TRANSCRIPT_FILTER)
        if not files:
            return
        db_path, settings = self.db_path, self.settings.detector_settings()

        def run(report: JobReport) -> tuple[int, list[str], list[str]]:
            imported, failures, notices = 0, list[str](), list[str]()
            with Store(db_path) as store:
                for k, name in enumerate(files):  # one bad file must not hide the good ones
                    report.cancel.raise_if_cancelled()

                    def progress(done: float, total: float, k: int = k) -> None:  # in files, the k-th one part done
                        report.progress(k + done / max(total, 1e-9), len(files))

                    step = JobReport(progress=progress, cancel=report.cancel)
                    try:
                        import_transcript(store, name, audio=matching_audio(name), report=step,
                                          detector_settings=settings, notice=notices.append)
                    except EarshotError as exc:
                        failures.append(str(exc))
                    else:
                        imported += 1
            return imported, failures, notices

        self.cancel_import_action.setEnabled(True)
        self.import_cancel = CancelToken()
        self.pool.submit(
            run, f"import {len(files)} transcripts", finished=self._imported,
            failed=lambda message: self._import_ended(f"Import failed: {message}"),
            progress=lambda done, total: self.statusBar().showMessage(
                f"Importing transcripts: {100 * done / max(total, 1e-9):.0f} %"),
            cancelled=lambda: self._import_ended("Import cancelled; the transcripts imported before it stay"),
            cancel=self.import_cancel)

    def cancel_import(self) -> None:
        """Stop the running import between two blocks of audio; the transcript being read is not written."""
        self.import_cancel.cancel()

    def _import_ended(self, message: str) -> None:
        self.cancel_import_action.setEnabled(False)
        self.refresh()
        self.show_message(message)

    def _imported(self, outcome: tuple[int, list[str], list[str]]) -> None:
        imported, failures, notices = outcome
        message = f"Imported {counted(imported, 'transcript')}"
        if len(failures) == 1:
            message += f"; 1 failed — {failures[0]}"
        elif failures:
            message += f"; {len(failures)} failed — first: {failures[0]} (all in the log file)"
        if len(notices) == 1:
            message += f"; {notices[0]}"
        elif notices:
            message += f"; {len(notices)} row ranges skipped — first: {notices[0]} (all in the log file)"
        for failure in failures:
            log.info("import failed: %s", failure)
        for notice in notices:
            log.info("import: %s", notice)
        self._import_ended(message)

    def add_sample(self) -> None:
        """Ingest the short sample recording that ships with the application."""

        if not SAMPLE.is_file():
            self.show_message(f"The sample recording is missing ({SAMPLE})")
            return
        try:
            sample = str(library_sample())
        except EarshotError as exc:
            self.show_message(str(exc))
            return
        self._open_when_indexed = sample  # shown as soon as it is transcribed
        self.enqueue([sample])

    def add_folder(self) -> None:
        folder = dialogs.ask_folder(self)
        if folder:
            self.enqueue([folder])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and all(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.enqueue(paths)

    # -- playing and searching --------------------------------------------------------------

    def play_hit(self, hit: SearchHit) -> None:
        marked = tuple(w for w, _ in hit.matched)
        audio = self.reader.audio_path(hit.recording_id)
        if audio is None:  # a transcript imported without its recording: show the words, say why it is silent
            self.view.open(hit.recording_id, seek=hit.hot_spot, play=True, mark=marked)
            return
        self.player.play_from(hit.recording_id, audio, hit.hot_spot)  # sound first; the transcript follows
        self.view.open(hit.recording_id, mark=marked)

    def focus_search(self) -> None:
        self.docks["search"].show()
        self.docks["search"].raise_()
        self.search_panel.focus_query()

    def _step_speed(self, step: int) -> None:
        combo = self.view.player_bar.speed
        combo.setCurrentIndex(min(combo.count() - 1, max(0, combo.currentIndex() + step)))

    def export(self, fmt: str) -> None:
        if self.view.detail is None:
            self.show_message("Open a recording first.")
            return
        path = dialogs.ask_save_path(self, f"Export transcript as {fmt.upper()}", self.view.suggested_name(fmt),
                                     f"{fmt.upper()} (*.{fmt})")
        if path:
            self.view.export_to(fmt, path)

    # -- other windows ----------------------------------------------------------------------

    def _advise_model(self, _note: str) -> None:
        """Offer Settings > Models (with its Download button) once, in the status bar, not in a modal box."""
        if self.model_button is not None:
            return
        self.model_button = push_button(
            "Better accuracy: choose a speech model…", "Open Settings, Models", self.open_model_settings,
            tip="The built-in model is in use; Settings › Models downloads a better one")
        self.statusBar().addPermanentWidget(self.model_button)

    def open_model_settings(self) -> SettingsDialog:
        dialog = self.open_settings()
        dialog.tabs.setCurrentIndex(0)  # Models
        return dialog

    def open_settings(self) -> SettingsDialog:
        if self.settings_dialog is None:
            self.models_panel = ModelsPanel(self.pool)
            self.settings_dialog = SettingsDialog(self, self.settings, self.models_panel)
            self.settings_dialog.library.index_chosen.connect(self.open_library)
        self.settings_dialog.show()
        self.settings_dialog.raise_()
        return self.settings_dialog

    def open_help(self) -> ShortcutsDialog:
        if self.help_dialog is None:
            self.help_dialog = ShortcutsDialog(self, [a for actions in self.actions_by_menu.values() for a in actions])
        self.help_dialog.show()
        self.help_dialog.raise_()
        return self.help_dialog

    def open_about(self) -> QMessageBox:
        """What Earshot is, its version, and where it keeps the index, the data and the log."""
        if self.about_box is None:
            self.about_box = QMessageBox(QMessageBox.Icon.Information, "About Earshot", "", parent=self)
            self.about_box.setTextFormat(Qt.TextFormat.PlainText)
        self.about_box.setText(
            f"Earshot {engine.__version__}\n\nSearch and jump into hours of recorded speech. Everything runs on this"
            f" computer: recordings, transcripts and the index never leave it.\n\nIndex: {self.db_path}\n"
            f"Data folder: {data_dir()}\nLog file: {log_dir() / 'earshot.log'}")
        self.about_box.show()
        return self.about_box

    def open_evaluation(self) -> EvaluationWindow:
        if self.evaluation is None:
            self.evaluation = EvaluationWindow(self.pool, self)
        self.evaluation.show()
        fit_inside_screen(self.evaluation)  # its preferred 1100 x 720 is more than a 1024 x 700 screen has
        self.evaluation.raise_()
        return self.evaluation

    def open_library(self, db_path: Path) -> None:
        """Switch to another index file (not while an ingest runs)."""
        if self.ingest.is_busy():
            self.show_message("Wait for the ingest to finish (or cancel it) before switching the index.")
            return
        try:
            store = Store(db_path)
        except EarshotError as exc:
            self.show_message(str(exc))
            return
        self.player.stop()
        self.view.close_recording()
        self.store.close()
        self.store, self.reader, self.db_path = store, LibraryReader(store), Path(db_path)
        self.search_panel.db_path = self.db_path
        self.setWindowTitle(f"Earshot — {self.db_path.name}")
        self.refresh()
        self.show_message(f"Opened {db_path}")

    def show_message(self, text: str) -> None:
        """Routine problems and outcomes go here, never into a modal box."""
        self.statusBar().showMessage(text, 15000)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.ingest.cancel_all()
        self.player.stop()
        self.pool.wait(10000)
        self._refresh_timer.stop()
        self._closed = True
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        qt_app = QApplication.instance()
        if qt_app is not None:
            qt_app.removeEventFilter(self._space_guard)
        self.log.detach()
        self.store.close()
        self._collector.stop()
        super().closeEvent(event)


class _SpaceForControls(QObject):
    """Space plays and pauses, except where it already means something (typing, pressing a focused button)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            focus = QApplication.focusWidget()
            if event.key() == Qt.Key.Key_Space and isinstance(focus, QAbstractButton | QComboBox | QAbstractSlider):
                event.accept()  # let the focused control take the key instead of the shortcut
        return False


def run_gui(argv: list[str], db_path: Path | None = None) -> int:
    """Start the application; returns its exit code."""

    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("Earshot")
    setup_logging()
    settings = AppSettings()
    try:
        window = MainWindow(db_path or settings.db_path, settings=settings)
    except EarshotError as exc:
        print(f"earshot: error: {exc}", file=sys.stderr)
        # Started from a desktop there is no terminal to read: say it in a window too.
        QMessageBox(QMessageBox.Icon.Critical, "Earshot", f"Earshot cannot start.\n\n{exc}").exec()
        return 1
    window.show()
    return int(app.exec())

