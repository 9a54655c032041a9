"""What every child process of an ingest does first: outlive neither its parent nor a Ctrl+C decision."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import wait


def exit_with_parent(last: Callable[[], None] | None = None) -> None:
    """End this process as soon as the process that started it is gone (even after ``kill -9``),
    calling ``last`` first (what the parent would have cleaned up)."""
    parent = mp.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        if last is not None:
            last()
        os._exit(1)

    threading.Thread(target=watch, name="earshot-parent-watch", daemon=True).start()


def ignore_sigint() -> None:
    """Ctrl+C reaches the whole process group; the parent decides, and kills the children it must."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
