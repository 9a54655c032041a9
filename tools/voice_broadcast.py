"""Build a multi-speaker broadcast of real recorded voices, with its reference speaker turns.

Turns of 3 to 20 s are strung from consecutive recordings of one voice
(:mod:`tools.voices`, Debian packages); between turns come pauses, synthetic
music beds and noise bursts (:mod:`tools.synth`); some turns have a quiet music
bed under them and some start before the previous one ends (overlapping speech).
The reference lists each recording's speech (its near-silent ends trimmed) as a
turn of its voice's speaker. Output: ``OUT.wav`` (16 kHz mono, 16-bit) and
``OUT.rttm``.

Run ``python -m tools.voice_broadcast OUT.wav --voices carlo ivr-ru menardi --minutes 3 --seed 1``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

if str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.errors import ParameterError
from engine.evaluate.der import Turn, write_rttm
from tools import synth
from tools.voices import VOICES, fetch_voice, load_utterance

SR = 16_000
SPEECH_RMS_DB = -20.0  # each recording's level, +- LEVEL_SPREAD_DB
LEVEL_SPREAD_DB = 3.0
TURN_SECONDS = (3.0, 20.0)
OVERLAP_CHANCE = 0.1  # a turn starts 0.5 to 1.5 s before the previous one ends
MUSIC_UNDER_CHANCE = 0.25  # a turn has a music bed 15 to 20 dB under it
BETWEEN_CHANCES = {"pause": 0.55, "music": 0.3, "noise": 0.15}


@dataclass(frozen=True)
class VoiceBroadcast:
    """The samples (float32, 16 kHz) and reference turns of a built broadcast."""

    samples: np.ndarray
    turns: list[Turn]
    voices: tuple[str, ...]


def _rms_db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(x.astype(np.float64) ** 2)) + 1e-12))


def build(voices: Sequence[str], *, minutes: float, seed: int) -> VoiceBroadcast:
    """A broadcast of about ``minutes`` minutes in which each of ``voices`` (names in ``VOICES``) speaks."""
    unknown = [v for v in voices if v not in VOICES]
    if unknown or not voices:
        raise ParameterError(f"unknown voices {unknown}; choose from {', '.join(VOICES)}")
    rng = np.random.default_rng(seed)
    files = {v: fetch_voice(v) for v in voices}
    cursor = {v: int(rng.integers(len(files[v]))) for v in voices}
    pieces: list[tuple[int, np.ndarray]] = []  # (start sample, samples) to mix
    turns: list[Turn] = []
    t = int(rng.uniform(0.5, 2.0) * SR)
    last = None
    while t < minutes * 60 * SR:
        choices = [v for v in voices if v != last] or list(voices)
        voice = choices[int(rng.integers(len(choices)))]
        if last is not None and rng.random() < OVERLAP_CHANCE:
            t = max(0, t - int(rng.uniform(0.5, 1.5) * SR))
        target = rng.uniform(*TURN_SECONDS) * SR
        turn_start, length = t, 0
        while length < target:
            path = files[voice][cursor[voice] % len(files[voice])]
            cursor[voice] += 1
            clip = load_utterance(path)
            if clip.size < 0.3 * SR:
                continue
            gain_db = SPEECH_RMS_DB + rng.uniform(-LEVEL_SPREAD_DB, LEVEL_SPREAD_DB) - _rms_db(clip)
            clip = (clip * 10 ** (gain_db / 20)).astype(np.float32)
            pieces.append((t, clip))
            turns.append(Turn(t / SR, (t + clip.size) / SR, VOICES[voice].speaker))
            t += clip.size
            length += clip.size
            t += int(rng.uniform(0.1, 0.4) * SR)
        if rng.random() < MUSIC_UNDER_CHANCE:
            bed = synth.music_bed((t - turn_start) / SR, sample_rate=SR, rng=rng)
            pieces.append(
                (turn_start, (bed * 10 ** ((SPEECH_RMS_DB - rng.uniform(15, 20) - _rms_db(bed)) / 20)).astype(np.float32))
            )
        kind = rng.choice(list(BETWEEN_CHANCES), p=list(BETWEEN_CHANCES.values()))
        if kind == "pause":
            t += int(rng.uniform(0.2, 1.5) * SR)
        else:
            seconds = rng.uniform(2.0, 6.0)
            make = synth.music_bed if kind == "music" else synth.noise_burst
            sound = make(seconds, sample_rate=SR, rng=rng)
            level = SPEECH_RMS_DB + rng.uniform(-8, 0)
            t += int(0.3 * SR)
            pieces.append((t, (sound * 10 ** ((level - _rms_db(sound)) / 20)).astype(np.float32)))
            t += sound.size + int(0.3 * SR)
        last = voice
    total = max(start + x.size for start, x in pieces) + SR
    samples = np.zeros(total, dtype=np.float32)
    for start, x in pieces:
        samples[start : start + x.size] += x
    peak = float(np.abs(samples).max())
    if peak > 0.99:
        samples *= 0.99 / peak
    return VoiceBroadcast(samples, sorted(turns, key=lambda u: u.start), tuple(voices))


def write(broadcast: VoiceBroadcast, wav: Path) -> Path:
    """Write ``wav`` and the reference beside it (same stem, ``.rttm``); returns the RTTM path."""
    sf.write(wav, broadcast.samples, SR, subtype="PCM_16")
    rttm = wav.with_suffix(".rttm")
    with open(rttm, "w", encoding="utf-8") as stream:
        write_rttm(broadcast.turns, wav.stem, stream)
    return rttm


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--voices", nargs="+", required=True, choices=sorted(VOICES))
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rttm = write(build(args.voices, minutes=args.minutes, seed=args.seed), args.out)
    print(f"{args.out} and {rttm}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
