"""How long the UI thread stops answering: a precise timer that notes how late each tick comes.

Used by ``bench/gui_stall.py``; tests never assert on wall-clock time.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer

#: Tick interval, ms: a stall is measured as the delay beyond it.
TICK_MS = 5


class StallMeter(QObject):
    """Runs in the UI thread; ``longest`` is the worst extra delay seen (seconds), ``stalls`` the ones over 50 ms."""

    def __init__(self, tick_ms: int = TICK_MS) -> None:
        super().__init__()
        self._tick_s = tick_ms / 1000
        self._timer = QTimer(self, interval=tick_ms)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self._last_cpu = 0.0
        self._started = 0.0
        self.longest = 0.0
        #: The longest stall counting only CPU time the UI thread itself spent (excludes waiting for a core
        #: or for the GIL): what the UI code costs, apart from how busy the machine is.
        self.longest_busy = 0.0
        self.stalls: list[tuple[float, float]] = []  # (seconds since start, stall seconds)
        self.busy_at_stall: list[float] = []  # UI-thread CPU seconds within each of those stalls
        self.label = ""
        self.labels_at_stall: list[str] = []

    def start(self) -> None:
        self._started = self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        late = now - self._last - self._tick_s
        busy = cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu
        self.longest = max(self.longest, late)
        self.longest_busy = max(self.longest_busy, min(busy, max(late, 0.0)))
        if late > 0.05:
            self.stalls.append((now - self._started, late))
            self.busy_at_stall.append(busy)
            self.labels_at_stall.append(self.label)
