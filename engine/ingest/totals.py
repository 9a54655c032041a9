"""A batch's totals while it runs: files and hours of audio queued and done, the rate, the time left."""

from __future__ import annotations

import time
from typing import Protocol

from engine.timefmt import clock

#: Seconds of a run before its rate and time left are shown.
RATE_AFTER_SECONDS = 10.0


class FileLike(Protocol):
    """A file's state as the job reports it (a FileOutcome, or the app's snapshot of one)."""

    @property
    def path(self) -> str: ...

    @property
    def duration(self) -> float: ...


class BatchTotals:
    """Fed with each file's state changes and progress; :meth:`line` says where the batch is.

    Seconds are seconds of audio; the rate is hours of audio per hour of wall time since the
    first file started.
    """

    def __init__(self) -> None:
        self._queued: dict[str, float] = {}  # path -> seconds of audio (0 until probed)
        self.files_done = 0
        self.seconds_done = 0.0
        self.running: dict[str, float] = {}  # path -> seconds of it recognised so far
        self.started: float | None = None

    def queued(self, outcome: FileLike) -> None:
        """Count a file in the batch (again: its duration, once probed, replaces the first count)."""
        self._queued[outcome.path] = outcome.duration

    @property
    def files(self) -> int:
        return len(self._queued)

    @property
    def seconds(self) -> float:
        return sum(self._queued.values())

    def start(self, path: str) -> None:
        if self.started is None:
            self.started = time.monotonic()
        self.running[path] = 0.0

    def progress(self, path: str, done: float) -> bool:
        """Note ``done`` seconds of a running file; False if the file is not running."""
        if path not in self.running:
            return False
        self.running[path] = done
        return True

    def ended(self, outcome: FileLike) -> bool:
        """Count a running file as done (whatever its end); False if it was not running."""
        if self.running.pop(outcome.path, None) is None:
            return False
        self.files_done += 1
        self.seconds_done += outcome.duration
        return True

    @property
    def seconds_heard(self) -> float:
        return self.seconds_done + sum(self.running.values())

    def line(self) -> str:
        """``3 of 50 files, 0.80 of 10.00 h of audio, 12.3 h per hour, about 0:40 left``."""
        done = self.seconds_heard
        text = f"{self.files_done} of {self.files} files, {done / 3600:.2f} of {self.seconds / 3600:.2f} h of audio"
        elapsed = time.monotonic() - self.started if self.started is not None else 0.0
        if self.files and self.files_done == self.files and elapsed > 0:
            return (f"{self.files} of {self.files} files, {done / 3600:.2f} h of audio in {clock(elapsed)}, "
                    f"{done / elapsed:.1f} h per hour")
        if elapsed >= RATE_AFTER_SECONDS and done > 0:  # a rate from the first seconds says little
            rate = done / elapsed
            text += f", {rate:.1f} h per hour, about {clock(max(self.seconds - done, 0.0) / rate)} left"
        return text
