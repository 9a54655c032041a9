"""Recognition accuracy, word timing, speed and memory per engine, in one run.

Run from the repository root::

    python bench/asr_bench.py [--minutes 5] [--seed 1] [--memory-minutes 10 60] [--engines whisper pocketsphinx vosk]

Measured, each engine in the same run, each measurement in a fresh process
(so peak RSS is that engine's alone):

* WER on the five LibriVox clips of Debian's ``pocketsphinx-testdata``;
* on a generated broadcast (``tools/broadcast.py``: several espeak-ng voices,
  music beds, noise bursts, applause and laughter clips), through the ingest
  path (``transcribe_file``: recognition of the whole file, the detectors beside
  it, then the speech gate's word drops): WER with numbers spelled out on both
  sides, words placed inside non-speech truth spans per hour, median |word start
  error| of the words aligned to the truth, RTF;
* our Whisper path against ``faster-whisper`` called directly on the same file
  (the same model, beam, VAD and word timestamps): RTF and WER of each;
* peak RSS of recognition over ``--memory-minutes`` long files (the broadcast
  repeated end to end), and of each engine with its model loaded and no audio.

WER is that of a plain (no tuning) system on held-out audio: no engine saw
these recordings. PocketSphinx (``bench/peers.py``, no longer a product engine) is
the simple baseline; ``vosk`` runs the first ``vosk-model-*`` package installed
(the Korean model offline: its WER on English means nothing, its memory does).

Writes ``bench/results/asr.json`` and ``bench/results/asr.md``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import cached_broadcast, write_result  # noqa: E402
from engine.evaluate.word_errors import WordErrors, scoring_tokens, word_errors  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CACHE = Path(os.environ.get("EARSHOT_BENCH_CACHE", Path.home() / ".cache" / "earshot-bench"))
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
NON_SPEECH = {"music", "applause", "laughter", "audience", "crowd", "noise", "silence"}
#: A word counts as placed inside non-speech when its middle lies this far inside a truth span, seconds.
SPAN_MARGIN = 0.1


# -- the measured child process ---------------------------------------------------------------


def load_engine(engine: str) -> Any:
    """The transcriber of ``engine``: ``whisper`` (embedded tiny.en), ``whisper-base`` (the embedded
    Whisper base, the default model), ``vosk`` (the first
    ``vosk-model-*`` package, e.g. the Korean model), ``vosk-renew120`` (the same with the
    earlier memory settings: renewed every 120 s, no heap release) or ``pocketsphinx``
    (the baseline, bench/peers.py)."""
    from engine.asr import load_transcriber
    from models.discover import embedded_whisper, package_models

    if engine == "vosk-renew120":
        import engine.asr.vosk_engine as vosk_engine
        from engine import config

        config.VOSK_RENEW_SECONDS = 120.0
        vosk_engine.release_heap = lambda: False
        engine = "vosk"
    if engine == "pocketsphinx":
        from bench.peers import sphinx_transcriber

        return sphinx_transcriber()
    if engine == "whisper-base":
        from models.embedded_base import embedded_whisper_base

        model = embedded_whisper_base()
    else:
        model = embedded_whisper() if engine == "whisper" else next(iter(package_models()), None)
    if model is None:
        raise SystemExit(f"{engine}: no model for it is installed")
    return load_transcriber(model.spec())


def child(engine: str, paths: list[str], mode: str) -> dict[str, Any]:
    """Transcribe ``paths``: ``mode`` is ``ingest`` (transcribe_file with detectors; ``ingest-memory``: the same,
    sampling RSS as it goes), ``recognise`` (the transcriber alone),
    ``direct`` (faster-whisper called directly) or ``load`` (the model loaded, no audio)."""
    from engine import config
    from engine.audio.decode import iter_pcm_blocks, probe
    from engine.heap import limit_arenas
    from engine.ingest.transcribe import transcribe_file

    limit_arenas()  # as an ingest worker does before its threads start
    t0 = time.perf_counter()
    out: dict[str, Any] = {"files": []}
    if mode == "direct":
        from faster_whisper import WhisperModel

        from models.discover import embedded_whisper

        whisper = embedded_whisper()
        assert whisper is not None, "the embedded Whisper model is not installed"
        model = WhisperModel(str(whisper.path), device="cpu", compute_type="int8", local_files_only=True,
                             cpu_threads=config.WHISPER_CPU_THREADS)
    else:
        transcriber = load_engine(engine)
    out["load_seconds"] = time.perf_counter() - t0
    side_work, side_process = None, None
    if mode == "ingest-memory" and config.SIDE_PROCESS:  # as a single ingest worker hears a long file
        import multiprocessing as mp

        from engine.ingest.pool import start_side_process
        from engine.ingest.side_work import SideWork

        conn, side_process = start_side_process(mp.get_context("spawn"))
        side_work = SideWork(conn)
    for path in paths if mode != "load" else ():
        t1 = time.perf_counter()
        if mode == "direct":
            segments, _ = model.transcribe(path, language="en", beam_size=config.WHISPER_BEAM_SIZE,
                                           word_timestamps=True, vad_filter=True, condition_on_previous_text=False)
            words = [(float(w.start), float(w.end), str(w.word).strip()) for s in segments for w in (s.words or ())]
        elif mode == "ingest":
            transcript = transcribe_file(probe(path), transcriber)
            words = [(w.start, w.end, w.shown) for w in transcript.words]
        elif mode == "ingest-memory":
            rss: list[tuple[float, float]] = []
            heard: list[float] = [0.0]  # the high-water mark when recognition last reported: its peak

            def sample(done: float, total: float, rss: list[tuple[float, float]] = rss, heard: list[float] = heard) -> None:
                _sample_rss(rss, done)
                heard[0] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

            transcript = transcribe_file(probe(path), transcriber, on_progress=sample, side=side_work)
            words = []  # the words of a 3-hour file are not what this run is for
            out["rss_by_minute"] = rss
            out["peak_recognising_mb"] = heard[0]
        else:
            words = [(w.start, w.end, w.shown) for u in transcriber.transcribe(iter_pcm_blocks(path), sr=16000)
                     for w in u]
        out["files"].append({"path": path, "seconds": time.perf_counter() - t1, "words": words})
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if side_process is not None:
        out["side_peak_rss_mb"] = _peak_rss_of(side_process.pid)
        out["side_used"] = bool(side_work and side_work.usable)
        side_process.kill()
    return out


def _peak_rss_of(pid: int) -> float:
    """The high-water mark of process ``pid``'s resident memory (MB; /proc's VmHWM)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


#: Minutes of audio between two RSS samples of an ``ingest-memory`` run.
RSS_EVERY_MINUTES = 10.0


def _sample_rss(samples: list[tuple[float, float]], seconds_done: float) -> None:
    """Append ``(minutes heard, current RSS in MB)`` each time another RSS_EVERY_MINUTES of audio is heard."""
    minutes = seconds_done / 60
    if minutes >= (len(samples) + 1) * RSS_EVERY_MINUTES:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        samples.append((minutes, pages * os.sysconf("SC_PAGE_SIZE") / 2**20))


def run_child(engine: str, paths: list[Path], mode: str) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", engine, mode, *map(str, paths)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{engine} {mode} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- measures ------------------------------------------------------------------------------------


def librivox_refs() -> dict[Path, str]:
    refs = {}
    for line in (LIBRIVOX / "transcription").read_text().splitlines():
        text, _, utt = line.rpartition("(")
        refs[LIBRIVOX / f"{utt.strip(') ')}.wav"] = " ".join(w for w in text.split() if w not in ("<s>", "</s>"))
    return refs


def audio_seconds(path: Path) -> float:
    import soundfile as sf

    return float(sf.info(str(path)).duration)


def _tokens_with_starts(words: list[tuple[float, float, str]]) -> tuple[list[str], list[float | None]]:
    """Scoring tokens of timed words, and for each token the start of its word (first token only)."""
    tokens: list[str] = []
    starts: list[float | None] = []
    for start, _end, text in words:
        toks = scoring_tokens([text])
        tokens += toks
        starts += [start] + [None] * (len(toks) - 1)
    return tokens, starts


def broadcast_measures(words: list[tuple[float, float, str]], truth: dict[str, Any]) -> dict[str, Any]:
    """WER, words inside non-speech truth spans per hour and median |word start error| (s)."""
    ref_words = [(float(w["start"]), float(w["end"]), str(w["text"])) for w in truth["words"]]
    ref, ref_starts = _tokens_with_starts(ref_words)
    hyp, hyp_starts = _tokens_with_starts(words)
    errors = word_errors(ref, hyp)
    offsets = []
    for block in difflib.SequenceMatcher(None, ref, hyp, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            a, b = ref_starts[block.a + k], hyp_starts[block.b + k]
            if a is not None and b is not None:
                offsets.append(abs(a - b))
    spans = [(e["start"] + SPAN_MARGIN, e["end"] - SPAN_MARGIN) for e in truth["events"] if e["type"] in NON_SPEECH]
    inside = sum(any(a < (s + e) / 2 < b for a, b in spans) for s, e, _ in words)
    return {
        "wer": errors.wer, "errors": errors.errors, "ref_words": errors.reference_words,
        "non_speech_words": inside, "non_speech_words_per_hour": inside / (truth["duration"] / 3600),
        "median_start_error": float(np.median(offsets)) if offsets else None, "aligned_words": len(offsets),
    }


def librivox_wer(run: dict[str, Any], refs: dict[Path, str]) -> WordErrors:
    total = WordErrors(0, 0, 0, 0)
    for f in run["files"]:
        total = total + word_errors(scoring_tokens([refs[Path(f["path"])]]), scoring_tokens(w[2] for w in f["words"]))
    return total


def build(minutes: float, seed: int) -> tuple[Path, dict[str, Any]]:
    return cached_broadcast("asr-broadcast-en", minutes, seed, CACHE)


def long_file(source: Path, minutes: float) -> Path:
    """``source`` repeated end to end to at least ``minutes`` (written block by block)."""
    import soundfile as sf

    out = CACHE / f"{source.stem}-x{minutes:g}min.wav"
    if out.exists():
        return out
    audio, sr = sf.read(str(source), dtype="int16")
    need = int(minutes * 60 * sr)
    with sf.SoundFile(str(out) + ".part", "w", samplerate=sr, channels=1, subtype="PCM_16", format="WAV") as dst:
        written = 0
        while written < need:
            piece = audio[: need - written]
            dst.write(piece)
            written += piece.size
    os.replace(str(out) + ".part", out)
    return out


# -- the run ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="length of the generated broadcast")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-minutes", type=float, nargs="*", default=[10.0])
    parser.add_argument("--engines", nargs="+", default=["whisper", "pocketsphinx"])
    parser.add_argument("--memory-only", action="store_true",
                        help="only the long-file memory runs, written to asr-memory-MINUTESmin.json/.md")
    parser.add_argument("--memory-path", choices=("recognise", "ingest"), default="recognise",
                        help="what the memory runs measure: recognition alone, or the whole ingest path "
                        "(written to asr-memory-ingest-MINUTESmin.json/.md)")
    args = parser.parse_args(argv)
    if args.memory_only:
        path, truth = build(args.minutes, args.seed)
        write_memory(memory_runs(path, args), args)
        return 0

    refs = librivox_refs()
    clips = sorted(refs)
    clip_seconds = sum(audio_seconds(p) for p in clips)
    path, truth = build(args.minutes, args.seed)
    rows: list[dict[str, Any]] = []
    for engine in args.engines:
        row: dict[str, Any] = {"engine": engine}
        lib = run_child(engine, clips, "recognise")
        errs = librivox_wer(lib, refs)
        row.update(librivox_wer=errs.wer, librivox_errors=errs.errors, librivox_words=errs.reference_words,
                   librivox_rtf=sum(f["seconds"] for f in lib["files"]) / clip_seconds)
        ing = run_child(engine, [path], "ingest")
        row.update({f"broadcast_{k}": v for k, v in broadcast_measures(ing["files"][0]["words"], truth).items()})
        row.update(broadcast_rtf=ing["files"][0]["seconds"] / truth["duration"], broadcast_rss_mb=ing["peak_rss_mb"])
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    peer: dict[str, Any] = {}
    if "whisper" in args.engines:
        ours = run_child("whisper", [path], "recognise")
        direct = run_child("whisper", [path], "direct")
        for name, run in (("ours", ours), ("direct", direct)):
            m = broadcast_measures(run["files"][0]["words"], truth)
            peer[name] = {"rtf": run["files"][0]["seconds"] / truth["duration"], "wer": m["wer"],
                          "non_speech_words_per_hour": m["non_speech_words_per_hour"],
                          "median_start_error": m["median_start_error"], "peak_rss_mb": run["peak_rss_mb"]}
        peer["time_ratio"] = peer["ours"]["rtf"] / peer["direct"]["rtf"]
        print(json.dumps(peer), file=sys.stderr)
    write_results(rows, peer, memory_runs(path, args), args, truth)
    return 0


def memory_runs(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Peak RSS and RTF of recognition over ``path`` repeated to each of ``args.memory_minutes``,
    and each engine's RSS with its model loaded and no audio (what the model alone holds)."""
    memory = []
    if args.memory_path == "ingest":
        return ingest_memory_runs(path, args)
    for engine in args.engines if args.memory_minutes else ():
        run = run_child(engine, [], "load")
        memory.append({"engine": engine, "minutes": 0.0, "peak_rss_mb": run["peak_rss_mb"], "rtf": None})
        print(json.dumps(memory[-1]), file=sys.stderr)
    for minutes in args.memory_minutes:
        long = long_file(path, minutes)
        for engine in args.engines:
            run = run_child(engine, [long], "recognise")
            memory.append({"engine": engine, "minutes": minutes, "peak_rss_mb": run["peak_rss_mb"],
                           "rtf": run["files"][0]["seconds"] / (minutes * 60)})
            print(json.dumps(memory[-1]), file=sys.stderr)
    return memory


def ingest_memory_runs(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The ingest path (``transcribe_file``: one decode pass, detectors, gate, stories, entities) over ``path``
    repeated to each of ``args.memory_minutes``: peak RSS, RTF and the RSS every RSS_EVERY_MINUTES of audio."""
    memory = []
    for minutes in args.memory_minutes:
        long = long_file(path, minutes)
        for engine in args.engines:
            run = run_child(engine, [long], "ingest-memory")
            memory.append({"engine": engine, "path": "ingest", "minutes": minutes, "peak_rss_mb": run["peak_rss_mb"],
                           "peak_recognising_mb": run.get("peak_recognising_mb"),
                           "side_peak_rss_mb": run.get("side_peak_rss_mb"), "side_used": run.get("side_used"),
                           "rtf": run["files"][0]["seconds"] / (minutes * 60),
                           "rss_by_minute": run["rss_by_minute"]})
            print(json.dumps(memory[-1]), file=sys.stderr)
    return memory


def ingest_memory_table(memory: list[dict[str, Any]]) -> str:
    """Peak RSS of the ingest path over long files (and its peak until recognition ended, where recorded),
    with the RSS after the first sample and at the end, and after the first hour its range and its
    least-squares trend in MB per hour of audio (a file of two hours or more)."""
    lines = ["| engine | minutes | peak RSS | peak while recognising | RSS at 10 min | RSS at the end |"
             " after 1 h: RSS range | after 1 h: trend | RTF | side process's peak RSS |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for m in memory:
        rss = m["rss_by_minute"]
        first = f"{rss[0][1]:.0f} MB" if rss else "-"
        last = f"{rss[-1][1]:.0f} MB ({rss[-1][0]:.0f} min)" if rss else "-"
        heard = f"{m['peak_recognising_mb']:.0f} MB" if m.get("peak_recognising_mb") else "-"
        later = np.array([(minutes / 60, mb) for minutes, mb in rss if minutes >= 60]).reshape(-1, 2)
        span, trend = "-", "-"
        if later.shape[0] >= 3 and m["minutes"] >= 120:
            span = f"{later[:, 1].min():.0f}-{later[:, 1].max():.0f} MB"
            trend = f"{np.polyfit(later[:, 0], later[:, 1], 1)[0]:+.0f} MB/h"
        side = "- (none)" if m.get("side_peak_rss_mb") is None else f"{m['side_peak_rss_mb']:.0f} MB" + (
            "" if m.get("side_used") else " (given up)")
        lines.append(f"| {m['engine']} | {m['minutes']:g} | {m['peak_rss_mb']:.0f} MB | {heard} | {first} | {last} |"
                     f" {span} | {trend} | {m['rtf']:.3f} | {side} |")
    return "\n".join(lines)


def _memory_row(m: dict[str, Any]) -> str:
    if not m["minutes"]:
        return f"| {m['engine']} | model loaded, no audio | {m['peak_rss_mb']:.0f} MB | - |"
    return f"| {m['engine']} | {m['minutes']:g} | {m['peak_rss_mb']:.0f} MB | {m['rtf']:.3f} |"


MEMORY_HEADER = ["| engine | minutes | peak RSS | RTF |", "|---|---|---|---|"]


def memory_table(memory: list[dict[str, Any]]) -> str:
    """Peak RSS and RTF of each long-file memory run, a markdown table."""
    return "\n".join([*MEMORY_HEADER, *(_memory_row(m) for m in memory)])


def write_memory(memory: list[dict[str, Any]], args: argparse.Namespace) -> None:
    tag = "-".join(f"{m:g}" for m in args.memory_minutes)
    if args.memory_path == "ingest":
        lines = ["# Peak RSS of the ingest path over long files", "",
                 f"`python bench/asr_bench.py --memory-only --memory-path ingest --memory-minutes "
                 f"{' '.join(f'{m:g}' for m in args.memory_minutes)} --engines {' '.join(args.engines)}`", "",
                 ingest_memory_table(memory)]
        write_result(f"asr-memory-ingest-{tag}min", {"cpus": os.cpu_count(), "memory": memory}, "\n".join(lines))
        return
    lines = ["# Peak RSS of recognition over long files", "",
             f"`python bench/asr_bench.py --memory-only --memory-minutes "
             f"{' '.join(f'{m:g}' for m in args.memory_minutes)} --engines {' '.join(args.engines)}`", "",
             memory_table(memory)]
    write_result(f"asr-memory-{tag}min", {"cpus": os.cpu_count(), "memory": memory}, "\n".join(lines))


def engines_table(result: dict[str, Any]) -> str:
    """One row per engine: LibriVox and broadcast WER, words in non-speech, word-start error, RTF, memory."""
    lines = [
        "| engine | LibriVox WER | LibriVox RTF | broadcast WER (numbers spelled) | errors | words in non-speech / h |"
        " median start error | broadcast RTF (ingest path) | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["engines"]:
        start = r["broadcast_median_start_error"]
        lines.append(
            f"| {r['engine']} | {r['librivox_wer']:.1%} ({r['librivox_errors']}/{r['librivox_words']}) |"
            f" {r['librivox_rtf']:.2f} | {r['broadcast_wer']:.1%} | {r['broadcast_errors']}/{r['broadcast_ref_words']} |"
            f" {r['broadcast_non_speech_words_per_hour']:.0f} | {'-' if start is None else f'{start:.3f} s'} |"
            f" {r['broadcast_rtf']:.3f} | {r['broadcast_rss_mb']:.0f} MB |"
        )
    return "\n".join(lines)


def direct_table(peer: dict[str, Any]) -> str:
    """Our chunked Whisper path against faster-whisper called directly, a markdown table."""
    lines = ["| path | RTF | WER | words in non-speech / h | median start error | peak RSS |", "|---|---|---|---|---|---|"]
    for name in ("ours", "direct"):
        p = peer[name]
        lines.append(f"| {name} | {p['rtf']:.3f} | {p['wer']:.1%} | {p['non_speech_words_per_hour']:.0f} |"
                     f" {p['median_start_error']:.3f} s | {p['peak_rss_mb']:.0f} MB |")
    return "\n".join(lines)


def markdown(result: dict[str, Any]) -> str:
    """``bench/results/asr.md`` from ``asr.json``."""
    meta = result["meta"]
    lines = ["# Recognition per engine", "", f"`{meta.get('command', 'python bench/asr_bench.py')}`;"
             f" {meta.get('cpus')} CPUs shared, one run.", "", engines_table(result)]
    peer = result.get("whisper_vs_direct")
    if peer:
        lines += ["", "Our Whisper path (chunked, recognition only) against faster-whisper called directly on the same"
                  " file, same model and options:", "", direct_table(peer), "",
                  f"Time ratio ours / direct: {peer['time_ratio']:.2f}."]
    if result.get("memory"):
        lines += ["", "Peak RSS of recognition over long files (the broadcast repeated):", "",
                  memory_table(result["memory"])]
    return "\n".join(lines)


def write_results(rows: list[dict[str, Any]], peer: dict[str, Any], memory: list[dict[str, Any]],
                  args: argparse.Namespace, truth: dict[str, Any]) -> None:
    command = (f"python bench/asr_bench.py --minutes {args.minutes:g} --seed {args.seed} --memory-minutes "
               f"{' '.join(f'{m:g}' for m in args.memory_minutes)}")
    meta = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "broadcast_minutes": truth["duration"] / 60, "seed": args.seed, "broadcast_settings": truth.get("settings"),
            "command": command}
    result = {"meta": meta, "engines": rows, "whisper_vs_direct": peer, "memory": memory}
    write_result("asr", result, markdown(result))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], sys.argv[4:], sys.argv[3])))
        sys.exit(0)
    sys.exit(main())
