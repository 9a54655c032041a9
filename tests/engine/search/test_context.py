"""The mixture model's context windows: a passage's document is the words around it, not its story."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.search import ModelParams, SearchFilters, search
from engine.search.candidates import CandidateLimits, Candidates, gather_context
from engine.search.text import fts_match
from engine.storage.passages import PassageIndex
from engine.storage.store import Store

from .conftest import VOCABULARY, add_recording, random_text

FILLER = VOCABULARY[10:]  # content words only: every word is a token
LIMITS = CandidateLimits(blocks=1000, docs=50, block_budget=1500)


def _candidates(store: Store, term: str, k: int, *, given_whole: bool = False) -> Candidates:
    cands = gather_context(store, [(fts_match([term]), 1.0)], limits=LIMITS, filters=None, context_words=k,
                           given_whole=given_whole)
    assert cands is not None
    return cands


def _text(rng: np.random.Generator, n_words: int, at: int, word: str) -> str:
    words = random_text(rng, n_words, FILLER).split()
    words[at] = word
    return " ".join(words)


def _window_positions(cands: Candidates, p: int) -> np.ndarray:
    lo, hi = cands.passages["ctx_lo"][p], cands.passages["ctx_hi"][p]
    return cands.tokens["position"][lo:hi]


@pytest.mark.parametrize(("confidence", "crosses"), [(None, False), (0.9, True)],
                         ids=["stories-given-with-the-transcript", "stories-from-the-segmenter"])
def test_a_window_stops_at_given_stories_only(tmp_path, rng, confidence: float | None, crosses: bool) -> None:
    with Store(tmp_path / "x.sqlite") as store:
        add_recording(store, "a", _text(rng, 1000, 480, "volcano"), stories=[(0, 499), (500, 999)],
                      confidence=confidence)
        cands = _candidates(store, "volcano", 150)
        assert len(cands.passages["block_lo"])
        crossing = []
        for p in range(len(cands.passages["block_lo"])):
            doc = cands.passages["doc"][p]
            pos = _window_positions(cands, p)
            crossing.append(bool(np.any(pos < cands.docs["first_word"][doc])
                                 or np.any(pos > cands.docs["last_word"][doc])))
        assert any(crossing) is crosses
        assert bool(np.all(cands.passages["ctx_story"])) is (confidence is None)


def test_a_given_story_is_the_whole_document_of_its_passages(tmp_path, rng) -> None:
    with Store(tmp_path / "x.sqlite") as store:
        add_recording(store, "a", _text(rng, 2000, 100, "volcano"), stories=[(0, 1499), (1500, 1999)])
        cands = _candidates(store, "volcano", 150, given_whole=True)
        p, d = cands.passages, cands.docs
        assert set(d["story_idx"][p["doc"]].tolist()) == {0}  # the matched story only
        assert len(p["block_lo"]) == d["n_blocks"][p["doc"][0]] - 1  # every passage of it, not only those near
        assert np.all(p["ctx_lo"] == d["tok_lo"][p["doc"]]) and np.all(p["ctx_hi"] == d["tok_hi"][p["doc"]])
        assert np.all(p["ctx_story"])


def test_windows_are_the_tokens_within_k_words(tmp_path, rng) -> None:
    k = 120
    with Store(tmp_path / "x.sqlite") as store:
        rid = add_recording(store, "a", _text(rng, 1500, 700, "volcano"), stories=[(0, 399), (400, 1499)],
                            confidence=0.5)
        cands = _candidates(store, "volcano", k)
        _, tokens = PassageIndex(store).blocks_in_ranges([(rid, 0, 10_000)])
        b = cands.blocks
        for p in range(len(cands.passages["block_lo"])):
            first, last = b["first_word"][cands.passages["block_lo"][p]], b["last_word"][cands.passages["block_hi"][p]]
            wanted = tokens["position"][(tokens["position"] >= first - k) & (tokens["position"] <= last + k)]
            np.testing.assert_array_equal(_window_positions(cands, p), wanted)


def test_candidates_are_the_passages_within_k_words_of_a_match(tmp_path, rng) -> None:
    k = 150
    with Store(tmp_path / "x.sqlite") as store:
        add_recording(store, "a", _text(rng, 3000, 1500, "volcano"), stories=[(0, 1499), (1500, 2999)],
                      confidence=0.5)
        cands = _candidates(store, "volcano", k)
        b = cands.blocks
        first, last = b["first_word"][cands.passages["block_lo"]], b["last_word"][cands.passages["block_hi"]]
        assert np.all((last >= 1500 - k) & (first <= 1500 + k))  # none farther than K words
        assert first.min() < 1500 - k // 2 and last.max() > 1500 + k // 2  # both sides of the segmenter's cut
        assert len(np.unique(cands.passages["doc"])) == 2


def test_search_with_context_windows_lands_on_the_story_and_keeps_filters(tmp_path, rng) -> None:
    story = "volcano eruption lava ash villagers fled lava flows volcano crater smoke evacuation " * 6
    words = [*random_text(rng, 600, FILLER).split(), *story.split(), *random_text(rng, 600, FILLER).split()]
    with Store(tmp_path / "x.sqlite") as store:
        # the segmenter's cut falls in the middle of the volcano story (words 600-671)
        rid = add_recording(store, "a", " ".join(words), stories=[(0, 635), (636, len(words) - 1)], confidence=0.6)
        other = add_recording(store, "b", _text(rng, 800, 400, "volcano"))
        params = ModelParams(context_words=150)
        hits = search(store, "volcano eruption", limit=3, hotspot_weight=0, params=params)
        assert hits[0].recording_id == rid and hits[0].matches
        assert hits[0].first_word < 672 and hits[0].last_word >= 600
        only = search(store, "volcano", limit=3, hotspot_weight=0, params=params,
                      filters=SearchFilters(recordings=(other,)))
        assert only and {h.recording_id for h in only} == {other}


def test_context_words_must_not_be_negative() -> None:
    with pytest.raises(ParameterError, match="context_words must be >= 0, got -1"):
        ModelParams(context_words=-1)
