"""Story-segmentation benchmark: the HMM against TextTiling, C99 and trivial baselines.

Run from the repository root::

    python bench/segment_bench.py            # full run, a few minutes
    python bench/segment_bench.py --quick    # fewer Lee test documents

Writes ``bench/results/segment.json`` and ``bench/results/segment.md``.

Data (read from ``../shared``, never copied): NewsScape caption days (leave-one-
day-out) and Choi-style concatenations of Lee articles (5-fold cross-validation
over articles, 10 articles per test document). Measures: TDT P(miss), P(false
alarm) and normalised cost with a 50-word probe (pooled over documents), and
nltk's Pk and WindowDiff with k passed explicitly (half the document's mean
reference story length; mean over documents).

Peers: nltk TextTiling (w=20, k=10, the stop-word list below) and C99 from the
``uts`` package (window 4, std_coeff 1.2). Both get the source's sentence
boundaries (captions and articles carry punctuation), which the HMM never sees;
C99 is run on windows of 200 sentences on NewsScape days because it is quadratic.
Baselines: no boundary at all; evenly spaced stories at the training mean length.

HMM rows: the paper's model exactly (all feature weights 1); the same without tying the
coherence features' deep states (an ablation); the paper's features with
each feature group's weight fitted on development data (the shipped recipe); the same
plus SENTENCE-START (a story starts a sentence; the source punctuation the peers get as
well). Each runs at the penalty that minimises the dev TDT cost and at the largest
penalty whose dev P(false alarm) is at most 0.11; the fitted-weights HMM also runs at
each peer's operating point (in every document, the penalty that gives as many
boundaries as the peer placed there; found without reference labels). A penalty sweep
gives each variant's DET curve.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import RESULTS, SHARED, write_result
from engine.evaluate.segmentation import evenly_spaced_starts, half_mean_story_length, score_documents
from engine.research.segment.experiments import (
    hmm_starts,
    hmm_starts_matching,
    leave_one_out,
    lee_folds,
    penalty_sweep,
)
from engine.segment import config
from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES, Coherence
from engine.segment.text import read_corpus, read_lee_articles

#: C99 is quadratic in sentences (and uts loops in Python): long days go in windows of this many sentences.
C99_WINDOW_SENTENCES = 200

_STOP_WORD_TEXT = """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    said says say also one two new like get got going go know think well yeah oh okay right ll ve re s t d m
    don didn doesn isn wasn aren weren won wouldn couldn shouldn can't don't it's i'm that's he's she's there's
    we're they're you're i've we've they've i'll we'll you'll"""

#: English stop words for TextTiling (nltk's corpus download is not available offline).
STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())


# ----------------------------------------------------------------------- peers
def texttiling_starts(transcript) -> np.ndarray:
    """nltk TextTiling over sentences-as-paragraphs; starts mapped back to word indices."""
    from nltk.tokenize.texttiling import TextTilingTokenizer

    sent = transcript.sentence_starts
    edges = np.append(sent, len(transcript))
    paragraphs = [" ".join(transcript.words[a:b]) for a, b in itertools.pairwise(edges)]
    tiler = TextTilingTokenizer(w=20, k=10, stopwords=STOP_WORDS)
    try:
        segments = tiler.tokenize("\n\n".join(paragraphs))
    except ValueError:  # too short for one block comparison
        return np.zeros(1, dtype=np.int64)
    starts, seen = [0], 0
    for segment in segments[:-1]:
        seen += len([p for p in segment.split("\n\n") if p.strip()])
        if seen < sent.size:
            starts.append(int(sent[seen]))
    return np.unique(np.asarray(starts, dtype=np.int64))


def c99_starts(transcript, *, window_sentences: int | None = None) -> np.ndarray:
    """uts C99 over sentences (in windows of ``window_sentences`` for long days)."""
    from uts import C99

    sent = transcript.sentence_starts
    edges = np.append(sent, len(transcript))
    sentences = [" ".join(transcript.words[a:b]) for a, b in itertools.pairwise(edges)]
    step = window_sentences or len(sentences)
    starts = [0]
    for lo in range(0, len(sentences), step):
        chunk = sentences[lo : lo + step]
        if len(chunk) < 3:
            continue
        flags = C99(window=4, std_coeff=1.2).segment(chunk)
        starts.extend(int(sent[lo + i]) for i, f in enumerate(flags) if f and i > 0)
    return np.unique(np.asarray(starts, dtype=np.int64))


# -------------------------------------------------------------------- scoring
def nltk_scores(transcripts, hypotheses) -> dict:
    """Scores with Pk/WindowDiff from nltk (k explicit) and TDT measures from engine.segment."""
    from nltk.metrics.segmentation import pk, windowdiff

    ours = score_documents([t.story_starts for t in transcripts], hypotheses, [len(t) for t in transcripts])
    pks, wds = [], []
    for t, hyp in zip(transcripts, hypotheses, strict=True):
        ref_s, hyp_s = ["0"] * (len(t) - 1), ["0"] * (len(t) - 1)
        for j in t.story_starts[t.story_starts > 0]:
            ref_s[j - 1] = "1"
        for j in np.asarray(hyp)[np.asarray(hyp) > 0]:
            hyp_s[j - 1] = "1"
        k = half_mean_story_length(t.story_starts, len(t))
        pks.append(pk("".join(ref_s), "".join(hyp_s), k=k))
        wds.append(windowdiff("".join(ref_s), "".join(hyp_s), k))
    result = ours.as_dict()
    result["pk"], result["windowdiff"] = float(np.mean(pks)), float(np.mean(wds))
    assert abs(result["pk"] - ours.pk) < 1e-9 and abs(result["windowdiff"] - ours.windowdiff) < 1e-9
    result["reference_boundaries"] = int(sum(int((t.story_starts > 0).sum()) for t in transcripts))
    return result


_PEER_CACHE: dict[str, list[int]] = {}


def cached_peer(name: str, transcript, compute) -> np.ndarray:
    """Peer results depend only on the words and sentences: reuse them across runs (``--peer-cache``)."""
    import hashlib

    text = " ".join(transcript.words) + "|" + ",".join(map(str, transcript.sentence_starts.tolist()))
    key = name + ":" + hashlib.sha1(text.encode()).hexdigest()
    if key not in _PEER_CACHE:
        _PEER_CACHE[key] = [int(x) for x in compute(transcript)]
    return np.asarray(_PEER_CACHE[key], dtype=np.int64)


EXACT = "HMM, the paper's model (all weights 1)"
PAPER = "HMM, paper's features, fitted weights"
SENTENCES = "HMM + SENTENCE-START, fitted weights"

UNTIED = "HMM, the paper's model, coherence untied in deep states (ablation)"

#: The paper's features with one distribution per state for every coherence feature (no tying from the
#: depth where its buffer lies inside the story): the ablation of engine.segment.config.TIE_DEEP_COHERENCE.
UNTIED_FEATURES = tuple(replace(f, tie_coherence=False) if isinstance(f, Coherence) else f for f in DEFAULT_FEATURES)

#: (label, features, fit feature weights) of the HMM variants trained in every fold.
VARIANTS = ((EXACT, DEFAULT_FEATURES, False), (UNTIED, UNTIED_FEATURES, False), (PAPER, DEFAULT_FEATURES, True),
            (SENTENCES, PUNCTUATED_FEATURES, True))


def run_systems(variants: dict, *, c99_window: int | None, extra_models: dict | None = None) -> dict:
    """Decode every test document with every system; score each system over all folds.

    ``variants`` maps a label to folds trained with one feature set; all share the
    same test documents. Besides each variant's cost-tuned penalty and its penalty
    for dev P(fa) <= 0.11, the paper's-features HMM is also run at the operating
    point of each peer (as many boundaries as the peer placed in that document).
    """
    hyps: dict[str, list] = {}
    tests = []
    first = next(iter(variants.values()))
    for k, fold in enumerate(first):
        train_mean = float(fold.model.info.get("mean_story_length") or 0) or _mean_length(fold.model)
        for i, t in enumerate(fold.test):
            tests.append(t)
            for label, folds in variants.items():
                model = folds[k].model
                assert folds[k].test[i].words == t.words, "variants must share their test documents"
                hyps.setdefault(label, []).append(hmm_starts(model, t))
                recall = model.info.get("penalty_at_false_alarm") or {}
                if recall:
                    name = f"{label}, penalty set on dev for P(fa) <= {recall['target']}"
                    hyps.setdefault(name, []).append(hmm_starts(model, t, log_penalty=recall["log_penalty"]))
            for name, model in (extra_models or {}).items():
                hyps.setdefault(name, []).append(hmm_starts(model, t))
            tiling = cached_peer("texttiling", t, texttiling_starts)
            c99 = cached_peer(f"c99-{c99_window}", t, lambda x: c99_starts(x, window_sentences=c99_window))
            hyps.setdefault("TextTiling (nltk)", []).append(tiling)
            hyps.setdefault("C99 (uts)", []).append(c99)
            paper_model = variants[PAPER][k].model
            for peer, starts in (("TextTiling", tiling), ("C99", c99)):
                name = f"{PAPER}, as many boundaries as {peer}"
                hyps.setdefault(name, []).append(hmm_starts_matching(paper_model, t, int((starts > 0).sum())))
            hyps.setdefault("no boundary", []).append(np.zeros(1, dtype=np.int64))
            n_even = max(1, round(len(t) / train_mean))
            hyps.setdefault("evenly spaced", []).append(evenly_spaced_starts(len(t), n_even))
    return {name: nltk_scores(tests, h) for name, h in hyps.items()}


#: Penalties of the DET curves (log units).
SWEEP_PENALTIES = tuple(float(x) for x in np.arange(-4.0, 12.5, 1.0))


def det_curves(variants: dict) -> dict:
    """Pooled P(miss) / P(false alarm) of every variant over the penalty sweep."""
    return {label: penalty_sweep(folds, SWEEP_PENALTIES) for label, folds in variants.items()}


def plot_det(results: dict, path: Path) -> None:
    """P(miss) against P(false alarm): the HMM's penalty sweeps as curves, every other system as a point."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4), dpi=110)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for ax, key in zip(axes, ("lee", "newsscape"), strict=True):
        if key not in results:
            continue
        block = results[key]
        for label, points in block["det"].items():
            ax.plot([p["p_false_alarm"] for p in points], [p["p_miss"] for p in points], marker=".", label=label)
        for name, s in block["scores"].items():
            if name.startswith(("TextTiling", "C99", "evenly")):
                ax.scatter([s["p_false_alarm"]], [s["p_miss"]], marker="x", zorder=3)
                ax.annotate(name.split(" (")[0], (s["p_false_alarm"], s["p_miss"]), fontsize=7,
                            textcoords="offset points", xytext=(4, 4))
        ax.scatter([0.11], [0.14], marker="*", color="k", zorder=3)
        ax.annotate("paper (ABC)", (0.11, 0.14), fontsize=7, textcoords="offset points", xytext=(4, -10))
        ax.set(title=key, xlabel="P(false alarm)", ylabel="P(miss)", xlim=(0, 1), ylim=(0, 1))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


def _mean_length(model) -> float:
    """Mean story length implied by the model's length distribution (tail included)."""
    n = np.arange(1, model.max_state + 1)
    tail_mean = model.max_state + model.length_tail_excess
    return float((n * model.length_density).sum() + model.length_tail * tail_mean)


# ---------------------------------------------------------------------- speed
def speed(transcripts, model) -> dict:
    """Viterbi on ~1M words (numba, sparse) against a dense numpy Viterbi of the same model."""
    from engine.segment.hmm import forward_backward, viterbi

    words, starts, ends = [], [], []
    offset = 0.0
    while len(words) < 1_000_000:
        for t in transcripts:
            words.extend(t.words)
            starts.append(t.starts + offset)
            ends.append(t.ends + offset)
            offset = float(ends[-1][-1]) + 1.0
    n = 1_000_000
    words = words[:n]
    starts_a, ends_a = np.concatenate(starts)[:n], np.concatenate(ends)[:n]
    t0 = time.perf_counter()
    values = model.feature_values(words, starts=starts_a, ends=ends_a)
    bins = model.bins_of(values)
    t_features = time.perf_counter() - t0
    args = (bins, model.weighted_log_emission, model.log_next, model.log_restart, model.log_init)
    viterbi(*(a[:100] if a is bins else a for a in args))  # compile
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        path, _ = viterbi(*args, log_penalty=model.hyper.log_penalty)
        runs.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    forward_backward(*args, log_penalty=model.hyper.log_penalty)
    t_fb = time.perf_counter() - t0
    # Dense numpy Viterbi of the same model (full S x S transition matrix), on a prefix.
    n_dense = 20_000
    dense_path, t_dense = dense_viterbi(model, bins[:n_dense])
    sparse_prefix, _ = viterbi(bins[:n_dense], *args[1:], log_penalty=model.hyper.log_penalty)
    return {
        "words": n,
        "states": model.max_state + 1,
        "features_seconds": t_features,
        "viterbi_seconds_best_of_5": min(runs),
        "forward_backward_seconds": t_fb,
        "dense_numpy_words": n_dense,
        "dense_numpy_seconds": t_dense,
        "dense_numpy_seconds_per_million_words_extrapolated": t_dense * n / n_dense,
        "dense_matches_sparse_path": bool(np.array_equal(dense_path, sparse_prefix)),
        "boundaries_found": int((path == 0).sum()),
    }


def dense_viterbi(model, bins) -> tuple[np.ndarray, float]:
    """Plain numpy Viterbi with a dense (S, S) log transition matrix and stored back-pointers."""
    n_states = model.max_state + 1
    pen = model.hyper.log_penalty
    log_a = np.full((n_states, n_states), -np.inf)
    log_a[:, 0] = model.log_restart + pen
    idx = np.arange(n_states - 1)
    log_a[idx, idx + 1] = model.log_next[:-1]
    log_a[-1, -1] = model.log_next[-1]
    t0 = time.perf_counter()
    n = bins.shape[0]
    obs = np.zeros((n, n_states))
    log_emission = model.weighted_log_emission
    for f in range(bins.shape[1]):
        obs += log_emission[f][bins[:, f]]
    delta = model.log_init + obs[0]
    delta[0] += pen
    back = np.empty((n, n_states), dtype=np.int64)
    cols = np.arange(n_states)
    for t in range(1, n):
        scores = delta[:, None] + log_a
        back[t] = scores.argmax(axis=0)
        delta = scores[back[t], cols] + obs[t]
    path = np.empty(n, dtype=np.int64)
    path[-1] = int(delta.argmax())
    for t in range(n - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, time.perf_counter() - t0


# ------------------------------------------------------------------------ main
def markdown(results: dict) -> str:
    lines = [
        "# Story segmentation benchmark",
        "",
        f"Generated by `bench/segment_bench.py` on {results['machine']}. TDT measures use a "
        f"{config.TDT_PROBE_WORDS}-word probe, pooled over documents; Pk and WindowDiff are nltk's with k = half "
        "the mean reference story length of each document, averaged over documents. Lower is better everywhere.",
        "",
    ]
    for key, title in (("lee", "Lee concatenations (Choi-style, 5-fold CV over articles)"),
                       ("newsscape", "NewsScape captions, leave-one-day-out")):
        if key not in results:
            continue
        block = results[key]
        lines += [f"## {title}", "", block["description"], "",
                  "| system | P(miss) | P(false alarm) | C_seg (norm.) | Pk | WindowDiff | boundaries |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for name, s in block["scores"].items():
            lines.append(f"| {name} | {s['p_miss']:.3f} | {s['p_false_alarm']:.3f} | {s['tdt_cost']:.3f} | "
                         f"{s['pk']:.3f} | {s['windowdiff']:.3f} | {s['boundaries']} |")
        ref = next(iter(block["scores"].values()))["reference_boundaries"]
        lines += ["", f"Reference boundaries: {ref}. Paper (ABC World News Tonight, TDT-2): "
                  "P(miss) 0.14 at P(false alarm) 0.11.", ""]
        lines += ["DET curve (pooled, penalty " + f"{SWEEP_PENALTIES[0]:g} to {SWEEP_PENALTIES[-1]:g}" + "):", "",
                  "| penalty | " + " | ".join(f"{label} P(miss) / P(fa)" for label in block["det"]) + " |",
                  "| ---: | " + " | ".join("---:" for _ in block["det"]) + " |"]
        for i, penalty in enumerate(SWEEP_PENALTIES):
            cells = [f"{pts[i]['p_miss']:.3f} / {pts[i]['p_false_alarm']:.3f}" for pts in block["det"].values()]
            lines.append(f"| {penalty:g} | " + " | ".join(cells) + " |")
        lines += ["", "Plot: `bench/results/segment_det.png`.", ""]
    if "speed" in results:
        s = results["speed"]
        lines += ["## Speed", "", "| what | seconds |", "| --- | ---: |",
                  f"| Viterbi, {s['words']:,} words x {s['states']} states (numba, sparse topology) "
                  f"| {s['viterbi_seconds_best_of_5']:.3f} |",
                  f"| forward-backward posteriors, same input | {s['forward_backward_seconds']:.3f} |",
                  f"| feature extraction + binning, same input | {s['features_seconds']:.3f} |",
                  f"| dense numpy Viterbi, {s['dense_numpy_words']:,} words (same model; same path: "
                  f"{s['dense_matches_sparse_path']}) | {s['dense_numpy_seconds']:.3f} |",
                  f"| dense numpy Viterbi, extrapolated to {s['words']:,} words "
                  f"| {s['dense_numpy_seconds_per_million_words_extrapolated']:.1f} |",
                  f"| training on all four NewsScape days (incl. hyper-parameter search) "
                  f"| {results['train_seconds_newsscape']:.1f} |",
                  f"| the same, with SENTENCE-START | {results['train_seconds_newsscape_punctuated']:.1f} |", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8 instead of 20 Lee test documents per fold")
    parser.add_argument("--peer-cache", type=Path, default=None, metavar="FILE",
                        help="JSON file that keeps TextTiling/C99 results between runs (they are slow)")
    args = parser.parse_args(argv)
    if args.peer_cache and args.peer_cache.is_file():
        _PEER_CACHE.update(json.loads(args.peer_cache.read_text(encoding="utf-8")))
    if not SHARED.is_dir():
        print(f"skipped: {SHARED} is absent", file=sys.stderr)
        return 0
    import nltk
    import uts

    from engine.research.segment.fit import train_model

    results: dict = {
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "packages": {"nltk": nltk.__version__, "uts": getattr(uts, "__version__", "?"),
                     "numpy": np.__version__},
    }
    lee = read_lee_articles(SHARED / "lee" / "lee_background.cor") + read_lee_articles(SHARED / "lee" / "lee.cor")
    t0 = time.perf_counter()
    lee_variants = {
        label: lee_folds(lee, n_folds=5, documents_per_fold=8 if args.quick else 20, articles_per_document=10,
                         train_articles_per_document=40, seed=20260613, features=features, fit_weights=fit)
        for label, features, fit in VARIANTS
    }
    newsscape = read_corpus(SHARED / "newsscape")
    t1 = time.perf_counter()
    default_model = train_model(newsscape)
    results["train_seconds_newsscape"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    train_model(newsscape, features=PUNCTUATED_FEATURES)
    results["train_seconds_newsscape_punctuated"] = time.perf_counter() - t1
    results["lee"] = {
        "description": (f"{len(lee)} articles; per fold, 20 test documents of 10 held-out articles and a model "
                        "trained on the other articles (40 per training document). The NewsScape-trained "
                        "default model is also run unchanged (no retraining) as a cross-domain check."),
        "scores": run_systems(lee_variants, c99_window=None,
                              extra_models={"HMM, NewsScape default model (cross-domain)": default_model}),
        "det": det_curves(lee_variants),
        "hyperparameters": {label: [str(f.model.hyper) for f in folds] for label, folds in lee_variants.items()},
    }
    print(f"Lee done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.peer_cache:
        args.peer_cache.write_text(json.dumps(_PEER_CACHE), encoding="utf-8")
    t0 = time.perf_counter()
    ns_variants = {label: leave_one_out(newsscape, features=features, fit_weights=fit)
                   for label, features, fit in VARIANTS}
    results["newsscape"] = {
        "description": ("Four channel-days (" + ", ".join(t.name[:10] for t in newsscape) + "); each day is "
                        "decoded by a model trained on the other three. Boundaries are story starts and "
                        "commercial-block starts; the 2006-08-03 KCET/KCAL/KTLA/KNBC day has coarse labels."),
        "scores": run_systems(ns_variants, c99_window=C99_WINDOW_SENTENCES),
        "det": det_curves(ns_variants),
        "hyperparameters": {label: [str(f.model.hyper) for f in folds] for label, folds in ns_variants.items()},
    }
    print(f"NewsScape done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.peer_cache:
        args.peer_cache.write_text(json.dumps(_PEER_CACHE), encoding="utf-8")
    results["speed"] = speed(newsscape, default_model)
    write_result("segment", results, markdown(results), indent=2)
    plot_det(results, RESULTS / "segment_det.png")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
