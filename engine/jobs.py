"""One job object per long run: progress, finished, failed, and a cancel flag.

The engine reports through plain callbacks; the GUI wraps them in Qt signals
and the CLI in a progress display. "Cancelled" is a state, not a string.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import Cancelled

ProgressFn = Callable[[float, float], None]


class JobState(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    SKIPPED = "skipped"


def _ignore_progress(done: float, total: float) -> None:
    return None


@dataclass
class CancelToken:
    """A flag checked between chunks of work; thread-safe."""

    _event: threading.Event = field(default_factory=threading.Event)

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("cancelled")


@dataclass
class JobReport:
    """Callbacks a long task reports through. Every field is optional."""

    progress: ProgressFn = _ignore_progress
    cancel: CancelToken = field(default_factory=CancelToken)
