"""The data-derived test collection: sources parsed, topics from headlines, judgements on the text."""

from __future__ import annotations

import numpy as np
import pytest

from engine.evaluate.collection import headline, judgements, make_topics, newsscape_recordings, perturbed_copy
from engine.search.text import terms
from tests.shared_data import shared_data


@pytest.fixture(scope="module")
def newsscape():
    return newsscape_recordings(shared_data("newsscape", "NewsScape data"))


def test_newsscape_days_become_half_hour_recordings(newsscape):
    assert sum(s.is_story for r in newsscape for s in r.stories) == 356  # every "Story start" marker
    for rec in newsscape:
        assert not any(">>" in w for w in rec.words)
        assert np.all(np.diff(rec.starts) >= -1e-9) and rec.ends[-1] < 3 * 3600
        assert [s.first for s in rec.stories] == [0] + [s.last + 1 for s in rec.stories[:-1]]
        assert rec.stories[-1].last == len(rec.words) - 1


def test_topics_and_sentence_judgements(newsscape, lee_sources):
    recordings = list(newsscape) + list(lee_sources)
    topics = make_topics(recordings, prefix="T")
    assert len(topics) > 400
    by_name = {r.name: r for r in recordings}
    for t in topics[::25]:
        rec = by_name[t.recording]
        words = rec.words[t.story.first : t.story.last + 1]
        assert 2 <= len(t.query.split()) <= 4
        assert set(t.query.split()) <= set(terms(" ".join(headline(words))))
        text = " ".join(rec.words)
        spans = judgements([t], recordings, units="chars")
        assert len(spans) >= 1 and spans[0].offset == len(" ".join(rec.words[: t.story.first])) + (t.story.first > 0)
        joined = "".join(text[int(j.offset) : int(j.offset + j.length)] for j in spans)
        assert joined == " ".join(words)
        seconds = judgements([t], recordings, units="seconds")
        assert seconds[0].offset == pytest.approx(rec.starts[t.story.first])
        assert sum(j.length for j in seconds) == pytest.approx(rec.ends[t.story.last] - rec.starts[t.story.first])


def test_perturbed_copies_keep_the_size_not_the_text(newsscape, rng):
    rec = newsscape[0]
    copy = perturbed_copy(rec, name="copy", rng=rng, vocabulary=["alpha", "beta"])
    assert len(copy.words) == len(rec.words) and len(copy.stories) == len(rec.stories)
    assert 0.02 < np.mean([w in ("alpha", "beta") for w in copy.words]) < 0.08
    assert np.all(np.diff(copy.starts) >= -1e-9)
