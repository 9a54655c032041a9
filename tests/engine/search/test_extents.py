"""Soft passage extents: hits grow from their query words to the boundary evidence around them."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.search import ModelParams, search, transcript_text
from engine.search.extents import (
    ExtentParams,
    _Evidence,
    _topic_terms,
    anchor_run,
    boundary_evidence,
    cohesion_drop,
    cohesion_terms,
    extent_edges,
)
from engine.storage.passages import WordRun
from engine.storage.store import NewRecording, Store, WordRow
from tests.engine.search import naive

# Three stories with words of their own, read at 0.4 s a word; a long pause (6 s) before the second
# and the third, a short one (0.1 s) everywhere else.
FIRST = ("council budget hospital harbour street fishermen quota port ") * 24
SECOND = ("yorkshire floods closed bridge river ouse rescue boats sandbags ") * 2 + ("levee pumps rain " * 20)
THIRD = ("senator election vote court judge police minister market shares ") * 12
STORIES = [FIRST.split(), SECOND.split(), THIRD.split()]


def save(store: Store, name: str, stories: list[list[str]], *, pause: float, cut: bool, whole: bool = False) -> int:
    """The stories one after another, ``pause`` seconds between them; the index cuts them when ``cut``.
    Each story's last word is displayed with a full stop, as a recogniser punctuates it."""
    from engine.search import index_passages

    words, t, spans = [], 0.0, []
    for k, story in enumerate(stories):
        if k:
            t += pause
        spans.append((len(words), len(words) + len(story) - 1))
        for i, w in enumerate(story):
            words.append(WordRow(t, t + 0.3, 0.9, w, w.capitalize() + "." if i == len(story) - 1 else ""))
            t += 0.4
    rid = store.save_recording(NewRecording(
        path=f"/media/{name}", name=name, content_hash=name, size_bytes=1, duration=t, sample_rate=16_000,
        channels=1, codec="pcm", container="wav", engine="text", model="test", language="en", words=words,
        segments=[(i, min(i + 39, len(words) - 1)) for i in range(0, len(words), 40)],
    ))
    with store.atomic():
        if whole:  # one story over everything
            spans = [(0, len(words) - 1)]
        for k, (a, b) in enumerate(spans if cut or whole else []):
            store.conn.execute(
                "INSERT INTO stories (recording_id, idx, first_word, last_word, start, end) VALUES (?, ?, ?, ?, ?, ?)",
                [rid, k, a, b, words[a].start, words[b].end])
        index_passages(store, rid)
    return rid


def second_story_words() -> tuple[int, int]:
    first = len(STORIES[0])
    return first, first + len(STORIES[1]) - 1


@pytest.fixture
def paused(tmp_path):
    """No story cuts in the index; long pauses between the stories."""
    with Store(tmp_path / "index.db") as s:
        save(s, "bulletin", STORIES, pause=6.0, cut=False)
        yield s


def test_the_hit_grows_to_the_pauses_around_its_story(paused):
    hit = search(paused, "yorkshire floods", hotspot_weight=0, limit=5)[0]
    assert (hit.first_word, hit.last_word) == second_story_words()


def test_the_fixed_passage_runs_past_the_story(paused):
    hit = search(paused, "yorkshire floods", hotspot_weight=0, limit=5, params=ModelParams(passage_extent="passage"))[0]
    first, last = second_story_words()
    assert hit.first_word < first or hit.last_word > last


def test_characters_and_seconds_follow_the_words(paused):
    text = transcript_text(paused, 1)
    words = paused.words(1)
    for hit in search(paused, "yorkshire floods levee senator council", hotspot_weight=0, limit=10):
        assert text[hit.char_start : hit.char_end] == " ".join(w["text"] for w in words[hit.first_word : hit.last_word + 1])
        assert (hit.start, hit.end) == (words[hit.first_word]["start"], words[hit.last_word]["end"])
        assert all(hit.first_word <= m.word <= hit.last_word for m in hit.matches)


def test_hits_never_share_a_word(paused):
    hits = search(paused, "yorkshire levee pumps rain council senator", hotspot_weight=0, limit=20)
    taken = np.zeros(len(paused.words(1)), dtype=int)
    for h in hits:
        taken[h.first_word : h.last_word + 1] += 1
    assert len(hits) >= 2 and taken.max() == 1


def test_a_story_cut_in_the_index_stops_the_hit_without_a_pause(tmp_path):
    with Store(tmp_path / "index.db") as s:
        save(s, "bulletin", STORIES, pause=0.1, cut=True)
        hit = search(s, "yorkshire floods", hotspot_weight=0, limit=5)[0]
        assert (hit.first_word, hit.last_word) == second_story_words()


def test_pauses_end_hits_inside_found_stories_not_given_ones(tmp_path):
    """A story the segmenter found (posterior stored) may hide a missed boundary; one given with the
    transcript (no posterior) is kept whole."""
    with Store(tmp_path / "index.db") as s:
        rid = save(s, "bulletin", STORIES, pause=6.0, cut=False, whole=True)
        given = search(s, "yorkshire floods", hotspot_weight=0, limit=5)[0]
        fixed = search(s, "yorkshire floods", hotspot_weight=0, limit=5, params=ModelParams(passage_extent="passage"))[0]
        with s.atomic():
            s.conn.execute("UPDATE stories SET confidence = 0.9 WHERE recording_id = ?", [rid])
        found = search(s, "yorkshire floods", hotspot_weight=0, limit=5)[0]
        assert given.first_word <= fixed.first_word and given.last_word >= fixed.last_word
        assert (given.first_word, given.last_word) != second_story_words()
        assert (found.first_word, found.last_word) == second_story_words()


def test_without_evidence_the_hit_is_the_ranked_passage(tmp_path):
    with Store(tmp_path / "index.db") as s:
        save(s, "bulletin", STORIES, pause=0.1, cut=False)
        soft = search(s, "yorkshire floods", hotspot_weight=0, limit=5,
                      params=ModelParams(extent=ExtentParams(opening_weight=0.0)))[0]
        fixed = search(s, "yorkshire floods", hotspot_weight=0, limit=5, params=ModelParams(passage_extent="passage"))[0]
        assert (soft.first_word, soft.last_word) == (fixed.first_word, fixed.last_word)


def test_a_sentence_end_and_a_short_pause_make_a_boundary_when_weighed_so(tmp_path):
    with Store(tmp_path / "index.db") as s:
        save(s, "bulletin", STORIES, pause=3.0, cut=False)
        default = search(s, "yorkshire floods", hotspot_weight=0, limit=5)[0]
        weighed = search(s, "yorkshire floods", hotspot_weight=0, limit=5, params=ModelParams(
            extent=ExtentParams(sentence_weight=0.5)))[0]  # 0.5 + 3 s / 5 s >= 1
        assert (default.first_word, default.last_word) != second_story_words()
        assert (weighed.first_word, weighed.last_word) == second_story_words()


def test_a_hit_opens_at_its_anchors_sentence_when_weighed_so(tmp_path):
    with Store(tmp_path / "index.db") as s:
        save(s, "bulletin", STORIES, pause=0.1, cut=False)
        closed = search(s, "yorkshire floods", hotspot_weight=0, limit=5, params=ModelParams(
            extent=ExtentParams(opening_weight=0.0)))[0]
        opened = search(s, "yorkshire floods", hotspot_weight=0, limit=5)[0]
        first, _ = second_story_words()
        assert closed.first_word < first  # no evidence: the ranked passage runs into the story before
        assert opened.first_word == first  # opened after the story before's last sentence ("Port.")
        assert opened.last_word == closed.last_word  # the end is found as before


def test_a_hit_that_may_not_shrink_keeps_its_passage(paused):
    grown = search(paused, "yorkshire floods", hotspot_weight=0, limit=5,
                   params=ModelParams(extent=ExtentParams(shrink=False)))[0]
    fixed = search(paused, "yorkshire floods", hotspot_weight=0, limit=5, params=ModelParams(passage_extent="passage"))[0]
    assert grown.first_word <= fixed.first_word and grown.last_word >= fixed.last_word
    assert (grown.first_word, grown.last_word) != second_story_words()


def test_boundary_evidence_weighs_the_cues():
    params = ExtentParams(story_weight=1.0, pause_weight=1.0, pause_seconds=4.0, sentence_weight=0.5)
    starts = np.array([0.0, 1.0, 4.0, 5.0, 6.0])
    ends = np.array([0.5, 1.5, 4.5, 5.5, 6.5])
    story = np.array([False, False, False, True, False])
    sentence = np.array([False, True, False, False, False])
    got = boundary_evidence(starts, ends, story, sentence, params)
    np.testing.assert_allclose(got, [0.0, 0.125, 0.625 + 0.5, 1.125, 0.125])


def test_extent_edges_stop_at_the_nearest_strong_evidence():
    evidence = np.array([0, 1.2, 0, 0.3, 0, 0, 0.9, 0, 1.0, 0, 2.0])
    assert extent_edges(evidence, 4, 5, (3, 6), min_words=1) == (1, 7)
    assert extent_edges(evidence, 1, 2, (0, 3), min_words=1) == (1, 7)  # the anchor's own word opens it
    assert extent_edges(evidence, 9, 9, (8, 9), min_words=1) == (8, 9)  # no evidence after: the fallback edge
    assert extent_edges(evidence, 4, 5, (3, 6), min_words=8) == (3, 6)  # too short: the passage whole


def test_anchor_run_is_the_densest_run():
    assert anchor_run(np.array([2, 80, 85, 90, 200]), width=30) == (80, 90)
    assert anchor_run(np.array([7]), width=30) == (7, 7)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"reach_words": -1}, "extent reach must be >= 0"),
    ({"min_words": 0}, "floor >= 1 words"),
    ({"pause_seconds": 0.0}, "pause scale > 0 s"),
    ({"story_weight": -0.5}, "cue weights must be >= 0"),
    ({"opening_weight": -1.0}, "cue weights must be >= 0"),
    ({"pause_inside_words": -1}, "pause_inside_words must be >= 0, got -1"),
    ({"cohesion_weight": -1.0}, "cohesion weight and feedback hits must be >= 0 and its stretch >= 1 words, got -1.0"),
    ({"cohesion_words": 0}, r"its stretch >= 1 words, got 0.0, 0, 0"),
    ({"cohesion_feedback": -2}, r"its stretch >= 1 words, got 0.0, -2, 20"),
], ids=["negative-reach", "zero-floor", "zero-pause-scale", "negative-weight", "negative-opening", "negative-story-size",
        "negative-cohesion", "empty-cohesion-stretch", "negative-feedback"])
def test_bad_extent_parameters_are_refused(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        ExtentParams(**kwargs)


def test_an_unknown_extent_is_refused():
    with pytest.raises(ParameterError, match="passage_extent must be one of soft, passage, got 'story'"):
        ModelParams(passage_extent="story")


def test_pauses_count_only_where_trusted():
    params = ExtentParams(story_weight=1.0, pause_weight=1.0, pause_seconds=4.0, sentence_weight=0.5)
    starts, ends = np.array([0.0, 9.0, 18.0]), np.array([1.0, 10.0, 19.0])
    story = np.array([0.0, 0.0, 0.6])
    sentence = np.array([True, True, False])
    got = boundary_evidence(starts, ends, story, sentence, params, trusted=np.array([True, False, True]))
    np.testing.assert_allclose(got, [0.0, 0.0, 0.6 + 1.0 + 0.5])


def test_a_story_cut_weighs_its_posterior():
    """A cut the segmenter was unsure of (posterior 0.3) is evidence 0.3, not a wall; a cut without a
    posterior (given, or from an older index) counts whole."""
    run = WordRun(np.arange(10, 16), np.arange(6) * 0.4, np.arange(6) * 0.4 + 0.3, np.ones(6, dtype=np.int64), ())
    docs = [(0, 11, True, 1.0), (12, 13, True, 0.3), (14, 20, True, None)]
    ev = _Evidence.of(run, docs, ExtentParams(pause_weight=0.0, sentence_weight=0.0, opening_weight=0.0))
    assert ev is not None
    np.testing.assert_allclose(ev.evidence, [0, 0, 0.3, 0, 1.0, 0])
    assert _Evidence.of(WordRun(np.array([3, 5]), np.zeros(2), np.zeros(2), np.ones(2, dtype=np.int64), ()), docs,
                        ExtentParams()) is None  # not consecutive: no soft extent


# -- query-time cohesion ---------------------------------------------------------------------------

# Three stories of 80 words each with vocabularies of their own, no pause and no cut between them;
# the query words stand in the middle of the second.
_A = ["harbour", "fishermen", "quota", "trawler", "cannery", "docks"]
_B = ["glacier", "iceberg", "melting", "antarctic", "scientists", "expedition"]
_C = ["orchestra", "symphony", "conductor", "violin", "premiere", "concert"]
COHESIVE = [[_A[i % 6] for i in range(80)], [_B[i % 6] for i in range(80)], [_C[i % 6] for i in range(80)]]
COHESIVE[1][38:42] = ["penguin", "colony", "penguin", "colony"]


def test_cohesion_drop_marks_where_the_cores_words_stop():
    # words 0..9; terms: word w holds term w // 5 (two topics of five words), core = words 1..2
    term_word = np.arange(10)
    term_id = term_word // 5
    got = cohesion_drop(term_id, term_word, 10, (1, 2), words=2)
    np.testing.assert_array_equal(got, [0, 0, 0, 0, 0, 1, 1, 1, 1, 0])  # 3..4 still share; 9: stretch runs out
    with_topic = cohesion_drop(term_id, term_word, 10, (1, 2), words=2, topic_terms=np.array([1]))
    np.testing.assert_array_equal(with_topic, np.zeros(10))


def test_cohesion_drop_matches_its_naive_twin(rng):
    for _ in range(50):
        n = int(rng.integers(2, 60))
        t = int(rng.integers(0, 3 * n))
        term_word = np.sort(rng.integers(0, n, t))
        term_id = rng.integers(0, 12, t)
        a = int(rng.integers(0, n))
        core = (a, int(rng.integers(a, n)))
        words = int(rng.integers(1, 12))
        topic = rng.integers(0, 15, int(rng.integers(0, 3)))
        np.testing.assert_array_equal(cohesion_drop(term_id, term_word, n, core, words=words, topic_terms=topic),
                                      naive.cohesion_drop(term_id, term_word, n, core, words, topic))


def test_cohesion_terms_share_ids_and_drop_short_words_and_plurals():
    ids: dict[str, int] = {}
    a_id, a_word = cohesion_terms(["The", "Floods", "of", "May,", "flood", "ok"], ids)
    b_id, _ = cohesion_terms(["FLOOD"], ids)
    np.testing.assert_array_equal(a_word, [1, 4])  # "The", "of", "May", "ok": stop words or under 4 characters
    assert a_id[0] == a_id[1] == b_id[0]


def test_cohesion_ends_the_hit_where_the_story_changes_without_a_pause(tmp_path):
    with Store(tmp_path / "index.db") as s:
        save(s, "bulletin", COHESIVE, pause=0.1, cut=False)
        plain = search(s, "penguin colony", hotspot_weight=0, limit=5)[0]
        cohesive = search(s, "penguin colony", hotspot_weight=0, limit=5, params=ModelParams(
            extent=ExtentParams(cohesion_weight=1.0, cohesion_words=20)))[0]
        assert (plain.first_word, plain.last_word) != (80, 159)
        assert (cohesive.first_word, cohesive.last_word) == (80, 159)


def test_cohesion_keeps_given_stories_whole(tmp_path):
    """A story given with the transcript (no posterior) is not cut by cohesion, as by pauses."""
    with Store(tmp_path / "index.db") as s:
        rid = save(s, "bulletin", COHESIVE, pause=0.1, cut=False, whole=True)
        params = ModelParams(extent=ExtentParams(cohesion_weight=1.0, cohesion_words=20))
        given = search(s, "penguin colony", hotspot_weight=0, limit=5, params=params)[0]
        with s.atomic():
            s.conn.execute("UPDATE stories SET confidence = 0.9 WHERE recording_id = ?", [rid])
        found = search(s, "penguin colony", hotspot_weight=0, limit=5, params=params)[0]
        assert (given.first_word, given.last_word) != (80, 159)
        assert (found.first_word, found.last_word) == (80, 159)


def test_feedback_terms_are_those_of_two_cores():
    run = WordRun(np.arange(12), np.arange(12) * 0.4, np.arange(12) * 0.4 + 0.3, np.ones(12, dtype=np.int64),
                  ("glacier", "iceberg", "ocean", "polar", "ocean", "walrus", "glacier", "tundra", "ocean",
                   "polar", "snow", "sleet"))
    ev = _Evidence.of(run, [(0, 11, True, 0.9)], ExtentParams(cohesion_weight=1.0), vocab := {})
    assert ev is not None
    got = _topic_terms([(ev, (0, 1)), (ev, (4, 4)), (ev, (8, 9)), (None, (0, 0))], 1)
    assert sorted(k for k, v in vocab.items() if v in got) == ["ocean", "polar"]


@pytest.mark.parametrize(("core", "words", "message"), [
    ((3, 2), 2, r"core \(3, 2\) must lie in 0..9"),
    ((0, 10), 2, r"core \(0, 10\) must lie in 0..9"),
    ((1, 2), 0, "the stretch be >= 1 words, got 0"),
], ids=["reversed-core", "core-past-the-end", "empty-stretch"])
def test_bad_cohesion_cores_are_refused(core, words, message):
    with pytest.raises(ParameterError, match=message):
        cohesion_drop(np.arange(10), np.arange(10), 10, core, words=words)
