"""Work around PYSIDE-3474: PySide6 6.12.0 drops a reference to None (and to True) on ordinary calls.

On Python 3.11, where ``None``, ``True`` and ``False`` are not immortal, every
call of a void Qt method (``setText``, ``update``, ``QTimer.start`` …) and
every ``Signal.emit`` through the 6.12.0 wheels leaves one reference fewer; a
busy or long session frees ``None`` and the interpreter aborts ("Fatal Python
error: none_dealloc"). Python 3.12+ and PySide6 6.11 are not affected.

:func:`install` checks whether the installed PySide6 has the bug and, only
then, gives those three objects a very large number of extra references and
tops them up every few seconds, so they can never reach zero. Extra references
to these singletons are harmless (they are never freed anyway). Delete this
module once the lock file pins a PySide6 without the bug.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QCoreApplication, QObject, QTimer

#: References added when an object falls below FLOOR (far more than a session can drop).
HEADROOM = 1 << 40
FLOOR = 1 << 39
TOP_UP_MS = 5000

_timer: QTimer | None = None


def leaks_references() -> bool:
    """True if void Qt calls drop a reference to None in this PySide6 (on this Python)."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(8):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before


def top_up() -> None:
    for singleton in (None, True, False):
        count = ctypes.c_ssize_t.from_address(id(singleton))
        # Only where the count sits where CPython 3.11 release builds keep it.
        if count.value == sys.getrefcount(singleton) - 1 and count.value < FLOOR:
            count.value += HEADROOM


def install() -> bool:
    """Protect this process if it needs it; returns whether the workaround is active. Idempotent."""
    global _timer
    if _timer is not None:
        return True
    if sys.version_info >= (3, 12) or not leaks_references():
        return False
    top_up()
    app = QCoreApplication.instance()
    if app is not None:
        _timer = QTimer(app, interval=TOP_UP_MS)
        _timer.timeout.connect(top_up)
        _timer.start()
    return True
