"""Fixtures of the entity scorer tests: sclite, and the CLI with only the entities command."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

SCLITE_PATHS = ("/usr/lib/sctk/bin/sclite",)


@pytest.fixture(scope="session")
def sclite() -> str:
    """NIST sclite from Debian's sctk package."""
    found = shutil.which("sclite") or next((p for p in SCLITE_PATHS if Path(p).is_file()), None)
    if not found:
        pytest.skip("NIST sclite is not installed (Debian package sctk)")
    return found


@pytest.fixture
def cli():
    cli_main = importlib.import_module("engine.cli.main")
    return cli_main.main
