"""Screenshots of every panel of the desktop app, on a demo library, at 1280x800.

Builds (once; cached in ``--demo``) two generated broadcasts with music beds,
applause and laughter, and ingests them with the default speech model through
:class:`engine.ingest.IngestJob` (recognition, detectors, stories, entities,
passage index: everything the panels show comes from the real pipeline), plus
a damaged file whose failure the library lists. Then it starts the app under
Xvfb (started here unless ``DISPLAY`` is set; ``--offscreen`` renders without
X), runs the evaluation panels on small sample files, and saves one PNG per
panel in ``--out``.

``--docs`` takes only the pictures docs/ shows (the library, a recording, a search hit playing from
its word with the matches marked; light and dark; at 1024x700 and 1600x1000: 12 PNGs) and writes
them into docs/. Run it under ``xvfb-run -s "-screen 0 1600x1000x24"`` (or with ``--offscreen``).

Run: ``.venv/bin/python -m tools.screenshots [--out DIR] [--demo DIR] [--offscreen] [--docs]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 800
DEMO_STORIES = [
    "Heavy rain closed the Harbour Bridge in Riverton last night. Mayor Linda Okafor thanked the Red Cross "
    "volunteers who worked through the storm, and said the bridge would reopen on Friday.",
    "Norland Airways shares fell after chief executive Peter Lindqvist warned that fuel costs would cut profits "
    "this year. The airline will cancel some winter flights.",
    "Doctor Maria Alvarez of Lakeside University found a new frog in the cloud forests of northern Peru. "
    "The frog is smaller than a coin and sings at night.",
    "The city council voted to build a new library beside the river. The building will open in two years and "
    "will hold a music school and a cafe.",
]
#: The name the demo gives the first speaker of the first recording (the others keep "Speaker N").
DEMO_SPEAKER_NAME = "Anna Reid"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "earshot-screenshots")
    ap.add_argument("--demo", type=Path, default=Path(tempfile.gettempdir()) / "earshot-demo")
    ap.add_argument("--offscreen", action="store_true", help="render with Qt's offscreen platform instead of X")
    ap.add_argument("--docs", action="store_true", help="only the pictures of docs/, written there")
    args = ap.parse_args(argv)
    os.environ["EARSHOT_DATA_DIR"] = str(args.demo / "data")
    os.environ["EARSHOT_CACHE_DIR"] = str(args.demo / "cache")
    db = build_demo(args.demo)
    with _display(args.offscreen, max(DOCS_SIZES) if args.docs else (WIDTH, HEIGHT)):
        paths = docs_screenshots(db, args.demo, REPO / "docs") if args.docs else take_screenshots(db, args.demo, args.out)
    for p in paths:
        print(p)
    return 0


# -- the demo library --------------------------------------------------------------------------


def build_demo(folder: Path) -> Path:
    """The demo index (built on first use): two broadcasts, a corrupt file's failure, analysis tables."""
    db = folder / "library.sqlite"
    if db.exists():
        return db
    from engine.ingest.job import IngestJob
    from engine.storage.store import Store
    from models.manager import ModelManager
    from tools.broadcast import build_broadcast
    from tools.sound_clips import ClipsUnavailable

    folder.mkdir(parents=True, exist_ok=True)
    audio = folder / "audio"
    broadcasts = []
    for name, texts, seed in (("evening-news.wav", DEMO_STORIES[:3], 3), ("council-report.wav", DEMO_STORIES[2:], 5)):
        print(f"building {name}", flush=True)
        try:
            build_broadcast(audio / name, stories=texts, seed=seed, applause=True, laughter=True)
        except ClipsUnavailable:
            build_broadcast(audio / name, stories=texts, seed=seed)
        broadcasts.append(audio / name)
    broken = audio / "damaged-tape.mp3"
    broken.write_bytes(b"ID3\x03\x00\x00\x00\x00\x00\x10" + bytes(range(256)) * 16)
    print("transcribing the demo broadcasts (a few minutes with the built-in model)", flush=True)
    outcomes = IngestJob([str(p) for p in broadcasts], db_path=db, spec=ModelManager().resolve(None), workers=2).run()
    failed = [o for o in outcomes if o.recording_id is None]
    if failed:
        sys.exit(f"screenshots: the demo ingest failed: {failed[0].message}")
    with Store(db) as store:  # what an earlier, failed ingest of a damaged file leaves in the index
        job = store.start_job("ingest", str(broken))
        store.finish_job(job, "failed", f"{broken}: not a recognised audio or video file")
        _name_the_first_speaker(store)
    return db


def _name_the_first_speaker(store) -> None:  # type: ignore[no-untyped-def]
    """Give the first speaker of the recording the pictures show a name, as a user would."""
    rec_id = _most_speakers(store)
    if store.speakers(rec_id):
        store.rename_speaker(rec_id, 1, DEMO_SPEAKER_NAME)


def _most_speakers(store) -> int:  # type: ignore[no-untyped-def]
    """The id of the demo recording with the most speakers (the first one on a tie): the one the recording shows."""
    ids = sorted(int(r["id"]) for r in store.recordings())
    return max(ids, key=lambda rec_id: (len(store.speakers(rec_id)), -rec_id))


# -- the screenshots ---------------------------------------------------------------------------


@contextlib.contextmanager
def _display(offscreen: bool, size: tuple[int, int]) -> Iterator[None]:
    """Xvfb (a screen of ``size`` pixels) on a free display unless one is set (or offscreen rendering is asked for)."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        yield
        return
    if os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
        yield
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        sys.exit("screenshots: Xvfb is not installed (apt-get install xvfb), or pass --offscreen")
    display = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    proc = subprocess.Popen([xvfb, f":{display}", "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.environ["DISPLAY"], os.environ["QT_QPA_PLATFORM"] = f":{display}", "xcb"
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{display}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        proc.wait(5)


#: Window sizes of the docs' pictures (px): the smallest screen the app is laid out for, and a large one.
DOCS_SIZES = ((1024, 700), (1600, 1000))
#: Colours of the docs' dark pictures (a common dark palette).
DARK_PALETTE = (("Window", "#353535"), ("WindowText", "#eeeeee"), ("Base", "#2b2b2b"), ("AlternateBase", "#353535"),
                ("Text", "#eeeeee"), ("Button", "#353535"), ("ButtonText", "#eeeeee"), ("Highlight", "#2a82da"),
                ("HighlightedText", "#000000"), ("ToolTipBase", "#353535"), ("ToolTipText", "#eeeeee"),
                ("PlaceholderText", "#9e9e9e"))


def docs_screenshots(db: Path, demo: Path, out: Path) -> list[Path]:
    """The library, a recording and a search hit, light and dark, at each of DOCS_SIZES: 12 PNGs
    named ``screenshot-{view}-{width}-{scheme}.png``."""
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("Earshot")
    app.setStyle("Fusion")
    from engine.storage.store import Store

    with Store(db) as store:
        words = store.words(int(store.recordings()[0]["id"]))
    query = next((w["text"] for w in words if w["text"] in ("okafor", "bridge", "airways", "frog")),
                 _a_recognised_word(words))
    dark = QPalette(app.style().standardPalette())
    for role, colour in DARK_PALETTE:
        dark.setColor(getattr(QPalette.ColorRole, role), QColor(colour))
    for role in ("WindowText", "Text", "ButtonText"):  # greyed out when disabled, as a light palette does
        dark.setColor(QPalette.ColorGroup.Disabled, getattr(QPalette.ColorRole, role), QColor("#8a8a8a"))
    saved: list[Path] = []
    for scheme, palette in (("light", app.style().standardPalette()), ("dark", dark)):
        app.setPalette(palette)
        for width, height in DOCS_SIZES:
            for view, pose in (("library", _pose_library), ("recording", _pose_recording), ("search", _pose_search)):
                window = _docs_window(app, db, width, height)
                pose(app, window, query)
                _settle(app, 0.5)
                path = out / f"screenshot-{view}-{width}-{scheme}.png"
                _save_small(window.grab().toImage(), path)
                saved.append(path)
                window.close()
                _settle(app, 0.2)
    return saved


def _docs_window(app, db: Path, width: int, height: int):  # type: ignore[no-untyped-def]
    """A main window on the demo index, shown at ``width`` x ``height`` (set after the first show, which
    fits the window to the screen)."""
    from app.main_window import MainWindow
    from app.settings import AppSettings
    from app.tasks import TaskPool

    AppSettings().path.unlink(missing_ok=True)  # the first-run layout, not the one the last picture left
    window = MainWindow(db, pool=TaskPool())
    window.resize(width, height)  # the docks are sized for it at the first show
    window.show()
    _settle(app, 0.5)
    window.resize(width, height)  # without a window manager the first show keeps room for a title bar
    _settle(app, 0.5)
    return window


def _open_first(app, window, rec_id: int = 1) -> None:  # type: ignore[no-untyped-def]
    window.view.open(rec_id)
    _wait(app, lambda: window.view.timeline.canvas.envelope is not None and window.view.transcript.text.is_filled())


def _pose_library(app, window, _query: str) -> None:  # type: ignore[no-untyped-def]
    """Every recording, the damaged file's failure too; the first one open."""
    window.docks["library"].raise_()
    window.library_panel.status_filter.setCurrentText("All")
    _open_first(app, window)
    if window.view.detail is not None:
        window.library_panel.select_path(window.view.detail.recording["path"])


def _pose_recording(app, window, _query: str) -> None:  # type: ignore[no-untyped-def]
    """The recording with the most speakers paused a third of the way in, the side panels closed to give it
    the window."""
    for key in ("library", "search"):
        window.docks[key].hide()
    rec_id = _most_speakers(window.store)  # the speaker lane and named paragraphs with two voices or more
    _open_first(app, window, rec_id)
    words = window.view.detail.words if window.view.detail else []
    window.player.play_from(rec_id, window.view.detail.recording["path"],
                            words[len(words) // 3]["start"] if words else 0.0)
    _settle(app, 1.5)
    window.player.pause()


def _pose_search(app, window, query: str) -> None:  # type: ignore[no-untyped-def]
    """A search, its first hit playing from its word with the matches marked."""
    window.focus_search()
    panel = window.search_panel
    panel.query.setText(query)
    _wait(app, lambda: panel.model.rowCount() > 0)
    panel.results.setCurrentIndex(panel.model.index(0, 0))
    panel.play_requested.emit(panel.model.hits[0])
    _wait(app, lambda: bool(window.view.transcript.text.hit_words()) and window.view.transcript.text.is_filled())
    _settle(app, 1.5)
    window.player.pause()


def _save_small(image, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Save a screenshot as an optimised 256-colour PNG (a tenth of the size; text edges stay clean)."""
    from PIL import Image
    from PySide6.QtCore import QBuffer, QIODevice

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    picture = Image.open(io.BytesIO(bytes(buffer.data()))).convert("RGB")
    picture.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


def take_screenshots(db: Path, demo: Path, out: Path) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.tasks import TaskPool

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("Earshot")
    out.mkdir(parents=True, exist_ok=True)
    window = MainWindow(db, pool=TaskPool())
    window.resize(WIDTH, HEIGHT)
    window.show()
    saved: list[Path] = []

    def shot(name: str, widget=None) -> None:  # type: ignore[no-untyped-def]
        _settle(app, 0.4)
        path = out / f"{name}.png"
        (widget or window).grab().save(str(path))
        saved.append(path)

    _settle(app, 1.0)
    window.view.open(1)
    _wait(app, lambda: window.view.timeline.canvas.envelope is not None)
    words = window.view.detail.words if window.view.detail else []
    window.player.play_from(1, window.view.detail.recording["path"], words[len(words) // 3]["start"] if words else 0.0)
    _settle(app, 1.5)
    window.player.pause()
    shot("01-main-window")

    window.view.timeline.canvas.zoom(0.2, window.player.position())
    shot("02-timeline-zoomed", window.view.timeline)
    window.view.timeline.canvas.set_view(0.0, window.view.timeline.canvas.duration)

    query = _a_recognised_word(words)
    window.focus_search()
    window.search_panel.query.setText(query)
    _wait(app, lambda: window.search_panel.model.rowCount() > 0)
    window.search_panel.results.setCurrentIndex(window.search_panel.model.index(0, 0))
    shot("03-search")
    window.docks["library"].raise_()

    window.view.transcript.find_bar.open_bar()
    window.view.transcript.find_bar.edit.setText(query)
    shot("04-transcript-find", window.view.transcript)
    window.view.transcript.find_bar.close_bar()

    _ingest_in_progress(app, window, demo)
    shot("05-ingest-queue")
    window.ingest.cancel_all()
    _wait(app, lambda: not window.ingest.is_busy(), 60)
    window.docks["log"].raise_()
    shot("06-log")
    window.docks["queue"].raise_()

    window.library_panel.status_filter.setCurrentText("All")
    shot("07-library", window.docks["library"])

    help_dialog = window.open_help()
    shot("08-shortcuts", help_dialog)
    help_dialog.close()

    dialog = window.open_settings()
    dialog.resize(900, 600)
    for k, name in enumerate(("09-settings-models", "10-settings-library", "11-settings-detectors")):
        dialog.tabs.setCurrentIndex(k)
        shot(name, dialog)
    dialog.close()

    evaluation = window.open_evaluation()
    evaluation.resize(WIDTH, HEIGHT)
    _evaluate(app, evaluation, demo)
    for k in range(evaluation.tabs.count()):
        evaluation.tabs.setCurrentIndex(k)
        title = evaluation.tabs.tabText(k).lower().replace(" ", "-")
        shot(f"{12 + k:02d}-evaluation-{title}", evaluation)
    evaluation.close()
    window.close()
    _settle(app, 0.3)
    return saved


def _ingest_in_progress(app, window, demo: Path) -> None:  # type: ignore[no-untyped-def]
    """Queue a long broadcast and a corrupt file; wait until the broadcast shows progress."""
    from engine.jobs import JobState
    from tools.broadcast import build_broadcast

    long_wav = demo / "audio" / "weekend-edition.wav"
    if not long_wav.exists():
        build_broadcast(long_wav, stories=DEMO_STORIES * 2, seed=9)
    broken = demo / "audio" / "damaged-tape.mp3"
    window.settings.workers = 1
    window.enqueue([str(long_wav), str(broken)])
    model = window.ingest_panel.model

    def running_with_progress() -> bool:
        rows = [model.row_at(r) for r in range(model.rowCount())]
        return any(r.state is JobState.RUNNING and r.fraction > 0.1 for r in rows)

    _wait(app, running_with_progress, 120)


def _evaluate(app, evaluation, demo: Path) -> None:  # type: ignore[no-untyped-def]
    """Run the segmentation and Rasch panels on demo files, so their tables and plots have content."""
    import numpy as np

    panels = evaluation.panels
    seg = panels.get("Story segmentation")
    if seg is not None and hasattr(seg, "files"):
        news = [s for s in (REPO / "resources" / "news" / "en.txt").read_text(encoding="utf-8").splitlines() if s]
        files = []
        for k, chunk in enumerate((news[:6], news[6:], news[::2])):
            path = demo / f"bulletin-{k + 1}.txt"
            path.write_text("\n\n".join(chunk), encoding="utf-8")
            files.append(str(path))
        seg.files.set_paths(files)
        seg.start()
        _wait(app, lambda: seg.run.task is None, 120)
    entities = panels.get("Named entities")
    if entities is not None and hasattr(entities, "reference"):
        ref, hyp = demo / "entities-reference.txt", demo / "entities-hypothesis.txt"
        ref.write_text("heavy rain closed the <L>harbour bridge</L> in <L>riverton</L> mayor <P>linda okafor</P> "
                       "thanked the <O>red cross</O> and <O>norland airways</O> chief <P>peter lindqvist</P>\n")
        hyp.write_text("heavy rain closed the <L>harbor bridge</L> in <L>river town</L> mayor <P>linda oh for</P> "
                       "thanked the red cross and <P>norland</P> airways chief <P>peter lindquist</P>\n")
        entities.reference.set_paths([str(ref)])
        entities.hypothesis.set_paths([str(hyp)])
        entities.start()
        _wait(app, lambda: entities.run.task is None, 120)
    passages = panels.get("Passage retrieval")
    if passages is not None and hasattr(passages, "qrels"):
        qrels, runs = demo / "topics.qrels", [demo / "mixture.run", demo / "text-only.run"]
        qrels.write_text("".join(f"T{t} evening-news {200 * t} 300 1\n" for t in range(1, 9)))
        runs[0].write_text("".join(f"T{t} evening-news {200 * t + 20 * (t % 3)} 300 1 9.0 mm\n" for t in range(1, 9)))
        runs[1].write_text("".join(f"T{t} evening-news {200 * t + 120 * (t % 2)} 400 1 7.0 text\n"
                                   for t in range(1, 9)))
        passages.qrels.set_paths([str(qrels)])
        passages.runs.set_paths([str(r) for r in runs])
        passages.start()
        _wait(app, lambda: passages.run.task is None, 120)
    rasch = panels.get("Rasch measurement")
    if rasch is not None and hasattr(rasch, "matrix"):
        from engine.evaluate.rasch import simulate_responses, write_matrix

        rng = np.random.default_rng(7)
        matrix = simulate_responses(rng.normal(0.5, 1.0, 25), rng.normal(0.0, 1.3, 120), rng=rng)
        path = write_matrix(matrix, demo / "systems-by-questions.csv")
        rasch.matrix.set_paths([str(path)])
        rasch.start()
        _wait(app, lambda: rasch.run.task is None, 120)


def _a_recognised_word(words: list[dict]) -> str:
    """The commonest recognised word the search does not drop as a stop word."""
    import collections

    from engine.search.text import query_terms

    common = collections.Counter(w["text"] for w in words if len(w["text"]) >= 4 and query_terms(w["text"]))
    return common.most_common(1)[0][0] if common else (words[0]["text"] if words else "news")


def _settle(app, seconds: float) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _wait(app, condition: Callable[[], bool], timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            print("screenshots: gave up waiting; the picture may be incomplete", file=sys.stderr)
            return
        app.processEvents()
        time.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main())
