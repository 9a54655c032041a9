"""Work around PYSIDE-3474: PySide6 6.12.0 drops a reference to None (and to True) on ordinary calls.

The one owner of this workaround (https://bugreports.qt.io/browse/PYSIDE-3474).

On Python 3.11, where ``None``, ``True`` and ``False`` are not immortal, every
call of a void Qt method (``setText``, ``update``, ``QTimer.start`` …) and
every ``Signal.emit`` through the 6.12.0 wheels leaves one reference fewer; a
busy or long session frees ``None`` and the interpreter aborts ("Fatal Python
error: none_dealloc"). Python 3.12+ and PySide6 6.11 are not affected.

:func:`install` checks whether the installed PySide6 has the bug and, only
then, gives those three objects a very large number of extra references and
tops them up every few seconds, so they can never reach zero. Extra references
to these singletons are harmless (they are never freed anyway).

Exit plan: the workaround turns itself off on any PySide6 other than the versions in
``AFFECTED_VERSIONS``, on Python 3.12+, and wherever the probe finds no leak. When the lock
file pins a PySide6 outside ``AFFECTED_VERSIONS``, ``tests/app/test_pyside_refcounts.py``
skips its crash test; then delete this module and its one call in ``app/main_window.py``.
"""

from __future__ import annotations

import ctypes
import sys

import PySide6
from PySide6.QtCore import QCoreApplication, QObject, QTimer

#: PySide6 releases with PYSIDE-3474 (major, minor, patch).
AFFECTED_VERSIONS = frozenset({(6, 12, 0)})
#: The installed PySide6 when it is one of them, else None.
AFFECTED_PYSIDE6 = tuple(PySide6.__version_info__[:3]) if tuple(PySide6.__version_info__[:3]) in AFFECTED_VERSIONS else None

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


def affected() -> bool:
    """True when this process needs the workaround: an affected PySide6, on Python 3.11, that leaks."""
    return AFFECTED_PYSIDE6 is not None and sys.version_info < (3, 12) and leaks_references()


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
    if not affected():
        return False
    top_up()
    app = QCoreApplication.instance()
    if app is not None:
        _timer = QTimer(app, interval=TOP_UP_MS)
        _timer.timeout.connect(top_up)
        _timer.start()
    return True
