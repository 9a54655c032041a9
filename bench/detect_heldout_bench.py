"""What the timeline shows on sounds no detector model or threshold was chosen on: music pieces a silence
apart, ambience, and real speech under steady noise, under a music bed and spoken quietly.

Held-out sources (Debian packages the detector corpus of ``tools/detector_corpus.py`` does not hold,
fetched by ``tools/sound_clips.py``): music from funnyboat (JDruid's "Trip on the Funny Boat") and
chromium-bsu-data (game and menu music); ambience from minetest-data (fire, water, lava, a furnace, a
cart), pachi-data (a storm: thunder and rain) and chromium-bsu-data (two explosions: rumble). Speech:
pocketsphinx-testdata's LibriVox readings (never trained on; the speech-under-music threshold that the
speech rules reuse was set with ten training music clips under them, so for speech under music they are
not wholly unseen).

Compared in the same run: "shipped" (ingest's sound model, ``audioset``, with what its zero-shot scores
settle, :mod:`engine.detect.ambience`, and music cut at silence), "before" (the same network without
those: the events as they were) and a plain baseline (music: every stretch of sound is music; speech:
webrtcvad alone, no sound detector).

Music: scenes of three or four excerpts of 6-12 s, separated by 1.5-4 s of digital silence or of
-70 dBFS room noise; music event F1 with sed_eval's collar (onset within 1 s, offset within
max(1 s, half the event)). Beds: 16 s of music with 0.3 s dips 30 dB down every 3 s (one event each).
Ambience: seconds labelled speech per hour. Speech: the share of its time labelled speech, and noise
events per hour of speech.

Writes ``bench/results/detect_heldout.json`` and ``.md``.
Run: ``.venv/bin/python -m bench.detect_heldout_bench`` (a few CPU minutes; ``--quick``: under one).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import soundfile as sf

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import bench_parser, write_result  # noqa: E402
from engine.detect import DetectorSettings, frame_features  # noqa: E402
from engine.detect.analyzer import _noise_outside, audio_events, speech_under_music  # noqa: E402
from engine.detect.audioset import AudioSetModel  # noqa: E402
from engine.detect.classifier import AUDIOSET_MODEL, default_classifier, detect_sounds  # noqa: E402
from engine.detect.events import Event  # noqa: E402
from engine.detect.features import FrameFeatures  # noqa: E402
from engine.detect.frames import active_frames, close_and_prune, frames_of, mask_spans  # noqa: E402
from engine.detect.speech import detect_speech  # noqa: E402
from tools.sound_clips import fetch_clips, load_clip  # noqa: E402

SR = 16000
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
METHODS = ("shipped", "before", "baseline")
SPEECH_CONDITIONS = ("clean", "white noise 15 dB", "white noise 10 dB", "white noise 5 dB", "white noise 0 dB",
                     "music bed 10 dB", "music bed 5 dB", "music bed 0 dB", "quiet (-25 dB)")  # fmt: skip
QUICK_CONDITIONS = ("clean", "white noise 5 dB", "music bed 5 dB")
Span = tuple[float, float]


def before_events(feats: FrameFeatures) -> tuple[list[Event], list[Event]]:
    """Sounds and speech as the AudioSet model gave them before: network events and the steady-noise rule only."""
    sounds = detect_sounds(feats, model=default_classifier(AUDIOSET_MODEL))
    sounds = sounds + _noise_outside(feats, sounds)
    speech = detect_speech(feats.vad, vad_frame_seconds=feats.vad_frame_seconds, exclude=sounds, duration=feats.duration)
    return sounds, speech + speech_under_music(feats, sounds, DetectorSettings())


def baseline_events(feats: FrameFeatures) -> tuple[list[Event], list[Event]]:
    """Every stretch of sound as music; webrtcvad's speech as speech."""
    fs = feats.frame_seconds
    mask = close_and_prune(active_frames(feats.energy_db), max_gap=frames_of(0.3, fs), min_length=frames_of(1.0, fs))
    music = [Event("music", a * fs, b * fs, 1.0, 1.0) for a, b in mask_spans(mask)]
    return music, detect_speech(feats.vad, vad_frame_seconds=feats.vad_frame_seconds, duration=feats.duration)


def events_by(method: str, feats: FrameFeatures) -> tuple[list[Event], list[Event]]:
    if method == "shipped":
        return audio_events(feats, DetectorSettings())
    return before_events(feats) if method == "before" else baseline_events(feats)


def matched(reference: list[Span], found: list[Span]) -> int:
    """Events of ``found`` matching one of ``reference`` each (sed_eval's onset and offset collars), one to one."""
    free, hits = list(reference), 0
    for a, b in found:
        for r in free:
            if abs(a - r[0]) <= 1.0 and abs(b - r[1]) <= max(1.0, 0.5 * (r[1] - r[0])):
                free.remove(r)
                hits += 1
                break
    return hits


def music_scenes(music: list[np.ndarray], rng: np.random.Generator, n: int) -> list[tuple[np.ndarray, list[Span]]]:
    """``n`` scenes of three or four held-out music excerpts a silence apart, and the excerpts' spans, seconds."""
    out = []
    for i in range(n):
        parts, spans, t = [np.zeros(SR, np.float32)], [], 1.0
        for _ in range(int(rng.integers(3, 5))):
            clip = music[int(rng.integers(len(music)))]
            length = min(len(clip), int(rng.uniform(6, 12) * SR))
            start = int(rng.integers(0, len(clip) - length + 1))
            piece = clip[start : start + length] * 10 ** (rng.uniform(-10, 0) / 20)
            spans.append((t, t + length / SR))
            gap = np.zeros(int(rng.uniform(1.5, 4.0) * SR), np.float32)
            parts += [piece.astype(np.float32), gap]
            t += (length + len(gap)) / SR
        audio = np.concatenate(parts)
        if i % 2:  # a real pause: room noise rather than digital silence
            audio = audio + (10 ** (-70 / 20) * rng.standard_normal(len(audio))).astype(np.float32)
        out.append((audio, spans))
    return out


def speech_scene(speech: np.ndarray, condition: str, bed: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One LibriVox reading in ``condition``: white noise or a music bed at an SNR, or 25 dB quieter."""
    level = np.sqrt(np.mean(speech**2))
    if condition == "clean":
        return speech
    if condition.startswith("quiet"):
        return (speech * 10 ** (-25 / 20)).astype(np.float32)
    snr = float(condition.split()[-2])
    if condition.startswith("white"):
        other = rng.standard_normal(len(speech)).astype(np.float32)
    else:
        start = int(rng.integers(0, len(bed) - len(speech)))
        other = bed[start : start + len(speech)]
    return (speech + other * level / np.sqrt(np.mean(other**2)) * 10 ** (-snr / 20)).astype(np.float32)


def run(seed: int, *, quick: bool = False) -> dict:
    """Every measure; ``quick``: three music scenes, one ambience scene, three speech conditions."""
    rng = np.random.default_rng(seed)
    tagger = AudioSetModel.shipped()
    music = [load_clip(p, sample_rate=SR) for p in fetch_clips("music")]
    ambience = [load_clip(p, sample_rate=SR) for p in fetch_clips("ambience")]

    counts = {m: {"reference": 0, "found": 0, "matched": 0} for m in METHODS}
    for audio, spans in music_scenes(music, rng, 3 if quick else 8):
        feats = frame_features(audio, sr=SR, audioset=tagger)
        for m in METHODS:
            found = [(e.start, e.end) for e in events_by(m, feats)[0] if e.type == "music"]
            counts[m]["reference"] += len(spans)
            counts[m]["found"] += len(found)
            counts[m]["matched"] += matched(spans, found)

    beds = {m: [] for m in METHODS}
    for clip in music:
        bed = np.tile(clip, int(np.ceil(16 * SR / len(clip))))[: 16 * SR].copy()
        for start in range(2 * SR, 15 * SR, 3 * SR):
            bed[start : start + int(0.3 * SR)] *= 10 ** (-30 / 20)
        feats = frame_features(bed, sr=SR, audioset=tagger)
        for m in ("shipped", "before"):
            beds[m].append(sum(1 for e in events_by(m, feats)[0] if e.type == "music"))

    ambience_speech = dict.fromkeys(METHODS, 0.0)
    ambience_seconds = 0.0
    for _ in range(1 if quick else 3):
        parts = []
        for clip in ambience:
            looped = np.tile(clip, int(np.ceil(8 * SR / len(clip))))[: 8 * SR]
            parts += [looped * 10 ** (rng.uniform(-15, 0) / 20), np.zeros(SR // 2, np.float32)]
        audio = np.concatenate(parts).astype(np.float32)
        audio += (10 ** (-70 / 20) * rng.standard_normal(len(audio))).astype(np.float32)
        feats = frame_features(audio, sr=SR, audioset=tagger)
        ambience_seconds += feats.duration
        for m in METHODS:
            ambience_speech[m] += sum(e.duration for e in events_by(m, feats)[1])
    hiss = (0.03 * rng.standard_normal(60 * SR)).astype(np.float32)  # a minute of steady white noise alone
    feats = frame_features(np.concatenate([np.zeros(SR, np.float32), hiss]), sr=SR, audioset=tagger)
    hiss_speech = {m: 3600.0 * sum(e.duration for e in events_by(m, feats)[1]) / 60.0 for m in METHODS}

    bed_music = np.concatenate(music)
    speech_rows: dict[str, dict[str, dict[str, float]]] = {}
    for condition in QUICK_CONDITIONS if quick else SPEECH_CONDITIONS:
        totals = {m: {"speech": 0.0, "noise": 0} for m in METHODS}
        seconds = 0.0
        for wav in sorted(LIBRIVOX.glob("*.wav")):
            x, sr = sf.read(wav, dtype="float32")
            feats = frame_features(speech_scene(x, condition, bed_music, rng), sr=sr, audioset=tagger)
            seconds += feats.duration
            for m in METHODS:
                sounds, speech = events_by(m, feats)
                totals[m]["speech"] += sum(e.duration for e in speech)
                totals[m]["noise"] += sum(1 for e in sounds if e.type == "noise")
        speech_rows[condition] = {m: {"speech_share": totals[m]["speech"] / seconds,
                                      "noise_per_hour": 3600.0 * totals[m]["noise"] / seconds} for m in METHODS}  # fmt: skip

    def f1(c: dict[str, int]) -> float:
        return 2.0 * c["matched"] / max(1, c["reference"] + c["found"])

    return {
        "seed": seed,
        "sources": {"music": ["funnyboat", "chromium-bsu-data"],
                    "ambience": ["minetest-data", "pachi-data", "chromium-bsu-data"],
                    "speech": ["pocketsphinx-testdata (LibriVox)"]},
        "music_alone_split_by_silence": {m: {**counts[m], "event_f1": f1(counts[m])} for m in METHODS},
        "beds_with_dips_events": beds,
        "ambience_seconds": ambience_seconds,
        "ambience_speech_seconds_per_hour": {m: 3600.0 * ambience_speech[m] / ambience_seconds for m in METHODS},
        "white_noise_speech_seconds_per_hour": hiss_speech,
        "speech": speech_rows,
    }


def markdown(r: dict) -> str:
    m = r["music_alone_split_by_silence"]
    n_ref = m["shipped"]["reference"]
    lines = [
        "# Held-out sounds: music a silence apart, ambience, speech under noise",
        "",
        f"Held out: music of {', '.join(r['sources']['music'])}; ambience of {', '.join(r['sources']['ambience'])}; "
        f"speech of {r['sources']['speech'][0]}; seed {r['seed']}.",
        "",
        "| measure | shipped | before | baseline |",
        "| --- | --- | --- | --- |",
        f"| music alone, a silence apart: event F1 ({n_ref} excerpts) | "
        + " | ".join(f"{m[k]['event_f1']:.2f}" for k in METHODS) + " |",
        "| music beds with brief dips: events per bed (1 is right) | "
        + " | ".join(" ".join(str(n) for n in r["beds_with_dips_events"][k]) for k in ("shipped", "before")) + " |  |",
        f"| ambience ({r['ambience_seconds'] / 60:.1f} min): seconds labelled speech per hour | "
        + " | ".join(f"{r['ambience_speech_seconds_per_hour'][k]:.0f}" for k in METHODS) + " |",
        "| white noise alone (1 min): seconds labelled speech per hour | "
        + " | ".join(f"{r['white_noise_speech_seconds_per_hour'][k]:.0f}" for k in METHODS) + " |",
    ]  # fmt: skip
    for condition, row in r["speech"].items():
        cells = (f"{row[k]['speech_share']:.2f} / {row[k]['noise_per_hour']:.0f}" for k in METHODS)
        lines.append(f"| speech, {condition}: share labelled speech / noise events per hour | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__ or "", "three music scenes, one ambience scene, three speech conditions (not for docs)")
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args(argv)
    result = run(args.seed, quick=args.quick)
    write_result("detect_heldout-quick" if args.quick else "detect_heldout", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
