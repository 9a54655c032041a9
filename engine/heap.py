"""The C heap of a worker process: how many malloc arenas its threads share, and giving freed pages back.

A worker's threads (the speech model's, the detectors' and the diarizer's beside it, ONNX Runtime's)
each get a glibc malloc arena of their own by default, and freed memory stays in them: on a
10-minute file ingest held 158 MB of freed heap when recognition ended. Two arenas, and a trim
after a long file's recognition and after its analysis (``config.TRIM_HEAP_SECONDS``), keep a
worker's RSS near what it uses (``bench/asr_bench.py --memory-path ingest``). Both are no-ops
where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

from engine import config

#: glibc's mallopt parameter number for the arena limit (malloc.h: M_ARENA_MAX).
_M_ARENA_MAX = -8


@functools.cache
def _libc() -> Any | None:
    """The C library when it is glibc (it has ``malloc_trim`` and ``mallopt``), else None (macOS, musl, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    if libc is None or not hasattr(libc, "malloc_trim") or not hasattr(libc, "mallopt"):
        return None
    return libc


def limit_arenas(arenas: int = config.MALLOC_ARENAS) -> bool:
    """Let this process's threads share at most ``arenas`` malloc arenas from now on (call it before
    the threads start); True when the C library took the setting."""
    libc = _libc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, int(arenas)) == 1)


def release_heap() -> bool:
    """Give the heap pages freed since the last call back to the system; True when some were."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0) == 1)


class PeriodicRelease:
    """``release_heap()`` each time another ``every`` seconds of audio have been heard: call it with the
    seconds heard so far (a recogniser's ``on_heard``). Three hours with only a trim at the end grew
    from 770 to 990 MB RSS in one run and to 855 MB in another: freed pages scattered among live ones."""

    def __init__(self, every: float) -> None:
        self.every = every
        self._next = every

    def __call__(self, seconds: float) -> None:
        if seconds >= self._next:
            release_heap()
            self._next = seconds + self.every
