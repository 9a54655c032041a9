"""The PYSIDE-3474 workaround: without it a long session frees None and aborts; with it, it does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import pyside_refcounts

pytestmark = pytest.mark.gui

REPO = Path(__file__).resolve().parents[2]

#: More void Qt calls than None has references at start-up: enough to free it where the bug is.
SESSION = """
import sys
from PySide6.QtCore import QCoreApplication, QObject
app = QCoreApplication([])
calls = sys.getrefcount(None) + 10_000
if sys.argv[1] == "with":
    from app import pyside_refcounts
    pyside_refcounts.install()
probe = QObject()
for _ in range(calls):
    probe.setObjectName("probe")
print("survived")
"""


def _session(mode: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-c", SESSION, mode], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not pyside_refcounts.affected(), reason="this PySide6 on this Python does not have PYSIDE-3474")
def test_without_the_workaround_a_long_session_frees_none_and_with_it_survives() -> None:
    bare = _session("without")
    assert bare.returncode != 0 and "none_dealloc" in bare.stderr
    kept = _session("with")
    assert kept.returncode == 0, kept.stderr[-2000:]
    assert kept.stdout.strip() == "survived"


def test_the_workaround_is_on_exactly_where_a_long_session_crashes() -> None:
    """affected() agrees with the crash itself: a long session without the workaround, in a child process."""
    bare = _session("without")
    crashed = bare.returncode != 0 and "none_dealloc" in bare.stderr
    assert pyside_refcounts.affected() == crashed, bare.stderr[-2000:]
