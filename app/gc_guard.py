"""Cyclic garbage is collected on the UI thread only, while a main window is open.

Python's collector runs in whichever thread happens to allocate when a generation passes its
threshold. Task objects (QObjects whose progress callbacks refer back to themselves) are freed
only by that collector; when it runs in a task thread, their C++ halves are destroyed off the UI
thread, which Qt does not allow, and the ingest task thread has died of it (a segmentation fault
inside an unrelated import while it started a worker). So while a window is open, automatic
collection is off and a timer on the UI thread collects each generation that has passed its
threshold, as the collector itself would have.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: How often the UI thread checks the collector's counts, ms.
INTERVAL_MS = 250

_holders = 0
_was_enabled = True


def _hold() -> None:
    global _holders, _was_enabled
    if _holders == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _holders += 1


def _release() -> None:
    global _holders
    _holders -= 1
    if _holders == 0 and _was_enabled:
        gc.enable()


def collect_due() -> int:
    """Collect the oldest generation whose count has passed its threshold; returns objects found."""
    thresholds, counts = gc.get_threshold(), gc.get_count()
    due = [gen for gen in range(3) if counts[gen] > thresholds[gen]]
    return gc.collect(max(due)) if due else 0


class UiThreadCollector(QObject):
    """Turns automatic collection off until :meth:`stop` (or its parent's end) and collects on a timer."""

    def __init__(self, parent: QObject, *, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        _hold()
        self._held = True
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(collect_due)
        self._timer.start()

    def stop(self) -> None:
        """Give collection back to Python (idempotent)."""
        if self._held:
            self._held = False
            self._timer.stop()
            _release()
            gc.collect()
