"""search(): every model, hits that play the right seconds, filters, the hot-spot blend, overlaps."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.collection import judgements, make_topics, run_rows
from engine.search import MODELS, SearchFilters, search, transcript_text
from engine.storage.store import Store

from .conftest import VOCABULARY, add_recording, random_text

STORIES = {
    "harbour": "Fishermen protested against the new quota in the northern harbour port on Monday morning.",
    "council": "The council approved the budget for the new hospital after a long debate about nurses.",
    "storm": "Heavy rain flooded several streets and the storm closed schools across the valley district.",
}


@pytest.fixture
def store(rng):
    """Three recordings: random filler with one story each, told twice at different places."""
    s = Store(":memory:")
    for k, (name, story) in enumerate(STORIES.items()):
        filler = [random_text(rng, 150, VOCABULARY[:10]) for _ in range(4)]
        text = " ".join([filler[0], story, filler[1], filler[2], story, filler[3]])
        add_recording(s, f"2006-0{k + 1}-15_{name}.wav", text)
    yield s
    s.close()


@pytest.mark.parametrize("model", MODELS)
def test_every_model_finds_the_story_and_plays_its_words(store, model):
    hits = search(store, "fishermen quota harbour", model=model, limit=5)
    assert hits and hits[0].name.endswith("harbour.wav")
    for h in hits:
        text = transcript_text(store, h.recording_id)
        words = [w["text"] for w in store.words(h.recording_id)]
        assert text[h.char_start : h.char_end] == " ".join(words[h.first_word : h.last_word + 1])
        times = store.words(h.recording_id)
        assert (h.start, h.end) == (times[h.first_word]["start"], times[h.last_word]["end"])
    top = hits[0]
    assert "fishermen" in transcript_text(store, top.recording_id)[top.char_start : top.char_end].lower()
    assert "[Fishermen]" in top.snippet and "[quota]" in top.snippet


@pytest.mark.parametrize("model", MODELS)
def test_no_second_is_returned_twice(store, model):
    hits = search(store, "council budget hospital rain", model=model, limit=50, hotspot_weight=0)
    by_rec: dict[int, list[tuple[int, int]]] = {}
    for h in hits:
        by_rec.setdefault(h.recording_id, []).append((h.first_word, h.last_word))
    for spans in by_rec.values():
        spans.sort()
        assert all(spans[i][1] < spans[i + 1][0] for i in range(len(spans) - 1))


def test_units_of_rmd_and_qwd(store):
    whole = search(store, "storm flooded streets", model="rmd", limit=3)
    assert whole[0].first_word == 0 and whole[0].last_word == len(store.words(whole[0].recording_id)) - 1
    for h in search(store, "storm flooded streets", model="qwd", limit=10):
        assert h.char_end - h.char_start >= 400


def test_nothing_to_find(store):
    assert search(store, "zebra xylophone") == []
    assert search(store, "the of and") == []
    assert search(Store(":memory:"), "council") == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"model": "bm25"}, "unknown model"), ({"limit": 0}, "limit must be"), ({"hotspot_weight": -1}, "hot-spot"),
     ({"filters": SearchFilters(date_from="13/06/2006")}, "YYYY-MM-DD")],
    ids=["model", "limit", "hotspot", "date"],
)
def test_bad_arguments(store, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        search(store, "council", **kwargs)


def test_recording_and_date_filters(store):
    harbour = store.recording("2006-01-15_harbour.wav")["id"]
    query = "fishermen council storm"
    assert {h.recording_id for h in search(store, query, filters=SearchFilters(recordings=(harbour,)))} == {harbour}
    late = search(store, query, filters=SearchFilters(date_from="2006-02-01"))
    assert {h.name for h in late} == {"2006-02-15_council.wav", "2006-03-15_storm.wav"}
    assert search(store, query, filters=SearchFilters(date_to="2005-12-31")) == []


def test_event_and_entity_filters(store):
    rid = store.recording("2006-02-15_council.wav")["id"]
    words = store.words(rid)
    second = [w["idx"] for w in words if w["text"] == "council"][-1]  # the story's second telling
    with store.atomic():
        store.conn.execute("INSERT INTO events (recording_id, type, start, end, score) VALUES (?, 'applause', ?, ?, 0.9)",
                           [rid, words[second]["start"] + 2, words[second]["start"] + 6])
        store.conn.execute("INSERT INTO entities (recording_id, type, text, first_word, last_word, start, end)"
                           " VALUES (?, 'ORGANIZATION', 'council', ?, ?, 0, 0)", [rid, second, second])
    for filters in (SearchFilters(event_types=("applause",)), SearchFilters(entity="Council"),
                    SearchFilters(entity_type="ORGANIZATION")):
        hits = search(store, "council budget hospital", filters=filters)
        assert hits and all(h.recording_id == rid and h.first_word <= second <= h.last_word + 60 for h in hits)
        assert any(h.first_word <= second <= h.last_word for h in hits)
    assert search(store, "council budget", filters=SearchFilters(event_types=("laughter",))) == []


@pytest.mark.parametrize("kind", ["applause", "audience"])  # audience: applause or laughter the detector cannot tell apart
def test_applause_lifts_an_equally_relevant_passage(kind: str):
    s = Store(":memory:")
    story = STORIES["council"] + " " + " ".join(["market shares bank"] * 40)
    a = add_recording(s, "a.wav", story)
    b = add_recording(s, "b.wav", story)
    plain = search(s, "council budget hospital", hotspot_weight=0, limit=2)
    assert {h.recording_id for h in plain} == {a, b} and plain[0].text_score == pytest.approx(plain[1].text_score)
    first, second = (h.recording_id for h in plain)
    with s.atomic():
        s.conn.execute("INSERT INTO events (recording_id, type, start, end, score) VALUES (?, ?, 3.0, 8.0, 1.0)",
                       [second, kind])
    hot = search(s, "council budget hospital", hotspot_weight=0.5, limit=2)
    assert [h.recording_id for h in hot] == [second, first]
    assert hot[0].features["events"] == pytest.approx(1.0) and hot[1].features["events"] == 0.0
    f = hot[0].features  # text scaled to 1, plus weight x (0.5 events + 0.2 rate + 0.3 entities)
    assert hot[0].score == pytest.approx(1.0 + 0.5 * (0.5 * f["events"] + 0.2 * f["rate"] + 0.3 * f["entities"]))
    assert f["rate"] < 0.01 and f["entities"] == 0.0
    assert [e.type for e in hot[0].events] == [kind] and hot[1].events == ()
    assert [h.recording_id for h in search(s, "council budget", filters=SearchFilters(event_types=(kind,)))] == [second]


@pytest.mark.slow  # over 2 s
def test_mm_beats_ql_and_tfidf_on_the_lee_collection(lee_store, lee_sources):
    """The paper's result on a small data-derived collection: 120 topics, character R-precision."""
    from engine.evaluate.passages import compare, evaluate_run

    topics = make_topics(lee_sources, prefix="L")[::2][:120]
    qrels: dict[str, list] = {}
    for j in judgements(topics, lee_sources, units="chars"):
        qrels.setdefault(j.topic, []).append(j)
    evaluations = []
    for model in ("mm", "ql", "tfidf"):
        run = {t.id: run_rows(t.id, search(lee_store, t.query, model=model, limit=30, hotspot_weight=0,
                                           snippets=False), units="chars") for t in topics}
        evaluations.append(evaluate_run(run, qrels, name=model))
    c = compare(evaluations)
    for other in ("ql", "tfidf"):
        for m in ("rprec", "bpref@R", "cap"):
            assert c.means[m]["mm"] > c.means[m][other]
            assert c.p_values[m][("mm", other)] < 0.05


@pytest.mark.slow  # over 2 s
def test_figure_1_on_a_real_run(lee_store, lee_sources):
    """Judged sentence by sentence, a topic has many relevant passages (R_p); cutting the run's passages
    in halves again and again inflates passage R-precision while every character measure stays put
    (the paper's Figure 1)."""
    from engine.evaluate.passages import evaluate_run, halve_passages

    topics = make_topics(lee_sources, prefix="L")[1::3][:80]
    qrels: dict[str, list] = {}
    for j in judgements(topics, lee_sources, units="chars"):
        qrels.setdefault(j.topic, []).append(j)
    run = {t.id: run_rows(t.id, search(lee_store, t.query, model="mm", limit=20, hotspot_weight=0, snippets=False),
                          units="chars") for t in topics}
    series = []
    for _ in range(6):
        series.append(evaluate_run(run, qrels).means())
        run = halve_passages(run)
    psg = [s["psg_rprec"] for s in series]
    assert all(psg[i + 1] > psg[i] for i in range(3)) and psg[-1] > 2 * psg[0]
    for m in ("prec@12000", "bpref@12000", "rprec", "bpref@R", "cap"):
        assert np.ptp([s[m] for s in series]) < 1e-12


def test_candidate_plans_keep_fts5_to_the_rare_terms():
    from engine.search.query import match_expressions

    idf = lambda df: np.log(10_001 / (df + 0.5))  # noqa: E731
    plans = match_expressions(["a", "b", "c"], np.array([100.0, 9000.0, 50.0]), 10_000, budget=4000)
    assert [m for m, _ in plans[0]] == ['"c"', '"a"'] and plans[0][0][1] == pytest.approx(idf(50))
    assert [m for m, _ in plans[1]] == ['"a"', '"b"', '"c"']  # only if the rare terms find nothing
    plans = match_expressions(["a", "b"], np.array([9000.0, 9500.0]), 10_000, budget=4000)
    assert plans[0] == [('"a" AND "b"', pytest.approx(idf(9000) + idf(9500)))]
    assert match_expressions(["a"], np.array([20.0]), 10_000) == [[('"a"', pytest.approx(idf(20)))]]


def test_a_filter_that_excludes_the_rare_terms_falls_back_to_the_common_ones(monkeypatch):
    from engine.search import config

    monkeypatch.setattr(config, "CANDIDATE_MATCH_BUDGET", 5)  # "storm" (12 passages) is over it
    s = Store(":memory:")
    common = " ".join(["storm"] * 30)
    for k in range(12):
        add_recording(s, f"r{k}.wav", common + " market shares bank " * 10)
    rare = add_recording(s, "rare.wav", "council " + "market shares " * 30)
    only = s.recording("r3.wav")["id"]
    with_filter = search(s, "council storm", filters=SearchFilters(recordings=(only,)))
    assert with_filter and {h.recording_id for h in with_filter} == {only}
    assert search(s, "council storm")[0].recording_id == rare


def test_the_default_model_weighs_the_story_around_a_passage():
    """MM mixes the story into each passage's model (0.8/0.1/0.1); RMP does not, so only MM tells these apart."""
    s = Store(":memory:")
    passage = STORIES["council"] + " " + " ".join(["street port election vote"] * 60)  # over one passage long
    on_topic = add_recording(s, "on.wav", passage + " " + " ".join(["council budget hospital nurses"] * 30))
    off_topic = add_recording(s, "off.wav", passage + " " + " ".join(["market shares bank fire"] * 30))

    def opening_scores(**kwargs) -> dict[int, float]:
        hits = search(s, "council budget hospital", hotspot_weight=0, limit=20, **kwargs)
        return {h.recording_id: h.text_score for h in hits if h.first_word == 0}

    default, rmp = opening_scores(), opening_scores(model="rmp")
    assert rmp[on_topic] == pytest.approx(rmp[off_topic])  # the same words: the same passage score
    assert default[on_topic] > default[off_topic] + 0.01
    assert default == opening_scores(model="mm")
