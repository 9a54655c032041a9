"""The fuzz lane: the seed of the run is printed in pytest's closing summary."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fuzz.lane import CLI_EXAMPLES, EXAMPLES, SEED

_ran: list[str] = []


@pytest.fixture(autouse=True)
def _seed_noted(request: pytest.FixtureRequest) -> Iterator[None]:
    _ran.append(request.node.nodeid)
    yield


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _ran:
        terminalreporter.write_line(f"fuzz lane: {len(_ran)} tests, seed {SEED} (EARSHOT_FUZZ_SEED),"
                                    f" {EXAMPLES} files a parser (EARSHOT_FUZZ_EXAMPLES),"
                                    f" {CLI_EXAMPLES} argument lists a command (EARSHOT_FUZZ_CLI_EXAMPLES)")
