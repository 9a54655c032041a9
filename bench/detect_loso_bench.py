"""Music, applause and laughter on sources never seen in training: leave one Debian package out.

For every package that holds music, applause or laughter clips (see ``models/detectors/manifest.json``),
the classifier is trained on the clips of every *other* package (``tools/train_detectors.py``; the
LibriVox speech of ``pocketsphinx-testdata`` is never trained on) and judged on mixtures of the held-out
package's clips with LibriVox speech: the sound in a pause, the sound over speech (-6 to -15 dB below it;
music beds -10 to -18 dB) and the sound alone. In the same run and on the same audio: today's hand-set
rules (``rule_sound_events``) and the energy-threshold peer (every stretch of sound reported as each
kind). Scores are ``sed_eval``'s event-based F1 (1 s collar, offset within 1 s or half the event) and
segment-based F1 (100 ms), accumulated over all folds; plus false alarms per hour of real speech
(LibriVox alone, telephone band, with beeps), the share of 1 kHz beep time inside speech events, and
CPU seconds per hour of audio of the classifier and of the rules.

Writes ``bench/results/detect_loso.json`` and ``bench/results/detect_loso.md``.
Run: ``.venv/bin/python -m bench.detect_loso_bench [--folds PKG ...]`` (about 20 CPU minutes).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import write_result
from bench.detect_bench import energy_peer
from engine.detect import DetectorSettings, analyze, frame_features
from engine.detect.analyzer import rule_sound_events
from engine.detect.classifier import detect_sounds
from tools.detector_corpus import (
    default_cache,
    load_corpus_clip,
    read_manifest,
)
from tools.train_detectors import (
    SCENE_KINDS,
    SR,
    Scene,
    SpeechPool,
    build_scenes,
    fit,
    load_speech,
    negative_scenes,
    scene_descriptors,
)

KINDS = ("music", "applause", "laughter")
TEST_SPEECH = "pocketsphinx-testdata"
METHODS = ("learned", "rules", "energy peer")
TARGETS = {("applause", "pause"): 0.85, ("applause", "over"): 0.6, ("laughter", "pause"): 0.75,
           ("laughter", "over"): 0.75, ("laughter", "alone"): 0.75, ("music", "over"): 0.8, ("music", "alone"): 0.8}  # fmt: skip


class Scores:
    """sed_eval metrics accumulated over scenes, one pair per (method, condition)."""

    def __init__(self) -> None:
        import sed_eval

        self._sed = sed_eval
        self.metrics: dict[tuple[str, str], tuple[object, object]] = {}

    def add(self, method: str, condition: str, scene_id: str, reference: list[tuple[float, float, str]],
            estimated: list[tuple[float, float, str]], duration: float) -> None:  # fmt: skip
        import dcase_util

        key = (method, condition)
        if key not in self.metrics:
            ev = self._sed.sound_event.EventBasedMetrics(event_label_list=list(KINDS), t_collar=1.0, percentage_of_length=0.5)
            seg = self._sed.sound_event.SegmentBasedMetrics(event_label_list=list(KINDS), time_resolution=0.1)
            self.metrics[key] = (ev, seg)
        ev, seg = self.metrics[key]

        def rows(spans: list[tuple[float, float, str]]) -> object:
            return dcase_util.containers.MetaDataContainer(
                [{"event_label": k, "onset": a, "offset": b, "filename": scene_id} for a, b, k in spans]
            )

        ref, est = rows(reference), rows(estimated)
        ev.evaluate(reference_event_list=ref, estimated_event_list=est)  # type: ignore[attr-defined]
        seg.evaluate(reference_event_list=ref, estimated_event_list=est, evaluated_length_seconds=duration)  # type: ignore[attr-defined]

    def table(self) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
        out: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
        for (method, condition), (ev, seg) in self.metrics.items():
            e, s = ev.results_class_wise_metrics(), seg.results_class_wise_metrics()  # type: ignore[attr-defined]
            for k in KINDS:
                n_ref = e[k]["count"]["Nref"]
                if not n_ref:
                    continue
                out.setdefault(k, {}).setdefault(condition, {})[method] = {
                    "event_f1": e[k]["f_measure"]["f_measure"], "segment_f1": s[k]["f_measure"]["f_measure"],
                    "events": int(n_ref)}  # fmt: skip
        return out


def estimates(scene: Scene, model: object) -> tuple[dict[str, list[tuple[float, float, str]]], dict[str, float]]:
    """What each method finds in a scene, and CPU seconds of the learned and the rule detectors."""
    feats = frame_features(scene.audio, sr=SR)
    settings = DetectorSettings()
    t0 = time.process_time()
    learned = detect_sounds(feats, model=model)  # type: ignore[arg-type]
    t1 = time.process_time()
    rules = rule_sound_events(feats, settings)
    t2 = time.process_time()
    peer = energy_peer(feats.energy_db, feats.frame_seconds)
    found = {
        "learned": [(e.start, e.end, e.type) for e in learned if e.type in KINDS],
        "rules": [(e.start, e.end, e.type) for e in rules if e.type in KINDS],
        "energy peer": [(a, b, k) for a, b in peer for k in KINDS],
    }
    return found, {"learned": t1 - t0, "rules": t2 - t1}


def run(folds: list[str] | None, seed: int) -> dict:
    cache = default_cache()
    clips = read_manifest()
    packages = sorted({c.package for c in clips if c.kind in KINDS})
    folds = folds or packages
    librivox = [c for c in clips if c.package == TEST_SPEECH]
    scores, cpu = Scores(), {"learned": 0.0, "rules": 0.0, "audio_seconds": 0.0}
    fa = {m: {k: 0 for k in KINDS} for m in ("learned", "rules")}
    speech_seconds, beep_seconds, beep_in_speech = 0.0, 0.0, 0.0
    per_fold = {}
    # Training mixtures are built and described once; each fold fits on those free of its package.
    t0 = time.perf_counter()
    pool_clips = [c for c in clips if c.package != TEST_SPEECH]
    speech = load_speech([c for c in pool_clips if c.kind == "speech"], cache)
    train_scenes = build_scenes([c for c in pool_clips if c.kind != "speech"], speech, cache=cache, seed=seed)
    described = scene_descriptors(train_scenes)
    print(f"{len(train_scenes)} training scenes in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    for i, package in enumerate(folds):
        t0 = time.perf_counter()
        keep = [j for j, s in enumerate(train_scenes) if package not in (s.package, s.speech_package)]
        model = fit(np.concatenate([described[j][0] for j in keep]), np.concatenate([described[j][1] for j in keep]),
                    seed=seed)  # fmt: skip
        held = [c for c in clips if c.package == package and c.kind in KINDS]
        tests = build_scenes(held, load_speech(librivox, cache, espeak=False), cache=cache, seed=seed + 1000 + i, negatives=0,
                             variants={"music": 1, "applause": 8, "laughter": 2})  # fmt: skip
        for j, scene in enumerate(tests):
            found, secs = estimates(scene, model)
            for m in METHODS:
                scores.add(m, scene.condition, f"{package}-{j}", scene.events, found[m], scene.duration)
            cpu["learned"] += secs["learned"]
            cpu["rules"] += secs["rules"]
            cpu["audio_seconds"] += scene.duration
        # real speech alone (LibriVox; plain, telephone band, with beeps): any event is a false alarm
        rng = np.random.default_rng(seed + 2000 + i)
        pool = SpeechPool([load_corpus_clip(c, cache, sample_rate=SR) for c in librivox], rng)
        for scene in negative_scenes(pool, rng, 6, variants=(0, 1, 2)):
            found, _ = estimates(scene, model)
            speech_seconds += scene.duration
            for m in ("learned", "rules"):
                for _a, _b, k in found[m]:
                    fa[m][k] += 1
        beep_seconds_fold, inside = beeps_in_speech(rng)
        beep_seconds += beep_seconds_fold
        beep_in_speech += inside
        per_fold[package] = {"test_scenes": len(tests), "held_out_clips": len(held), "training_scenes": len(keep),
                             "seconds": time.perf_counter() - t0}  # fmt: skip
        print(f"fold {package}: {len(held)} clips, {len(tests)} scenes, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    hours = speech_seconds / 3600
    return {
        "scores": scores.table(),
        "false_alarms_per_hour_of_speech": {m: {k: v / hours for k, v in fa[m].items()} for m in fa},
        "speech_minutes": speech_seconds / 60,
        "beep_share_in_speech": beep_in_speech / beep_seconds if beep_seconds else 0.0,
        "cpu_seconds_per_hour": {m: cpu[m] / cpu["audio_seconds"] * 3600 for m in ("learned", "rules")},
        "audio_minutes": cpu["audio_seconds"] / 60,
        "folds": per_fold,
        "seed": seed,
        "machine": platform.processor() or platform.machine(),
    }


def beeps_in_speech(rng: np.random.Generator) -> tuple[float, float]:
    """Seconds of 1 kHz beeps (0.2-1 s, in silence) and of those seconds inside detected speech events."""
    parts, spans, t = [], [], 0.5
    parts.append(np.zeros(SR // 2, dtype=np.float32))
    for _ in range(8):
        length = rng.uniform(0.2, 1.0)
        n = int(length * SR)
        parts.append((0.1 * np.sin(2 * np.pi * 1000.0 * np.arange(n) / SR)).astype(np.float32))
        spans.append((t, t + length))
        gap = rng.uniform(0.5, 1.5)
        parts.append(np.zeros(int(gap * SR), dtype=np.float32))
        t += length + int(gap * SR) / SR
    audio = np.concatenate(parts) + 1e-4 * rng.standard_normal(sum(len(p) for p in parts)).astype(np.float32)
    det = analyze(frame_features(audio, sr=SR))
    speech = [(e.start, e.end) for e in det.events if e.type == "speech"]
    inside = sum(max(0.0, min(b, d) - max(a, c)) for a, b in spans for c, d in speech)
    return sum(b - a for a, b in spans), inside


def markdown(result: dict) -> str:
    lines = [
        "# Sound detectors, leave one package out",
        "",
        f"Held-out mixtures: {result['audio_minutes']:.0f} min of audio over {len(result['folds'])} folds "
        f"(one per Debian package); seed {result['seed']}. Event F1 (1 s collar) / segment F1 (100 ms), sed_eval.",
        "",
        "| class | condition | events | learned | today's rules | energy peer | target |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for kind, conds in result["scores"].items():
        for cond in SCENE_KINDS:
            if cond not in conds:
                continue
            row = conds[cond]
            cells = [f"{row[m]['event_f1']:.2f} / {row[m]['segment_f1']:.2f}" for m in METHODS]
            target = TARGETS.get((kind, cond))
            lines.append(f"| {kind} | {cond} | {row['learned']['events']} | " + " | ".join(cells)
                         + f" | {'' if target is None else f'>= {target:.2f}'} |")  # fmt: skip
    fa = result["false_alarms_per_hour_of_speech"]
    lines += [
        "",
        f"False alarms per hour of real speech ({result['speech_minutes']:.0f} min of LibriVox: plain, telephone band, "
        "with beeps): " + "; ".join(f"{m}: " + ", ".join(f"{k} {v:.1f}" for k, v in fa[m].items()) for m in fa) + ".",
        f"1 kHz beep time inside speech events: {100 * result['beep_share_in_speech']:.0f} %.",
        "CPU per hour of audio (features excluded, one core): learned "
        f"{result['cpu_seconds_per_hour']['learned']:.2f} s, rules {result['cpu_seconds_per_hour']['rules']:.2f} s "
        f"(ratio {result['cpu_seconds_per_hour']['learned'] / max(result['cpu_seconds_per_hour']['rules'], 1e-9):.2f}).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", nargs="*", help="held-out packages (default: every package with sound clips)")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args(argv)
    result = run(args.folds, args.seed)
    write_result("detect_loso", result, markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
