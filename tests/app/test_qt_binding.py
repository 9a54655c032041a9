"""The pinned Qt binding must not drop references to None (PYSIDE-3474 in PySide6 6.12.0).

On Python 3.11 None is not immortal: a binding that loses one reference per void call
frees None after a long session and the interpreter aborts.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    fired = Signal()


def test_void_calls_and_signals_keep_references_to_none() -> None:
    probe, emitter = QObject(), _Emitter()
    emitter.fired.connect(lambda: None)
    before = sys.getrefcount(None)
    for _ in range(1000):
        probe.setObjectName("probe")
        emitter.fired.emit()
    assert sys.getrefcount(None) > before - 100, "this PySide6 leaks references to None: pin another version"
