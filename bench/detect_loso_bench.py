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
from engine.detect import DetectorSettings, frame_features
from engine.detect.analyzer import learned_sound_events, rule_sound_events
from engine.detect.classifier import SoundClassifier
from engine.detect.events import Event
from engine.detect.speech import detect_speech
from tools.detector_corpus import (
    default_cache,
    load_corpus_clip,
    read_manifest,
    shared_recordings,
)
from tools.train_detectors import (
    SCENE_KINDS,
    SR,
    Scene,
    SpeechPool,
    build_scenes,
    choose_alpha,
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


def estimates(scene: Scene, model: SoundClassifier) -> tuple[dict[str, list[tuple[float, float, str]]], dict[str, float]]:
    """What each method finds in a scene (``noise`` included for the two detectors), and CPU seconds."""
    t0 = time.process_time()
    feats = frame_features(scene.audio, sr=SR)
    settings = DetectorSettings()
    t1 = time.process_time()
    learned = learned_sound_events(feats, settings, model)
    t2 = time.process_time()
    rules = rule_sound_events(feats, settings)
    t3 = time.process_time()
    peer = energy_peer(feats.energy_db, feats.frame_seconds)
    found = {
        "learned": [(e.start, e.end, e.type) for e in learned],
        "rules": [(e.start, e.end, e.type) for e in rules],
        "energy peer": [(a, b, k) for a, b in peer for k in KINDS],
    }
    return found, {"features": t1 - t0, "learned": t2 - t1, "rules": t3 - t2}


def run(folds: list[str] | None, seed: int) -> dict:
    cache = default_cache()
    clips = read_manifest()
    packages = sorted({c.package for c in clips if c.kind in KINDS})
    folds = folds or packages
    # a package shipping a copy of another's recording is left out with it
    shared = shared_recordings([c for c in clips if c.kind != "speech"], cache)
    librivox = [c for c in clips if c.package == TEST_SPEECH]
    scores, cpu = Scores(), {"features": 0.0, "learned": 0.0, "rules": 0.0, "audio_seconds": 0.0}
    fa = {m: {k: 0 for k in (*KINDS, "noise")} for m in ("learned", "rules")}
    speech_seconds = 0.0
    beeps = {m: [0.0, 0.0] for m in ("learned", "rules")}  # beep seconds, of which inside speech events
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
        left_out = {package} | shared.get(package, set())
        keep = [j for j, s in enumerate(train_scenes) if not left_out & {s.package, s.speech_package}]
        alpha, inner = choose_alpha([train_scenes[j] for j in keep], [described[j] for j in keep], seed=seed)
        model = fit(np.concatenate([described[j][0] for j in keep]), np.concatenate([described[j][1] for j in keep]),
                    seed=seed, alpha=alpha)  # fmt: skip
        held = [c for c in clips if c.package == package and c.kind in KINDS]
        tests = build_scenes(held, load_speech(librivox, cache, espeak=False), cache=cache, seed=seed + 1000 + i, negatives=0,
                             tones=0, variants={"music": 1, "applause": 8, "laughter": 2})  # fmt: skip
        for j, scene in enumerate(tests):
            found, secs = estimates(scene, model)
            for m in METHODS:
                scores.add(m, scene.condition, f"{package}-{j}", scene.events, [f for f in found[m] if f[2] in KINDS],
                           scene.duration)  # fmt: skip
            for key in ("features", "learned", "rules"):
                cpu[key] += secs[key]
            cpu["audio_seconds"] += scene.duration
        # real speech alone (LibriVox; plain and telephone band): any event is a false alarm
        rng = np.random.default_rng(seed + 2000 + i)
        pool = SpeechPool([load_corpus_clip(c, cache, sample_rate=SR) for c in librivox], rng)
        for scene in negative_scenes(pool, rng, 6, variants=(0, 1)):
            found, _ = estimates(scene, model)
            speech_seconds += scene.duration
            for m in ("learned", "rules"):
                for _a, _b, k in found[m]:
                    fa[m][k] += 1
        for m, (total, inside) in beeps_in_speech(rng, model).items():
            beeps[m][0] += total
            beeps[m][1] += inside
        per_fold[package] = {"test_scenes": len(tests), "held_out_clips": len(held), "training_scenes": len(keep),
                             "left_out": sorted(left_out), "alpha": alpha, "inner_macro_f1": inner,
                             "seconds": time.perf_counter() - t0}  # fmt: skip
        print(f"fold {package}: {len(held)} clips, {len(tests)} scenes, alpha {alpha}, {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)  # fmt: skip
    hours = speech_seconds / 3600
    return {
        "scores": scores.table(),
        "false_alarms_per_hour_of_speech": {m: {k: v / hours for k, v in fa[m].items()} for m in fa},
        "speech_minutes": speech_seconds / 60,
        "beep_share_in_speech": {m: inside / total if total else 0.0 for m, (total, inside) in beeps.items()},
        "cpu_seconds_per_hour": {m: cpu[m] / cpu["audio_seconds"] * 3600 for m in ("features", "learned", "rules")},
        "audio_minutes": cpu["audio_seconds"] / 60,
        "folds": per_fold,
        "seed": seed,
        "machine": platform.processor() or platform.machine(),
    }


def beeps_in_speech(rng: np.random.Generator, model: SoundClassifier) -> dict[str, tuple[float, float]]:
    """Per detector: seconds of 1 kHz beeps (0.2-1 s, in silence) and of those seconds inside detected speech events."""
    parts, spans, t = [np.zeros(SR // 2, dtype=np.float32)], [], 0.5
    for _ in range(8):
        length = rng.uniform(0.2, 1.0)
        n = int(length * SR)
        parts.append((0.1 * np.sin(2 * np.pi * 1000.0 * np.arange(n) / SR)).astype(np.float32))
        spans.append((t, t + length))
        gap = rng.uniform(0.5, 1.5)
        parts.append(np.zeros(int(gap * SR), dtype=np.float32))
        t += length + int(gap * SR) / SR
    audio = np.concatenate(parts) + 1e-4 * rng.standard_normal(sum(len(p) for p in parts)).astype(np.float32)
    feats = frame_features(audio, sr=SR)
    settings = DetectorSettings()
    out = {}
    for m, sounds in (("learned", learned_sound_events(feats, settings, model)), ("rules", rule_sound_events(feats, settings))):
        speech = _speech(feats, sounds)
        inside = sum(max(0.0, min(b, d) - max(a, c)) for a, b in spans for c, d in speech)
        out[m] = (sum(b - a for a, b in spans), inside)
    return out


def _speech(feats: object, sounds: list[Event]) -> list[tuple[float, float]]:
    f = feats
    events = detect_speech(f.vad, vad_frame_seconds=f.vad_frame_seconds, exclude=sounds, duration=f.duration)  # type: ignore[attr-defined]
    return [(e.start, e.end) for e in events]


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
        f"False alarms per hour of real speech ({result['speech_minutes']:.0f} min of LibriVox: plain and telephone "
        "band): " + "; ".join(f"{m}: " + ", ".join(f"{k} {v:.1f}" for k, v in fa[m].items()) for m in fa) + ".",
        "1 kHz beep time inside speech events: "
        + ", ".join(f"{m} {100 * v:.0f} %" for m, v in result["beep_share_in_speech"].items()) + ".",
        "CPU per hour of audio (one core): features "
        f"{result['cpu_seconds_per_hour']['features']:.1f} s; detectors: learned "
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
