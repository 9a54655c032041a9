"""Can a music bed under speech be heard from the cues at hand? Leave one music package out, by the bed's level.

The shipped detector misses many music beds mixed 10-18 dB under speech
(``bench/detect_loso_bench.py``). This bench asks whether the missing beds are within reach of
cues the detector does not read yet, before any of them is built into it. For each package that
holds music, a cue's scorer is fitted on beds from every other package (mixed under the training
speech, as ``tools/train_detectors.py`` mixes them) and on speech alone, and judged on the held-out
package's beds under the judging speech (LibriVox, Asterisk's prompts) that training never hears:

- **quiet frames**: what sounds in the gaps of the speech. In a 2 s window around each 0.1 s
  segment, the quietest quarter of the frames: their level above the recording's floor, the
  window's 10th and 50th percentile levels, and the quiet frames' mean flatness, chroma
  stability, voicing, shape stability, flux and eight cepstral coefficients; a logistic model
  (false segments weighed eight times a miss, as the detector's training weighs them);
- **quiet frames + Music logit**: the same with YAMNet's "Music" logit added;
- **Music logit**: YAMNet's "Music" logit alone (zero-shot: nothing fitted but the threshold).

Each score is median filtered over 2.9 s (the shipped music shape's median). Its threshold is
fitted on training data only: the lowest at which at most 2 % of the training speech-alone scenes
ever pass it. Music events are where the smoothed score stays above the threshold for 2 s or more
(gaps up to 0.5 s bridged; ``engine.detect.music_beds.music_events``), and a bed counts as heard when
an event overlaps it: found, as ``bench/detect_loso_bench.py`` counts a bed found, so "heard" here is
"not missed" there. Speech-alone scenes are plain, telephone-band and over hiss (beeps are the tone
class's). Reported: beds heard per band of level below the speech and per held-out package, and the
share of held-out speech-alone scenes with a music event (a false alarm).

Writes ``bench/results/music_bed_cues.json`` and ``.md``.
Run: ``.venv/bin/python -m bench.music_bed_cues_bench`` (about 10 CPU minutes).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import scipy.ndimage
import scipy.special
from numpy.lib.stride_tricks import sliding_window_view
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import write_result
from bench.detect_loso_bench import bed_pieces, share_by_level
from engine.detect.classifier import SEGMENT_SECONDS, audioset_logits_per_segment
from engine.detect.features import FrameFeatures
from engine.detect.frames import silence_floor_db
from engine.detect.music_beds import MusicShape, music_events
from tools.detector_corpus import JUDGING_SPEECH, default_cache, read_manifest
from tools.train_detectors import (
    OTHER_WEIGHT,
    Scene,
    SpeechPool,
    build_scenes,
    load_speech,
    negative_scenes,
    scene_features,
    segment_labels,
)

CUES = ("quiet frames", "quiet frames + Music logit", "Music logit")
WINDOW_SECONDS = 2.0
QUIET_PERCENTILE = 25.0
MEDIAN_SECONDS = 2.9
#: Events open and hold at the threshold (no hysteresis), bridge gaps up to 0.5 s and last 2 s or more.
EVENT_SHAPE = MusicShape(median_seconds=MEDIAN_SECONDS, max_gap_seconds=0.5, low_fraction=1.0)
#: Share of training speech-alone scenes allowed to pass the threshold.
TRAINING_FALSE_ALARMS = 0.02
#: Speech-alone variants of :func:`tools.train_detectors.negative_scenes`: plain, telephone band, over hiss.
SPEECH_VARIANTS = (0, 1, 4)


def quiet_frame_descriptors(features: FrameFeatures) -> np.ndarray:
    """Per 0.1 s segment, what sounds in the quietest quarter of the frames of a 2 s window around it,
    float64 shape ``(n_segments, 16)`` (see the module docstring)."""
    energy = features.energy_db.astype(np.float64)
    energy = np.clip(energy - silence_floor_db(energy), 0.0, 80.0)
    width = max(3, round(WINDOW_SECONDS / features.frame_seconds))
    centres = np.arange(0, features.n_frames, max(1, round(SEGMENT_SECONDS / features.frame_seconds)))

    def windows(x: np.ndarray) -> np.ndarray:
        padded = np.pad(x, [(width // 2, width - width // 2 - 1)] + [(0, 0)] * (x.ndim - 1), mode="edge")
        return sliding_window_view(padded, width, axis=0)[centres]

    e = windows(energy)  # (n_segments, width)
    quiet = (e <= np.percentile(e, QUIET_PERCENTILE, axis=1, keepdims=True)).astype(np.float64)
    quiet /= quiet.sum(axis=1, keepdims=True)
    columns = [(e * quiet).sum(axis=1), np.percentile(e, 10, axis=1), np.percentile(e, 50, axis=1)]
    for name in ("flatness", "chroma_stability", "voicing", "shape_stability", "flux"):
        columns.append((windows(getattr(features, name).astype(np.float64)) * quiet).sum(axis=1))
    cepstra = windows(features.cepstrum.astype(np.float64))  # (n_segments, n_cepstra, width)
    columns += list((cepstra * quiet[:, None, :]).sum(axis=2).T)
    return np.stack(columns, axis=1)


def smoothed(score: np.ndarray) -> np.ndarray:
    return scipy.ndimage.median_filter(score, size=max(1, round(MEDIAN_SECONDS / SEGMENT_SECONDS)) | 1, mode="nearest")


def threshold_for(negative_scores: Sequence[np.ndarray]) -> float:
    """The lowest threshold that at most :data:`TRAINING_FALSE_ALARMS` of the (smoothed) scenes ever pass."""
    peaks = np.sort([float(s.max()) for s in negative_scores])
    allowed = int(np.floor(TRAINING_FALSE_ALARMS * len(peaks)))
    return float(peaks[len(peaks) - 1 - allowed])


def events(excess: np.ndarray) -> list[tuple[float, float]]:
    """Music events (start, end; seconds) where a smoothed score minus its threshold (``excess``, per 0.1 s segment)
    stays above zero, shaped as the detector shapes music (:func:`engine.detect.music_beds.music_events`: runs of
    at least 2 s, gaps up to :data:`EVENT_SHAPE`'s bridged)."""
    found = music_events(scipy.special.expit(excess), EVENT_SHAPE, segment_seconds=SEGMENT_SECONDS)
    return [(e.start, e.end) for e in found]


def heard(excess: np.ndarray, bed: tuple[float, float]) -> bool:
    """Whether a music event (:func:`events`) overlaps the ``bed`` (start, end; seconds): as the detector bench
    counts a bed found (:func:`bench.detect_loso_bench.bed_pieces`)."""
    return bed_pieces(bed, events(excess))["pieces"] > 0


class Described:
    """One scene's labels (1: music), quiet-frame descriptors and Music logit per segment."""

    def __init__(self, scene: Scene, features: FrameFeatures) -> None:
        self.scene = scene
        self.quiet = quiet_frame_descriptors(features)
        self.music = audioset_logits_per_segment(features, ("Music",))[:, 0]
        self.labels = (segment_labels(scene, len(self.quiet)) == 1).astype(np.int64)

    def inputs(self, cue: str) -> np.ndarray:
        return self.quiet if cue == "quiet frames" else np.column_stack([self.quiet, self.music])


def described(scenes: list[Scene]) -> list[Described]:
    return [Described(s, f) for s, f in zip(scenes, scene_features(scenes, audioset=True), strict=True)]


def speech_alone(speech: dict[str, list[np.ndarray]], n_per_package: int, seed: int) -> list[Scene]:
    rng = np.random.default_rng(seed)
    return [s for _, audio in sorted(speech.items())
            for s in negative_scenes(SpeechPool(audio, rng), rng, n_per_package, variants=SPEECH_VARIANTS)]  # fmt: skip


def scorer(cue: str, train: list[Described]) -> Callable[[Described], np.ndarray]:
    """A function from a described scene to its raw score per segment, fitted on ``train`` (nothing for the logit)."""
    if cue == "Music logit":
        return lambda d: d.music
    x = np.concatenate([d.inputs(cue) for d in train])
    y = np.concatenate([d.labels for d in train])
    scale = StandardScaler().fit(x)
    model = LogisticRegression(C=1.0, class_weight={0: OTHER_WEIGHT, 1: 1}, max_iter=2000).fit(scale.transform(x), y)
    return lambda d: model.decision_function(scale.transform(d.inputs(cue)))


def run(seed: int) -> dict:
    cache = default_cache()
    clips = read_manifest()
    music = [c for c in clips if c.kind == "music"]
    packages = sorted({c.package for c in music})
    train_speech = load_speech([c for c in clips if c.kind == "speech" and c.package not in JUDGING_SPEECH], cache)
    judging = load_speech([c for c in clips if c.package in JUDGING_SPEECH], cache, espeak=False)
    train_beds = described(build_scenes(music, train_speech, cache=cache, seed=seed, negatives=0, tones=0,
                                        conditions=("over",), variants={"music": 2}))  # fmt: skip
    train_speech_alone = described(speech_alone(train_speech, 40, seed + 1))
    test_beds = described(build_scenes(music, judging, cache=cache, seed=seed + 2, negatives=0, tones=0,
                                       conditions=("over",), variants={"music": 1}))  # fmt: skip
    test_speech_alone = described(speech_alone(judging, 25, seed + 3))
    beds: dict[str, list[dict]] = {cue: [] for cue in CUES}
    false_alarms: dict[str, list[float]] = {cue: [] for cue in CUES}
    thresholds: dict[str, dict[str, float]] = {cue: {} for cue in CUES}
    for package in packages:
        train = [d for d in train_beds if d.scene.package != package] + train_speech_alone
        for cue in CUES:
            score = scorer(cue, train)
            threshold = threshold_for([smoothed(score(d)) for d in train_speech_alone])
            thresholds[cue][package] = threshold
            for d in test_beds:
                if d.scene.package == package:
                    beds[cue].append({"package": package, "below_db": d.scene.below_db,
                                      "heard": heard(smoothed(score(d)) - threshold, d.scene.events[0][:2])})  # fmt: skip
            false_alarms[cue].append(float(np.mean([bool(events(smoothed(score(d)) - threshold))
                                                    for d in test_speech_alone])))  # fmt: skip
        print(f"fold {package} done", file=sys.stderr)
    return {
        "beds_heard_by_level": {cue: share_by_level(rows, "heard", lambda r: r["heard"]) for cue, rows in beds.items()},
        "beds_heard_by_package": {cue: share_by_package(rows, packages) for cue, rows in beds.items()},
        "beds_heard": {cue: float(np.mean([r["heard"] for r in rows])) for cue, rows in beds.items()},
        "held_out_speech_false_alarm_share": {cue: float(np.mean(v)) for cue, v in false_alarms.items()},
        "thresholds": thresholds,
        "beds": len(test_beds),
        "training_beds": len(train_beds),
        "speech_alone_scenes": {"training": len(train_speech_alone), "held_out": len(test_speech_alone)},
        "seed": seed,
    }


def share_by_package(rows: list[dict], packages: list[str]) -> dict[str, float]:
    return {p: float(np.mean([r["heard"] for r in rows if r["package"] == p])) for p in packages}


def markdown(result: dict) -> str:
    bands = list(next(iter(result["beds_heard_by_level"].values())))
    lines = [
        "# Music beds under speech: which cues hear them (leave one music package out)",
        "",
        f"{result['beds']} held-out beds under the judging speech, 10-18 dB below it; seed {result['seed']}. A bed is heard when "
        "a music event (2 s or more above a threshold set on the training speech alone, which at most "
        f"{100 * TRAINING_FALSE_ALARMS:g} % of its scenes pass) overlaps it.",
        "",
        "| cue | beds heard | " + " | ".join(f"{b} dB below" for b in bands)
        + " | held-out speech-alone scenes with a music event |",
        "| --- | ---: | " + " | ".join("---:" for _ in bands) + " | ---: |",
    ]
    for cue in CUES:
        levels = result["beds_heard_by_level"][cue]
        lines.append(f"| {cue} | {100 * result['beds_heard'][cue]:.0f} % | "
                     + " | ".join(f"{100 * levels[b]['heard']:.0f} % of {levels[b]['beds']}" for b in bands)
                     + f" | {100 * result['held_out_speech_false_alarm_share'][cue]:.0f} % |")  # fmt: skip
    lines += [
        "",
        "Beds heard per held-out package:",
        "",
        "| cue | " + " | ".join(result["beds_heard_by_package"][CUES[0]]) + " |",
        "| --- | " + " | ".join("---:" for _ in result["beds_heard_by_package"][CUES[0]]) + " |",
    ]
    for cue in CUES:
        lines.append(f"| {cue} | " + " | ".join(f"{100 * v:.0f} %" for v in result["beds_heard_by_package"][cue].values()) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)
    result = run(args.seed)
    write_result("music_bed_cues", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
