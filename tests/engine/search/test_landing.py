"""Hits land on their words: matched words with times, play-from, prefix, phrases, did-you-mean."""

from __future__ import annotations

import pytest

from engine.search import ModelParams, config, explain, search
from engine.search.text import parse_query
from engine.storage.store import Store
from tests.engine.search.conftest import add_recording

FILLER = ("council budget hospital rain harbour street fishermen quota port senator election vote court judge "
          "police fire minister market shares bank ") * 3


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "index.db")
    add_recording(s, "bulletin", FILLER + "floods in yorkshire closed the new bridge over the river ouse " + FILLER)
    add_recording(s, "weather", FILLER + "heavy rain moved east towards york and new homes near the bridge " + FILLER)
    yield s
    s.close()


def test_hit_plays_from_the_first_matched_word_less_the_lead_in(store):
    hits = search(store, "yorkshire", hotspot_weight=0)
    assert hits[0].name == "bulletin"
    first = hits[0].matches[0]
    assert first.text == "yorkshire"
    words = store.words(hits[0].recording_id)
    assert first.start == words[first.word]["start"]
    assert hits[0].start < first.start - config.LEAD_IN_SECONDS  # the passage opens well before the word
    assert hits[0].play_from == pytest.approx(first.start - config.LEAD_IN_SECONDS)


def test_the_lead_in_never_reaches_before_the_hit(tmp_path):
    with Store(tmp_path / "index.db") as s:
        add_recording(s, "short", "yorkshire floods " + FILLER, stories=[(0, 61)])
        hit = search(s, "yorkshire", hotspot_weight=0)[0]
        assert hit.matches[0].start == hit.start == hit.play_from == 0.0


def test_play_from_never_rounds_to_before_the_hit(tmp_path):
    """A story starting at 3 x 0.4 s = 1.2000000000000002 s whose first word is the query word: played from
    its start, not from 1.2 (the millisecond before it, in the story before)."""
    with Store(tmp_path / "index.db") as s:
        add_recording(s, "stories", "weather sports traffic yorkshire floods " + FILLER, stories=[(0, 2), (3, 64)])
        hit = search(s, "yorkshire floods", hotspot_weight=0)[0]
        assert hit.start == 3 * 0.4 > 1.2 and hit.matches[0].start == hit.start
        assert hit.play_from >= hit.start


def test_every_matched_word_is_a_query_word(store):
    hits = search(store, "bridge river", hotspot_weight=0)
    texts = {w.text for h in hits for w in h.matches}
    assert texts == {"bridge", "river"}
    for h in hits:
        assert [w.word for w in h.matches] == sorted(w.word for w in h.matches)
        assert all(h.first_word <= w.word <= h.last_word for w in h.matches)


def test_json_gives_the_matched_words_times(store):
    d = search(store, "yorkshire")[0].to_dict()
    assert d["matches"][0]["text"] == "yorkshire" and d["play_from"] < d["matches"][0]["start"]


def test_prefix_matches_a_word_being_typed(store):
    assert search(store, "yor", hotspot_weight=0) == []
    hits = search(store, "yor", hotspot_weight=0, prefix=True)
    assert {w.text for h in hits for w in h.matches} == {"york", "yorkshire"}
    assert explain(store, "yor", prefix=True).expansions == ("york", "yorkshire")
    assert search(store, "yor ", hotspot_weight=0, prefix=True) == []  # a space ends the word


def test_quoted_phrase_needs_its_words_together(store):
    loose = search(store, "new bridge", hotspot_weight=0)
    assert {h.name for h in loose} == {"bulletin", "weather"}
    hits = search(store, '"new bridge"', hotspot_weight=0)
    assert {h.name for h in hits} == {"bulletin"}
    for h in hits:
        assert [w.text for w in h.matches] == ["new", "bridge"]


def test_phrase_skips_stop_words_like_the_index(store):
    assert {h.name for h in search(store, '"bridge over the river"', hotspot_weight=0)} == {"bulletin"}
    assert search(store, '"river bridge"', hotspot_weight=0) == []


def test_report_names_ignored_and_unknown_words_with_a_suggestion(store):
    report = explain(store, "the yorkshre of floods")
    assert report.ignored == ("the", "of")
    assert report.unknown == ("yorkshre",)
    assert report.suggestions == {"yorkshre": "yorkshire"}
    assert "did you mean “yorkshire”" in report.message()
    assert "ignored “the”, “of”" in report.message()


def test_stop_words_only_query_is_explained(store):
    assert search(store, "of the") == []
    assert explain(store, "of the").message().startswith("ignored “of”, “the”")


def test_no_suggestion_for_a_word_unlike_any(store):
    assert explain(store, "zzxqv").suggestions == {}


@pytest.mark.parametrize(("query", "terms", "phrases", "partial"), [
    ("flood yor", ("flood", "yor"), (), "yor"),
    ("flood yor ", ("flood", "yor"), (), None),
    ('"new orleans" levee', ("new", "orleans", "levee"), (("new", "orleans"),), "levee"),
    ('"state of the union', ("state", "union"), (("state", "union"),), None),
], ids=["typing", "word-ended", "phrase", "open-quote"])
def test_parse_query(query, terms, phrases, partial):
    parsed = parse_query(query, prefix=True)
    assert (parsed.terms, parsed.phrases, parsed.partial) == (terms, phrases, partial)


def _words(*timed: tuple[float, float, str]) -> tuple:
    from engine.search.query import MatchedWord
    return tuple(MatchedWord(k, a, b, t) for k, (a, b, t) in enumerate(timed))


@pytest.mark.parametrize(("before", "play_from"), [
    ((), 9.0),  # nothing read before the anchor: the plain lead-in
    (((9.0, 9.5, "harbour"), (9.6, 9.9, "closed")), 9.0),  # mid-sentence: the plain lead-in
    (((9.0, 9.5, "harbour"), (9.6, 9.9, "closed.")), 9.9),  # the sentence before ends inside the lead-in
    (((9.0, 9.5, "closed.\u201d"), (9.6, 9.9, "then")), 9.5),  # closing quotes aside; the last end counts
    (((8.5, 8.9, "closed."), (9.0, 9.9, "then")), 9.0),  # that sentence ends before the lead-in starts
    (((9.0, 9.5, "harbour"), (9.55, 9.6, "closed")), 9.6),  # a pause of 0.4 s before the anchor
    (((9.0, 9.5, "harbour"), (9.6, 9.75, "Dr.")), 9.0),  # a title ends no sentence
    (((9.0, 9.5, "harbour"), (9.6, 9.8994, "closed.")), 9.9),  # rounded up: nothing of the word before
])
def test_the_lead_in_stops_where_the_anchors_sentence_begins(before: tuple, play_from: float) -> None:
    from engine.search.query import MatchedWord, _play_from
    anchor = MatchedWord(len(before), 10.0, 10.4, "yorkshire")
    assert _play_from(0.0, anchor, _words(*before)) == pytest.approx(play_from)


def test_a_hit_plays_from_its_sentence_not_the_tail_of_the_one_before(tmp_path):
    with Store(tmp_path / "index.db") as s:
        add_recording(s, "bulletin", FILLER + "the harbour closed. yorkshire floods closed the bridge " + FILLER)
        # the passage as ranked, which opens well before the sentence: the lead-in stops at its start
        hit = search(s, "yorkshire floods", hotspot_weight=0, params=ModelParams(passage_extent="passage"))[0]
        words = s.words(hit.recording_id)
        anchor = hit.matches[0]
        assert words[anchor.word - 1]["text"] == "closed." and hit.start < anchor.start - config.LEAD_IN_SECONDS
        assert hit.play_from == pytest.approx(words[anchor.word - 1]["end"])  # 0.1 s before, not 1 s
        # soft extents open the hit at that sentence: it plays from its first word
        opened = search(s, "yorkshire floods", hotspot_weight=0)[0]
        assert opened.first_word == anchor.word and opened.play_from == opened.start == anchor.start
