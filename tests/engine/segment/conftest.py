"""Fixtures for the segmenter's tests: a seeded rng, the shared data, a small trained model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
NEWSSCAPE = SHARED / "newsscape"
LEE = SHARED / "lee"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20060613)


@pytest.fixture(scope="session")
def newsscape_days():
    if not NEWSSCAPE.is_dir():
        pytest.skip(f"shared NewsScape data absent ({NEWSSCAPE})")
    from engine.segment.text import read_corpus

    return read_corpus(NEWSSCAPE)


@pytest.fixture(scope="session")
def lee_articles():
    if not LEE.is_dir():
        pytest.skip(f"shared Lee corpus absent ({LEE})")
    from engine.segment.text import read_lee_articles

    return read_lee_articles(LEE / "lee_background.cor") + read_lee_articles(LEE / "lee.cor")


@pytest.fixture(scope="session")
def small_model(newsscape_days):
    """A model trained (with hyper-parameter search) on slices of three NewsScape days."""
    from engine.research.segment.fit import train_model

    slices = [day.slice(0, 12_000) for day in newsscape_days[1:]]
    return train_model(slices, max_state=120)
