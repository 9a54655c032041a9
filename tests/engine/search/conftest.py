"""Fixtures for passage search: small indexes written the way ingest writes them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.storage.store import NewRecording, Store, WordRow
from tests.shared_data import shared_data

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
LEE = SHARED / "lee"
NEWSSCAPE = SHARED / "newsscape"


def add_recording(store: Store, name: str, text: str, *, seconds_per_word: float = 0.4,
                  stories: list[tuple[int, int]] | None = None, confidence: float | None = None) -> int:
    """Save ``text`` as a recording with synthetic word times, write its stories (with the segmenter's
    posterior ``confidence``, or none: given with the transcript), index its passages."""
    from engine.search import index_passages

    words = [WordRow(i * seconds_per_word, i * seconds_per_word + 0.3, 0.9, w) for i, w in enumerate(text.split())]
    rid = store.save_recording(NewRecording(
        path=f"/media/{name}", name=name, content_hash=name, size_bytes=1, duration=len(words) * seconds_per_word,
        sample_rate=16_000, channels=1, codec="pcm", container="wav", engine="text", model="test", language="en",
        words=words, segments=[(i, min(i + 39, len(words) - 1)) for i in range(0, len(words), 40)],
    ))
    with store.atomic():
        for k, (a, b) in enumerate(stories or []):
            store.conn.execute(
                "INSERT INTO stories (recording_id, idx, first_word, last_word, start, end, confidence)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [rid, k, a, b, words[a].start, words[b].end, confidence],
            )
        index_passages(store, rid)
    return rid


def random_text(rng: np.random.Generator, n_words: int, vocabulary: list[str]) -> str:
    return " ".join(vocabulary[i] for i in rng.integers(0, len(vocabulary), n_words))


_WORDS = ("the of and to in a is that for on council budget hospital rain flood harbour street fishermen quota "
          "port senator election vote court judge police fire minister market shares bank")
VOCABULARY = _WORDS.split()


@pytest.fixture(scope="session")
def lee_sources():
    from engine.evaluate.collection import lee_recordings

    return lee_recordings(shared_data("lee", "Lee corpus"))


@pytest.fixture(scope="session")
def lee_index(tmp_path_factory, lee_sources):
    """The Lee collection (35 recordings of 10 articles, stories from the articles) in an index file."""
    from engine.evaluate.collection import index_recordings

    path = tmp_path_factory.mktemp("lee") / "lee.sqlite"
    with Store(path) as store:
        index_recordings(store, lee_sources, with_stories=True)
    return path


@pytest.fixture
def lee_store(lee_index):
    store = Store(lee_index)
    yield store
    store.close()
