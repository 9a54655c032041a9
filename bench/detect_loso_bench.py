"""Music, applause and laughter on sources never seen in training: leave one Debian package out.

For every package that holds music, applause or laughter clips (see ``models/detectors/manifest.json``),
the classifier is trained on the clips of every *other* package (``tools/train_detectors.py``; the
judging speech of :data:`~tools.detector_corpus.JUDGING_SPEECH` is never trained on) and judged on mixtures of the
held-out package's clips with that speech (LibriVox readers, Asterisk's telephone prompts in English and French):
the sound in a pause, the sound over speech (-6 to -15 dB below it;
music beds -10 to -18 dB) and the sound alone. In the same run and on the same audio: today's hand-set
rules (``rule_sound_events``), the energy-threshold peer (every stretch of sound reported as each
kind), the shipped model (the classifier with AudioSet scores, laughter from the zero-shot score), the same
with laughter from its own head (``tools/train_laughter.py``, every number of it chosen in inner folds of
the fold's training packages), the classifier that also reads AudioSet scores ("learned + AudioSet", trained in the same folds
the same way) and the zero-shot peer "AudioSet scores alone" (a class's largest YAMNet logit among
:data:`PEER_CLASSES`, median filtered like the classifier's posteriors, an event where it passes a
threshold chosen per fold on the training scenes for the best segment F1). The shipped model's music events are
shaped by the music shape its fold's inner folds chose (``choose_music_shape``: score source, median, gap bridge,
hysteresis); "shipped, music shaped as before" is the same model with music shaped like the other kinds. Scores are ``sed_eval``'s
event-based F1 (1 s collar, offset within 1 s or half the event) and segment-based F1 (100 ms),
accumulated over all folds; plus false alarms per hour of real speech (the judging speech alone, plain and telephone band),
the share of 1 kHz beep time inside speech events, the share of music-bed time under speech that
the speech gate keeps audible to the recogniser, and CPU seconds per hour of audio of the features,
the AudioSet tagger, the classifiers and the rules.

Writes ``bench/results/detect_loso.json`` and ``bench/results/detect_loso.md``.
Run: ``.venv/bin/python -m bench.detect_loso_bench [--folds PKG ...]`` (about 40 CPU minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import write_result
from bench.detect_bench import energy_peer
from engine.detect import DetectorSettings, frame_features
from engine.detect.analyzer import heard_sound_events, learned_sound_events, rule_sound_events, speech_under_music
from engine.detect.audioset import audioset_logits
from engine.detect.classifier import (
    AUDIOSET_CLASSES,
    EVENT_SHAPE,
    SEGMENT_SECONDS,
    ZERO_SHOT_CLASSES,
    SoundClassifier,
    zero_shot_scores,
)
from engine.detect.events import Event
from engine.detect.features import FrameFeatures
from engine.detect.sounds import score_to_events
from engine.detect.speech import detect_speech
from engine.ingest.speech_gate import speech_spans
from tools.detector_corpus import (
    JUDGING_SPEECH,
    default_cache,
    load_corpus_clip,
    read_manifest,
    shared_recordings,
)
from tools.train_detectors import (
    OTHER_WEIGHT,
    SCENE_KINDS,
    SR,
    ZERO_SHOT_KINDS,
    Scene,
    SpeechPool,
    build_scenes,
    choose_alpha,
    choose_music_shape,
    describe,
    event_counts,
    fit,
    load_speech,
    negative_scenes,
    scene_features,
    segment_labels,
    shape_name,
    zero_shot_thresholds,
)
from tools.train_laughter import choose_laughter_head, laughter_pairs

KINDS = ("music", "applause", "laughter")
#: "shipped": the AudioSet model as ingest runs it: its ``ZERO_SHOT_KINDS`` (laughter) from the zero-shot score, the
#: threshold chosen on the fold's training scenes with a false alarm weighed ``OTHER_WEIGHT`` times a miss, and music
#: events shaped by the music shape chosen in the fold's inner folds (``choose_music_shape``).
SHIPPED = "learned + AudioSet, laughter zero-shot"
#: The shipped model with music events shaped like the other kinds' (network posterior, 0.9 s median, 0.5 s bridge).
MUSIC_AS_BEFORE = "shipped, music shaped as before"
#: The shipped model with laughter from its own head (``tools/train_laughter.py``, every number chosen in inner folds).
HEAD = "shipped, laughter head"
METHODS = (SHIPPED, MUSIC_AS_BEFORE, HEAD, "learned + AudioSet", "learned", "AudioSet alone", "rules", "energy peer")
DETECTORS = (SHIPPED, MUSIC_AS_BEFORE, HEAD, "learned + AudioSet", "learned", "AudioSet alone", "rules")
#: Methods whose music beds under speech are followed one by one (how found, missed by level).
BED_METHODS = (SHIPPED, MUSIC_AS_BEFORE, "learned + AudioSet", "learned", "AudioSet alone")
#: Bands of a bed's level below the speech, dB, lower end included (beds are mixed 10 to under 18 dB below).
BED_LEVEL_BANDS = ((10.0, 12.0), (12.0, 14.0), (14.0, 16.0), (16.0, 18.0))
#: The zero-shot peer's AudioSet classes per kind (its score: the largest of their logits).
PEER_CLASSES = ZERO_SHOT_CLASSES
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


def with_audioset(audio: np.ndarray) -> tuple[FrameFeatures, dict[str, float]]:
    """Frame features with AudioSet logits of ``audio``, and the CPU seconds of each part."""
    t0 = time.process_time()
    feats = frame_features(audio, sr=SR)
    t1 = time.process_time()
    logits = audioset_logits(audio, sr=SR)
    t2 = time.process_time()
    return dataclasses.replace(feats, audioset=logits), {"features": t1 - t0, "audioset": t2 - t1}


def peer_scores(feats: FrameFeatures) -> np.ndarray:
    """The zero-shot peer's smoothed score per 0.1 s segment and kind, shape ``(n_segments, len(KINDS))``."""
    return zero_shot_scores(feats, KINDS)


def peer_thresholds(scores: list[np.ndarray], labels: list[np.ndarray]) -> dict[str, float]:
    """Per kind, the threshold with the best segment F1 over the training scenes given."""
    return zero_shot_thresholds(scores, labels, KINDS)


def peer_events(feats: FrameFeatures, thresholds: dict[str, float]) -> list[Event]:
    """The zero-shot peer's events: where a kind's smoothed score passes its threshold, shaped like the classifier's."""
    scores = peer_scores(feats)
    events: list[Event] = []
    for k, kind in enumerate(KINDS):
        p = 1.0 / (1.0 + np.exp(-(scores[:, k] - thresholds[kind])))  # 0.5 at the threshold
        min_s, gap_s = EVENT_SHAPE[kind]
        events += score_to_events(kind, p, p, frame_seconds=SEGMENT_SECONDS, sensitivity=0.5, min_seconds=min_s,
                                  max_gap_seconds=gap_s)  # fmt: skip
    return events


Found = dict[str, list[tuple[float, float, str]]]


def estimates(scene: Scene, models: dict[str, SoundClassifier],
              thresholds: dict[str, float]) -> tuple[Found, dict[str, float], dict]:  # fmt: skip
    """What each method finds in a scene (``noise`` included for the detectors), CPU seconds, and each
    detector's (features, sounds) for the speech gate."""
    feats, secs = with_audioset(scene.audio)
    settings = DetectorSettings()
    found_events: dict[str, list[Event]] = {}
    for name, key in (("learned + AudioSet", "audioset model"), ("learned", "learned"), (SHIPPED, "shipped"),
                      (MUSIC_AS_BEFORE, "music as before"), (HEAD, "laughter head")):  # fmt: skip
        t0 = time.process_time()
        run_model = heard_sound_events if name == SHIPPED else learned_sound_events  # the shipped one as ingest runs it
        found_events[name] = run_model(feats, settings, models[name])
        secs[key] = time.process_time() - t0
    t0 = time.process_time()
    found_events["rules"] = rule_sound_events(feats, settings)
    secs["rules"] = time.process_time() - t0
    found_events["AudioSet alone"] = peer_events(feats, thresholds)
    peer = energy_peer(feats.energy_db, feats.frame_seconds)
    # "audience" says applause or laughter: scored as both (a hit for the one there, a false alarm for the other)
    found = {m: [(e.start, e.end, k) for e in ev for k in (("applause", "laughter") if e.type == "audience" else (e.type,))]
             for m, ev in found_events.items()}  # fmt: skip
    found["energy peer"] = [(a, b, k) for a, b in peer for k in KINDS]
    return found, secs, {"features": feats, "events": found_events}


def audible_share(feats: FrameFeatures, sounds: list[Event], span: tuple[float, float]) -> float:
    """Share of ``span`` (seconds) that the speech gate lets the recogniser hear, given the detector's ``sounds``."""
    settings = DetectorSettings()
    speech = detect_speech(feats.vad, vad_frame_seconds=feats.vad_frame_seconds,
                           hangover_seconds=settings.speech_hangover_seconds, exclude=sounds,
                           duration=feats.duration)  # fmt: skip
    speech = speech + speech_under_music(feats, sounds, settings)
    spans = speech_spans(sounds, speech, duration=feats.duration)
    a, b = span
    return sum(max(0.0, min(b, d) - max(a, c)) for c, d in spans) / max(b - a, 1e-9)


def run(folds: list[str] | None, seed: int) -> dict:
    cache = default_cache()
    clips = read_manifest()
    packages = sorted({c.package for c in clips if c.kind in KINDS})
    folds = folds or packages
    # a package shipping a copy of another's recording is left out with it
    shared = shared_recordings([c for c in clips if c.kind != "speech"], cache)
    judging = [c for c in clips if c.package in JUDGING_SPEECH]
    scores = Scores()
    cpu = dict.fromkeys(("features", "audioset", "learned", "audioset model", "shipped", "music as before",
                         "laughter head", "rules",
                         "audio_seconds"), 0.0)  # fmt: skip
    fa = {m: {k: 0 for k in (*KINDS, "noise")} for m in DETECTORS}
    speech_seconds = 0.0
    beeps = {m: [0.0, 0.0] for m in DETECTORS}  # beep seconds, of which inside speech events
    audible = {m: [] for m in DETECTORS}  # per music bed under speech: share the gate keeps audible
    pieces = {m: [] for m in BED_METHODS}  # per music bed under speech: how it was found, and its level
    per_fold = {}
    # Training mixtures are built and described once; each fold fits on those free of its package.
    t0 = time.perf_counter()
    pool_clips = [c for c in clips if c.package not in JUDGING_SPEECH]
    speech = load_speech([c for c in pool_clips if c.kind == "speech"], cache)
    train_scenes = build_scenes([c for c in pool_clips if c.kind != "speech"], speech, cache=cache, seed=seed)
    train_features = scene_features(train_scenes, audioset=True)
    described = {"learned": describe(train_scenes, train_features),
                 "learned + AudioSet": describe(train_scenes, train_features, AUDIOSET_CLASSES)}  # fmt: skip
    peer_train = [peer_scores(f) for f in train_features]
    peer_labels = [segment_labels(sc, len(x)) for sc, x in zip(train_scenes, peer_train, strict=True)]
    laughter_train = laughter_pairs(train_features, [y for _, y in described["learned"]])
    del train_features
    print(f"{len(train_scenes)} training scenes in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    for i, package in enumerate(folds):
        t0 = time.perf_counter()
        left_out = {package} | shared.get(package, set())
        keep = [j for j, s in enumerate(train_scenes) if not left_out & {s.package, s.speech_package}]
        models, chosen = {}, {}
        for name, names in (("learned", ()), ("learned + AudioSet", AUDIOSET_CLASSES)):
            rows = [described[name][j] for j in keep]
            alpha, inner = choose_alpha([train_scenes[j] for j in keep], rows, seed=seed, audioset_classes=names)
            models[name] = fit(np.concatenate([x for x, _ in rows]), np.concatenate([y for _, y in rows]), seed=seed,
                               alpha=alpha, audioset_classes=names)  # fmt: skip
            chosen[name] = {"alpha": alpha, "inner_macro_f1": inner}
        thresholds = peer_thresholds([peer_train[j] for j in keep], [peer_labels[j] for j in keep])
        # the shipped zero-shot kinds weigh a false alarm as training weighs "other" rows (OTHER_WEIGHT)
        columns = [KINDS.index(k) for k in ZERO_SHOT_KINDS]
        shipped_thresholds = zero_shot_thresholds([peer_train[j][:, columns] for j in keep], [peer_labels[j] for j in keep],
                                                  ZERO_SHOT_KINDS, false_alarm_weight=OTHER_WEIGHT)  # fmt: skip
        chosen["shipped zero-shot thresholds"] = shipped_thresholds
        models[MUSIC_AS_BEFORE] = dataclasses.replace(models["learned + AudioSet"], zero_shot=tuple(shipped_thresholds.items()))
        shape, shape_scores = choose_music_shape(
            [train_scenes[j] for j in keep], [described["learned + AudioSet"][j] for j in keep],
            zero_shot_threshold=thresholds["music"], alpha=chosen["learned + AudioSet"]["alpha"], seed=seed)  # fmt: skip
        models[SHIPPED] = dataclasses.replace(models[MUSIC_AS_BEFORE], music_shape=shape)
        chosen["music_shape"] = {"chosen": dataclasses.asdict(shape),
                                 "inner_f1": shape_scores[shape_name(shape)]}  # fmt: skip
        head, chosen["laughter head"] = choose_laughter_head(
            [train_scenes[j].package for j in keep], [laughter_train[j] for j in keep],
            speech_packages=[train_scenes[j].speech_package for j in keep], seed=seed)  # fmt: skip
        models[HEAD] = dataclasses.replace(models[SHIPPED], laughter_head=head)
        held = [c for c in clips if c.package == package and c.kind in KINDS]
        tests = build_scenes(held, load_speech(judging, cache, espeak=False), cache=cache, seed=seed + 1000 + i, negatives=0,
                             tones=0, variants={"music": 1, "applause": 8, "laughter": 2})  # fmt: skip
        for j, scene in enumerate(tests):
            found, secs, kept = estimates(scene, models, thresholds)
            for m in METHODS:
                scores.add(m, scene.condition, f"{package}-{j}", scene.events, [f for f in found[m] if f[2] in KINDS],
                           scene.duration)  # fmt: skip
            for key, value in secs.items():
                cpu[key] += value
            cpu["audio_seconds"] += scene.duration
            if scene.condition == "over" and scene.events and scene.events[0][2] == "music":
                for m in DETECTORS:
                    audible[m].append(audible_share(kept["features"], kept["events"][m], scene.events[0][:2]))
                for m in pieces:
                    row = bed_pieces(scene.events[0][:2], [(a, b) for a, b, k in found[m] if k == "music"])
                    pieces[m].append({**row, "below_db": scene.below_db})
        # real speech alone (LibriVox, Asterisk's prompts; plain and telephone band): any event is a false alarm
        rng = np.random.default_rng(seed + 2000 + i)
        for speech_package in JUDGING_SPEECH:
            pool = SpeechPool([load_corpus_clip(c, cache, sample_rate=SR) for c in judging if c.package == speech_package], rng)
            for scene in negative_scenes(pool, rng, 6 if speech_package == JUDGING_SPEECH[0] else 3, variants=(0, 1)):
                found, _, _ = estimates(scene, models, thresholds)
                speech_seconds += scene.duration
                for m in DETECTORS:
                    for _a, _b, k in found[m]:
                        fa[m][k] += 1
        for m, (total, inside) in beeps_in_speech(rng, models, thresholds).items():
            beeps[m][0] += total
            beeps[m][1] += inside
        per_fold[package] = {"test_scenes": len(tests), "held_out_clips": len(held), "training_scenes": len(keep),
                             "left_out": sorted(left_out), "chosen": chosen, "peer_thresholds": thresholds,
                             "seconds": time.perf_counter() - t0}  # fmt: skip
        print(f"fold {package}: {len(held)} clips, {len(tests)} scenes, {chosen}, {thresholds}, "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)  # fmt: skip
    hours = speech_seconds / 3600
    return {
        "scores": scores.table(),
        "false_alarms_per_hour_of_speech": {m: {k: v / hours for k, v in fa[m].items()} for m in fa},
        "speech_minutes": speech_seconds / 60,
        "beep_share_in_speech": {m: inside / total if total else 0.0 for m, (total, inside) in beeps.items()},
        "music_bed_audible_share": {m: float(np.mean(v)) if v else 0.0 for m, v in audible.items()},
        "music_bed_pieces": {m: bed_piece_summary(v) for m, v in pieces.items()},
        "music_bed_missed_by_level": {m: missed_by_level(v) for m, v in pieces.items()},
        "cpu_seconds_per_hour": {m: cpu[m] / cpu["audio_seconds"] * 3600 for m in cpu if m != "audio_seconds"},
        "audio_minutes": cpu["audio_seconds"] / 60,
        "audioset_classes": list(AUDIOSET_CLASSES),
        "peer_classes": PEER_CLASSES,
        "folds": per_fold,
        "seed": seed,
        "machine": platform.processor() or platform.machine(),
    }


def bed_pieces(reference: tuple[float, float], found: list[tuple[float, float]]) -> dict[str, float]:
    """How one music bed (``reference``, seconds) was found: the music events overlapping it, whether one of them
    matches it (1 s collar), and how late the first starts and how early the last ends (seconds; nan when none)."""
    a, b = reference
    inside = sorted((c, d) for c, d in found if min(b, d) > max(a, c))
    hits, _, _ = event_counts([reference], inside)
    return {"pieces": len(inside), "matched": float(hits), "late_start": inside[0][0] - a if inside else float("nan"),
            "early_end": b - inside[-1][1] if inside else float("nan")}  # fmt: skip


def bed_piece_summary(rows: list[dict[str, float]]) -> dict[str, float]:
    """Share of beds missed, found whole, found in pieces and matched; median lateness and early end, seconds."""
    if not rows:
        return {}
    n = np.array([r["pieces"] for r in rows])
    late = [r["late_start"] for r in rows if r["pieces"]]
    early = [r["early_end"] for r in rows if r["pieces"]]
    return {"beds": len(rows), "missed": float(np.mean(n == 0)), "one_piece": float(np.mean(n == 1)),
            "in_pieces": float(np.mean(n > 1)), "matched": float(np.mean([r["matched"] for r in rows])),
            "median_late_start": float(np.median(late)) if late else float("nan"),
            "median_early_end": float(np.median(early)) if early else float("nan")}  # fmt: skip


def share_by_level(rows: list[dict], name: str, counts: Callable[[dict], bool]) -> dict[str, dict[str, float]]:
    """Per band of :data:`BED_LEVEL_BANDS` (dB below the speech, each row's ``below_db``): the beds in it and, as
    ``name``, the share of them for which ``counts`` holds (nan for an empty band)."""
    out = {}
    for low, high in BED_LEVEL_BANDS:
        band = [counts(r) for r in rows if r["below_db"] is not None and low <= r["below_db"] < high]
        out[f"{low:g}-{high:g}"] = {"beds": len(band), name: float(np.mean(band)) if band else float("nan")}
    return out


def missed_by_level(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Per level band: beds (rows of :func:`bed_pieces` with ``below_db``) and the share found by no event at all."""
    return share_by_level(rows, "missed", lambda r: r["pieces"] == 0)


def beeps_in_speech(rng: np.random.Generator, models: dict[str, SoundClassifier],
                    thresholds: dict[str, float]) -> dict[str, tuple[float, float]]:  # fmt: skip
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
    _, _, kept = estimates(Scene(audio), models, thresholds)
    out = {}
    for m in DETECTORS:
        speech = _speech(kept["features"], kept["events"][m])
        inside = sum(max(0.0, min(b, d) - max(a, c)) for a, b in spans for c, d in speech)
        out[m] = (sum(b - a for a, b in spans), inside)
    return out


def _speech(feats: object, sounds: list[Event]) -> list[tuple[float, float]]:
    f = feats
    events = detect_speech(f.vad, vad_frame_seconds=f.vad_frame_seconds, exclude=sounds, duration=f.duration)  # type: ignore[attr-defined]
    return [(e.start, e.end) for e in events]


def scores_table(result: dict) -> str:
    """Event F1 / segment F1 per class, condition and detector, with the targets: a markdown table. The detectors
    are the columns the result holds, in the order of ``METHODS`` (an older result's others after them)."""
    held = list(dict.fromkeys(m for conds in result["scores"].values() for row in conds.values() for m in row))
    methods = [m for m in METHODS if m in held] + [m for m in held if m not in METHODS]
    lines = [
        "| class | condition | events | " + " | ".join(m if m != "rules" else "today's rules" for m in methods) + " | target |",
        "| --- | --- | --- | " + " | ".join("---" for _ in methods) + " | --- |",
    ]
    for kind, conds in result["scores"].items():
        for cond in SCENE_KINDS:
            if cond not in conds:
                continue
            row = conds[cond]
            cells = [f"{row[m]['event_f1']:.2f} / {row[m]['segment_f1']:.2f}" if m in row else "" for m in methods]
            target = TARGETS.get((kind, cond))
            lines.append(f"| {kind} | {cond} | {row['rules']['events']} | " + " | ".join(cells)
                         + f" | {'' if target is None else f'>= {target:.2f}'} |")  # fmt: skip
    return "\n".join(lines)


def markdown(result: dict) -> str:
    lines = [
        "# Sound detectors, leave one package out",
        "",
        f"Held-out mixtures: {result['audio_minutes']:.0f} min of audio over {len(result['folds'])} folds "
        f"(one per Debian or PyPI package); seed {result['seed']}. Event F1 (1 s collar) / segment F1 (100 ms), sed_eval.",
        "",
        scores_table(result),
    ]
    fa = result["false_alarms_per_hour_of_speech"]
    cpu = result["cpu_seconds_per_hour"]
    lines += [
        "",
        f"False alarms per hour of real speech ({result['speech_minutes']:.0f} min of LibriVox and Asterisk prompts: plain "
        "and telephone band; target < 2 per class):",
        "",
        "| detector | " + " | ".join((*KINDS, "noise")) + " |",
        "| --- | " + " | ".join("---" for _ in (*KINDS, "noise")) + " |",
        *[f"| {m} | " + " | ".join(f"{fa[m][k]:.1f}" for k in (*KINDS, "noise")) + " |" for m in fa],
        "",
        "1 kHz beep time inside speech events: "
        + ", ".join(f"{m} {100 * v:.0f} %" for m, v in result["beep_share_in_speech"].items()) + ".",
        "Music bed under speech: share of its time the speech gate keeps audible to the recogniser: "
        + ", ".join(f"{m} {100 * v:.0f} %" for m, v in result["music_bed_audible_share"].items()) + ".",
        "Music beds under speech, how they were found: "
        + "; ".join(f"{m}: {100 * v['missed']:.0f} % missed, {100 * v['one_piece']:.0f} % in one event, "
                    f"{100 * v['in_pieces']:.0f} % in pieces, {100 * v['matched']:.0f} % matched; first event "
                    f"{v['median_late_start']:.1f} s late, last ends {v['median_early_end']:.1f} s early (medians)"
                    for m, v in result.get("music_bed_pieces", {}).items() if v) + ".",
        "Music beds under speech not found at all, by level below the speech: "
        + "; ".join(f"{m}: " + ", ".join(f"{band} dB {100 * v['missed']:.0f} % of {v['beds']}" for band, v in bands.items())
                    for m, bands in result.get("music_bed_missed_by_level", {}).items()) + ".",
        "Music shape chosen in each fold's inner folds: "
        + "; ".join(f"{pkg} {fold['chosen']['music_shape']['chosen']['source']} "
                    f"median {fold['chosen']['music_shape']['chosen']['median_seconds']} s "
                    f"gap {fold['chosen']['music_shape']['chosen']['max_gap_seconds']} s "
                    f"low {fold['chosen']['music_shape']['chosen']['low_fraction']}"
                    for pkg, fold in result["folds"].items()) + ".",
        f"CPU per hour of audio (one core): frame features {cpu['features']:.1f} s, AudioSet tagger {cpu['audioset']:.1f} s; "
        f"detectors: shipped {cpu['shipped']:.2f} s, music shaped as before {cpu['music as before']:.2f} s, "
        f"learned + AudioSet {cpu['audioset model']:.2f} s, "
        f"learned {cpu['learned']:.2f} s, rules "
        f"{cpu['rules']:.2f} s. Features + detectors, shipped against rules: "
        f"{(cpu['features'] + cpu['audioset'] + cpu['shipped']) / max(cpu['features'] + cpu['rules'], 1e-9):.2f} times.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", nargs="*", help="held-out packages (default: every package with sound clips)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--name", default="detect_loso", help="result file name in bench/results (without suffix)")
    args = parser.parse_args(argv)
    result = run(args.folds, args.seed)
    write_result(args.name, result, markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
