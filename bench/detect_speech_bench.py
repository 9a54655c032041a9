"""What ingest's detectors do to real speech and to beeps, for each ``DetectorSettings.sound_model``.

The analyzer's sound detectors with the shipped classifier run on the real speech of Debian
``pocketsphinx-testdata`` (never in the classifier's training data: five LibriVox sentences,
five spoken card names, three command and number recordings; 44 s, several speakers), plain
and telephone band, utterances in a shuffled cycle with short pauses: every music, applause,
laughter or noise event there is a false alarm. Then on beeps (1 kHz sines and the training generator's
other beeps, DTMF pairs and buzzers, with another seed), alone in near silence and in the pauses
between LibriVox sentences: the share of beep time inside speech events. On the speech, also the
share of its time (webrtcvad's speech, before any sound is cut out) that the speech gate of ingest
silences: words the recogniser never hears. In the same run: the rules without the classifier's
tones (as they were), CPU seconds per hour of the sound detectors (for ``audioset``, the AudioSet
tagger's CPU is counted too).

Writes ``bench/results/detect_speech.json`` and ``.md``.
Run: ``.venv/bin/python -m bench.detect_speech_bench`` (about a CPU minute).
"""

from __future__ import annotations

import dataclasses
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.signal

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import write_result  # noqa: E402
from engine.detect import DetectorSettings, frame_features  # noqa: E402
from engine.detect.analyzer import rule_sound_events, sound_events, speech_under_music  # noqa: E402
from engine.detect.audioset import audioset_logits  # noqa: E402
from engine.detect.events import Event  # noqa: E402
from engine.detect.speech import detect_speech  # noqa: E402
from engine.ingest.speech_gate import speech_spans  # noqa: E402
from tools.detector_corpus import default_cache, load_corpus_clip, read_manifest  # noqa: E402
from tools.sound_clips import load_clip  # noqa: E402
from tools.train_detectors import SR, SpeechPool, beep  # noqa: E402

RESULTS = REPO / "bench" / "results"
SETTINGS = ("rules", "learned", "audioset", "rules without tones")
SOUND_TYPES = ("music", "applause", "laughter", "audience", "noise")


def _sounds(features: object, setting: str) -> list[Event]:
    if setting == "rules without tones":
        return rule_sound_events(features, DetectorSettings())  # type: ignore[arg-type]
    return sound_events(features, DetectorSettings(sound_model=setting))  # type: ignore[arg-type]


def _speech(features: object, sounds: list[Event]) -> list[Event]:
    f = features
    return detect_speech(f.vad, vad_frame_seconds=f.vad_frame_seconds, exclude=sounds, duration=f.duration)  # type: ignore[attr-defined]


def silenced_seconds(features: object, sounds: list[Event]) -> tuple[float, float]:
    """Seconds of webrtcvad's speech (no sound cut out), and of those the speech gate silences given ``sounds``."""
    f = features
    heard = _speech(f, [])
    speech = _speech(f, sounds) + speech_under_music(f, sounds, DetectorSettings())  # type: ignore[arg-type]
    spans = speech_spans(sounds, speech, duration=f.duration)  # type: ignore[attr-defined]
    total = sum(e.duration for e in heard)
    kept = sum(max(0.0, min(b, e.end) - max(a, e.start)) for a, b in spans for e in heard)
    return total, total - kept


def with_tagger(audio: np.ndarray) -> tuple[object, float]:
    """Frame features with AudioSet logits, and the tagger's CPU seconds."""
    feats = frame_features(audio, sr=SR)
    t0 = time.process_time()
    logits = audioset_logits(audio, sr=SR)
    return dataclasses.replace(feats, audioset=logits), time.process_time() - t0


def held_out_speech() -> list[np.ndarray]:
    """Every recording of pocketsphinx-testdata's speech: LibriVox, cards, and the 16 kHz raw commands."""
    clips = [c for c in read_manifest() if c.package == "pocketsphinx-testdata"]
    out = [load_corpus_clip(c, default_cache(), sample_rate=SR) for c in clips]
    data = default_cache() / "pocketsphinx-testdata" / "usr/share/pocketsphinx/test/data"
    out += [load_clip(p, sample_rate=SR) for p in sorted(data.glob("cards/*.wav"))]
    out += [(np.fromfile(p, dtype="<i2") / 32768.0).astype(np.float32) for p in sorted(data.glob("*.raw"))]
    return out


def speech_scenes(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` stretches of 20-40 s of held-out speech, every other one telephone band."""
    pool = SpeechPool(held_out_speech(), rng)
    sos = scipy.signal.butter(4, (300, 3400), btype="bandpass", fs=SR, output="sos")
    out = []
    for i in range(n):
        s = pool.take(rng.uniform(20.0, 40.0))
        out.append(scipy.signal.sosfilt(sos, s).astype(np.float32) if i % 2 else s)
    return out


def beep_scenes(rng: np.random.Generator, n: int) -> list[tuple[np.ndarray, list[tuple[float, float]]]]:
    """Scenes of six beeps each (one in two a 1 kHz sine), in near silence or between LibriVox sentences."""
    clips = [c for c in read_manifest() if c.package == "pocketsphinx-testdata"]
    pool = SpeechPool([load_corpus_clip(c, default_cache(), sample_rate=SR) for c in clips], rng)
    out = []
    for i in range(n):
        parts, spans, t = [], [], 0.0
        for _ in range(6):
            lead = pool.take(rng.uniform(1.5, 3.0)) if i % 2 else np.zeros(int(rng.uniform(0.5, 1.5) * SR), np.float32)
            gap = np.zeros(int(rng.uniform(0.3, 0.8) * SR), np.float32)
            b = beep(rng) if rng.random() < 0.5 else np.sin(2 * np.pi * 1000.0 * np.arange(int(rng.uniform(0.2, 1.0) * SR)) / SR)
            b = (0.1 * b / np.abs(b).max()).astype(np.float32)
            t += (len(lead) + len(gap)) / SR
            spans.append((t, t + len(b) / SR))
            t += (len(b) + len(gap)) / SR
            parts += [lead, gap, b, gap]
        audio = np.concatenate(parts)
        out.append((audio + (1e-4 * rng.standard_normal(len(audio))).astype(np.float32), spans))
    return out


def run(seed: int = 21) -> dict:
    rng = np.random.default_rng(seed)
    events = {s: {k: 0 for k in SOUND_TYPES} for s in SETTINGS}
    cpu = dict.fromkeys(SETTINGS, 0.0)
    speech_seconds, audio_seconds = 0.0, 0.0
    voiced, silenced = 0.0, dict.fromkeys(SETTINGS, 0.0)
    for audio in speech_scenes(rng, 24):
        feats, tagger_cpu = with_tagger(audio)
        cpu["audioset"] += tagger_cpu
        speech_seconds += feats.duration
        for s in SETTINGS:
            t0 = time.process_time()
            found = _sounds(feats, s)
            cpu[s] += time.process_time() - t0
            for e in found:
                events[s][e.type] += 1
            total, lost = silenced_seconds(feats, found)
            silenced[s] += lost
        voiced += total
    beep_total, inside = 0.0, dict.fromkeys(SETTINGS, 0.0)
    for audio, spans in beep_scenes(rng, 12):
        feats, tagger_cpu = with_tagger(audio)
        cpu["audioset"] += tagger_cpu
        audio_seconds += feats.duration
        beep_total += sum(b - a for a, b in spans)
        for s in SETTINGS:
            t0 = time.process_time()
            found = _sounds(feats, s)
            cpu[s] += time.process_time() - t0
            speech = _speech(feats, found)
            inside[s] += sum(max(0.0, min(b, e.end) - max(a, e.start)) for a, b in spans for e in speech)
    hours = speech_seconds / 3600
    return {
        "false_alarms_per_hour_of_speech": {s: {k: v / hours for k, v in events[s].items()} for s in SETTINGS},
        "speech_minutes": speech_seconds / 60,
        "beep_seconds": beep_total,
        "beep_share_in_speech": {s: inside[s] / beep_total for s in SETTINGS},
        "speech_share_silenced_by_gate": {s: silenced[s] / max(voiced, 1e-9) for s in SETTINGS},
        "cpu_seconds_per_hour": {s: cpu[s] / (speech_seconds + audio_seconds) * 3600 for s in SETTINGS},
        "seed": seed,
        "machine": platform.processor() or platform.machine(),
    }


def markdown(r: dict) -> str:
    lines = [
        "# Ingest's detectors on real speech and on beeps, per sound model",
        "",
        f"{r['speech_minutes']:.0f} min of held-out real speech (pocketsphinx-testdata; plain and telephone band), "
        f"{r['beep_seconds']:.0f} s of beeps "
        f"in silence and in pauses; shipped classifier; seed {r['seed']}.",
        "",
        "| sound model | music / applause / laughter / audience / noise events per hour of speech "
        "| speech time the gate silences | beep time inside speech | CPU s per hour (sound detectors) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for s in SETTINGS:
        fa = r["false_alarms_per_hour_of_speech"][s]
        lines.append(f"| {s} | " + " / ".join(f"{fa.get(k, 0.0):.1f}" for k in SOUND_TYPES)
                     + f" | {100 * r['speech_share_silenced_by_gate'][s]:.1f} % | {100 * r['beep_share_in_speech'][s]:.0f} % "
                     f"| {r['cpu_seconds_per_hour'][s]:.2f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    result = run()
    write_result("detect_speech", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
