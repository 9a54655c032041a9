"""The fast lane's budget: a test not marked ``slow`` that spends over 2 s of CPU fails the lane.

The fast lane is ``pytest -m "not slow ..."`` (tools/check.sh). A test's cost is the CPU time of
the test process (all its threads) plus the children it waited for, from the start of its
setup (its module and session fixtures included, when it is the first to need them) to the
end of its teardown. CPU time, not wall-clock time, so a busy machine does not trip it; less
the time numba spends compiling kernels in this process (once per machine, then cached), so a
cold cache does not trip it either.
The hooks are imported by tests/conftest.py; the limit is the ini option ``fast_lane_cpu_seconds``.
"""

from __future__ import annotations

import os
import time

import pytest
from numba.core import event as numba_event

#: Over this many CPU seconds a test belongs in the slow lane.
FAST_LANE_CPU_SECONDS = 2.0

_START = pytest.StashKey[float]()


class _CompileTime(numba_event.Listener):
    """CPU seconds this process has spent compiling numba kernels (outermost compilations only)."""

    def __init__(self) -> None:
        self.seconds, self._depth, self._started = 0.0, 0, 0.0

    def on_start(self, event: numba_event.Event) -> None:
        self._depth += 1
        if self._depth == 1:
            self._started = time.process_time()

    def on_end(self, event: numba_event.Event) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.process_time() - self._started


_COMPILING = _CompileTime()
numba_event.register("numba:compile", _COMPILING)


def cpu_seconds() -> float:
    """CPU time of this process and of the children it has waited for, less numba compilation, in seconds."""
    children = os.times()
    return time.process_time() + children.children_user + children.children_system - _COMPILING.seconds


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("fast_lane_cpu_seconds", "CPU seconds over which an unmarked test fails the fast lane",
                  default=str(FAST_LANE_CPU_SECONDS))


def _in_fast_lane(config: pytest.Config) -> bool:
    return "not slow" in (config.getoption("markexpr", "") or "")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item):
    item.stash[_START] = cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if call.when != "teardown" or not report.passed or _START not in item.stash:
        return
    if not _in_fast_lane(item.config) or item.get_closest_marker("slow") is not None:
        return
    spent = cpu_seconds() - item.stash[_START]
    limit = float(item.config.getini("fast_lane_cpu_seconds"))
    if spent > limit:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} spent {spent:.1f} s of CPU (setup, call and teardown) in the fast lane, "
                           f"over its {limit:g} s: mark it @pytest.mark.slow or make it cheaper")
