"""While a main window is open, cyclic garbage is collected on the UI thread only."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import QObject

from app import gc_guard

pytestmark = pytest.mark.gui


class _Cycle(QObject):
    """A QObject that refers to itself, as a Task does through its progress callback."""

    def __init__(self) -> None:
        super().__init__()
        self.me = self


def test_garbage_made_in_a_thread_is_freed_on_the_ui_thread(qtbot, make_window, tmp_path: Path) -> None:
    assert gc.isenabled()
    window = make_window(tmp_path / "lib.sqlite")
    assert not gc.isenabled()
    refs: list[weakref.ref] = []
    freed_in: list[str] = []

    def churn() -> None:
        for _ in range(200):
            obj = _Cycle()
            obj.destroyed.connect(lambda *_: freed_in.append(threading.current_thread().name))
            refs.append(weakref.ref(obj))
            del obj
        kept = [[] for _ in range(20000)]  # enough live allocations to pass every threshold
        del kept

    worker = threading.Thread(target=churn, name="task-thread")
    worker.start()
    worker.join()
    assert all(r() is not None for r in refs), "the collector ran in the task thread"
    qtbot.waitUntil(lambda: all(r() is None for r in refs), timeout=5000)
    assert "task-thread" not in freed_in
    window.close()
    assert gc.isenabled()


def test_two_windows_hold_collection_until_the_last_closes(make_window, tmp_path: Path) -> None:
    first = make_window(tmp_path / "a.sqlite")
    second = make_window(tmp_path / "b.sqlite")
    first.close()
    assert not gc.isenabled()
    second.close()
    assert gc.isenabled()
    second.close()  # closing again gives nothing back twice
    assert gc.isenabled()


def test_collect_due_collects_a_generation_past_its_threshold() -> None:
    gc.disable()
    try:
        gc.collect()
        threshold = gc.get_threshold()[0]
        holder = [[] for _ in range(threshold + 10)]
        assert gc.get_count()[0] > threshold
        gc_guard.collect_due()
        assert gc.get_count()[0] < threshold
        del holder
    finally:
        gc.enable()
