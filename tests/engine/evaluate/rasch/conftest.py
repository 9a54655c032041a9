"""Fixtures of the Rasch tests: the slow twins, the shared reference data, a CLI runner.

The fixed-seed ``rng`` and the private user data folder come from tests/conftest.py.
"""

from __future__ import annotations

import csv
import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from engine.evaluate.rasch import ResponseMatrix

#: ../shared/data/rasch beside the repository checkout.
SHARED_RASCH = Path(__file__).resolve().parents[4].parent / "shared" / "data" / "rasch"


@pytest.fixture(scope="session")
def naive():
    """tests/engine/evaluate/rasch/naive.py, loaded by path so it cannot clash with another test folder's naive.py."""
    spec = importlib.util.spec_from_file_location("earshot_rasch_naive", Path(__file__).with_name("naive.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def kct() -> dict:
    """The Knox Cube Test and Winsteps' output for it (skipped when ../shared is absent)."""
    if not (SHARED_RASCH / "kct_responses.csv").is_file():
        pytest.skip(f"reference data not found at {SHARED_RASCH} (the ../shared checkout is absent)")
    with (SHARED_RASCH / "kct_responses.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    items = [f"I{j:02d}" for j in range(1, 19)]
    matrix = ResponseMatrix.from_array([[int(r[c]) for c in items] for r in rows],
                                       systems=[r["person_id"] for r in rows], questions=items, source="kct")

    def table(name):
        with (SHARED_RASCH / name).open() as fh:
            recs = list(csv.DictReader(fh))
        return {k: np.array([float(r[k]) for r in recs])
                for k in ("MEASURE", "ERROR", "IN.MSQ", "IN.ZSTD", "OUT.MSQ", "OUT.ZSTD")}

    return {"matrix": matrix, "items": table("kct_winsteps_items.csv"), "persons": table("kct_winsteps_persons.csv"),
            "path": SHARED_RASCH / "kct_responses.csv"}


@pytest.fixture
def earshot(monkeypatch, tmp_path):
    """Run ``earshot ARGS...`` in-process, in tmp_path, with the rasch commands registered; returns the exit code."""
    monkeypatch.chdir(tmp_path)
    cli = importlib.import_module("engine.cli.main")

    def run(*argv: str) -> int:
        return cli.main([str(a) for a in argv])

    return run
