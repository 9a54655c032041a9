"""The longest UI stall while the GUI ingests a 10-minute broadcast, and while it opens the result.

Starts the real main window (real thread pool, real recognition with the
default model), measures how late a 5 ms timer in the UI thread fires
(:class:`app.stall.StallMeter`) during:

1. the ingest, while a user searches every 2 s and opens the library's rows;
2. opening the finished recording (transcript layout, waveform, lanes), then
   playing it with follow-along for a few seconds, and zooming the timeline.

Writes ``bench/results/gui_stall.json`` and ``.md``.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.gui_stall [--minutes 10]``
(or under Xvfb with ``DISPLAY=:99``).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from bench.common import CACHE, built_once, use_bench_folders, write_result

QUERIES = ("rain", "minister", "water", "police", "government", "market", "people")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    use_bench_folders("gui-stall")

    from tools.broadcast import build_broadcast

    wav = built_once(CACHE / f"gui-stall-{args.minutes:g}min.wav", f"a {args.minutes:g}-minute broadcast",
                     lambda path: build_broadcast(path, target_seconds=args.minutes * 60, seed=11, applause=False,
                                                  laughter=False))
    result = measure(wav, args.workers)
    result.update(platform=platform.platform(), python=sys.version.split()[0], cpus=os.cpu_count(),
                  qpa=os.environ.get("QT_QPA_PLATFORM", "xcb"), minutes=args.minutes)
    write_result("gui_stall", result, _markdown(result))
    print(_markdown(result))
    return 0


def measure(wav: Path, workers: int) -> dict[str, object]:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow
    from app.stall import StallMeter

    app = QApplication.instance() or QApplication([])
    db = Path(tempfile.mkdtemp(prefix="gui-stall-")) / "library.sqlite"
    window = MainWindow(db)
    window.settings.workers = workers
    window.resize(1280, 800)
    window.show()
    meter = StallMeter()
    phases: dict[str, dict[str, object]] = {}
    ticks = {"n": 0}

    def user_activity() -> None:  # what a user might do while waiting
        ticks["n"] += 1
        meter.label = "typing a search"
        window.search_panel.query.setText(QUERIES[ticks["n"] % len(QUERIES)])
        if window.library.rowCount():
            meter.label = "selecting a library row"
            window.library_panel.table.selectRow(0)

    activity = QTimer(interval=2000)
    activity.timeout.connect(user_activity)
    # Labels name what the UI thread did when a stall was noticed (these slots run right after the window's).
    window.ingest.file_changed.connect(lambda status: setattr(meter, "label", f"file became {status.state.value}"))
    window.ingest.file_progress.connect(lambda *args: setattr(meter, "label", "progress update"))
    window.search_panel.searched.connect(lambda *args: setattr(meter, "label", "search answer shown"))

    def phase_end(name: str, started: float) -> None:
        phases[name] = {
            "seconds": round(time.perf_counter() - started, 1),
            "longest_stall_ms": round(meter.longest * 1000, 1),
            "longest_ui_cpu_ms": round(meter.longest_busy * 1000, 1),
            "load_average": os.getloadavg()[0],
            "stalls_over_50ms": [(round(t, 1), round(s * 1000, 1), round(b * 1000, 1), label) for (t, s), b, label
                                 in zip(meter.stalls, meter.busy_at_stall, meter.labels_at_stall, strict=True)],
        }

    def begin() -> None:  # once the window is up and idle, as a user would drop a file
        meter.label = "enqueue"
        meter.start()
        activity.start()
        window.enqueue([str(wav)])

    started = time.perf_counter()
    window.ingest.busy_changed.connect(lambda busy: None if busy else app.quit())
    QTimer.singleShot(1500, begin)
    app.exec()
    activity.stop()
    meter.stop()
    phase_end("ingest", started)

    meter2 = StallMeter()
    meter = meter2
    started = time.perf_counter()
    meter.start()
    steps = [
        ("open", lambda: window.view.open(1)),
        ("play", lambda: window.player.play()),
        ("zoom", lambda: window.view.timeline.canvas.zoom(0.1, 60.0)),
        ("seek", lambda: window.player.seek(window.player.duration() / 2)),
        ("search", lambda: window.search_panel.query.setText("the")),
        ("done", app.quit),
    ]
    for k, (label, step) in enumerate(steps):
        QTimer.singleShot(1500 * k, lambda label=label, step=step: (setattr(meter, "label", label), step()))
    app.exec()
    meter.stop()
    phase_end("open_and_play", started)
    with_words = window.view.detail.words if window.view.detail else []
    window.close()
    return {"file": wav.name, "words": len(with_words), "phases": phases,
            "longest_stall_ms": max(p["longest_stall_ms"] for p in phases.values())}  # type: ignore[type-var]


def _markdown(r: dict) -> str:  # type: ignore[type-arg]
    lines = [f"# Longest UI stall, {r.get('minutes', '?')}-minute broadcast ({r.get('words')} words)", "",
             "| phase | seconds | longest stall (ms) | of it UI-thread CPU (ms) | stalls over 50 ms | load average |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, p in r["phases"].items():
        lines.append(f"| {name} | {p['seconds']} | {p['longest_stall_ms']} | {p['longest_ui_cpu_ms']} | "
                     f"{len(p['stalls_over_50ms'])} | {p['load_average']:.1f} |")
    lines += ["", "A stall is how late a 5 ms timer in the UI thread fires; the CPU column counts only time the UI",
              "thread itself ran (the rest is waiting for a core or for Python's GIL).", "",
              f"Machine: {r.get('platform')}, {r.get('cpus')} CPUs, Qt platform {r.get('qpa')}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
