"""engine.heap: the worker's arena limit and heap release, on glibc, in a process of their own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.heap import _libc, limit_arenas

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(_libc() is None, reason="the C library is not glibc: no malloc_trim or mallopt")

# Fills the heap with 1,000-byte objects (malloc, not Python's small-object allocator, and under
# malloc's mmap threshold), frees all but every 50th (so the heap's top cannot shrink by itself),
# then measures RSS before and after release_heap().
_FRAGMENT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engine.heap import release_heap

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

kept = []
objects = [bytes(1000) + str(i).encode() for i in range(150_000)]
kept = objects[::50]
del objects
before = rss_mb()
released = release_heap()
print(json.dumps({"before": before, "after": rss_mb(), "released": released, "kept": len(kept)}))
"""


def test_release_heap_gives_freed_pages_back() -> None:
    out = subprocess.run([sys.executable, "-c", _FRAGMENT, str(ROOT)], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["released"] is True
    # about 145 MB were freed in place; the trim hands most of it back
    assert got["before"] - got["after"] > 50, got


def test_limit_arenas_is_taken() -> None:
    assert limit_arenas(2) is True


def test_periodic_release_trims_once_per_period(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.heap as heap

    calls: list[int] = []
    monkeypatch.setattr(heap, "release_heap", lambda: calls.append(1) or True)
    release = heap.PeriodicRelease(300.0)
    for seconds in (0.0, 120.0, 299.9, 300.0, 450.0, 599.0, 600.5, 2000.0):
        release(seconds)
    assert len(calls) == 3  # at 300, 600.5 and 2000 s
