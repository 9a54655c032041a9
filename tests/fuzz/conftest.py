"""The fuzz lane: the seed of the run is printed in pytest's closing summary."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fuzz.lane import EXAMPLES, SEED

_ran: list[str] = []


@pytest.fixture(autouse=True)
def _seed_noted(request: pytest.FixtureRequest) -> Iterator[None]:
    _ran.append(request.node.nodeid)
    yield


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _ran:
        terminalreporter.write_line(f"fuzz lane: {len(_ran)} tests, seed {SEED} (EARSHOT_FUZZ_SEED),"
                                    f" {EXAMPLES} cases a test (EARSHOT_FUZZ_EXAMPLES)")
