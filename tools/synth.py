"""Synthetic non-speech sounds for test broadcasts: music beds and noise bursts.

Both are pure functions of their arguments and a ``numpy.random.Generator``,
so a broadcast built with a fixed seed is the same to the byte.
"""

from __future__ import annotations

import numpy as np

#: Chord progressions as (semitones above the key's root, chord quality).
PROGRESSIONS: tuple[tuple[tuple[int, str], ...], ...] = (
    ((0, "maj"), (7, "maj"), (9, "min"), (5, "maj")),  # I V vi IV
    ((0, "maj"), (5, "maj"), (7, "maj"), (5, "maj")),  # I IV V IV
    ((0, "min"), (8, "maj"), (3, "maj"), (10, "maj")),  # i VI III VII
    ((0, "maj"), (9, "min"), (5, "maj"), (7, "maj")),  # I vi IV V
)

CHORD_INTERVALS = {"maj": (0, 4, 7), "min": (0, 3, 7)}

#: Relative amplitude of harmonic h (1-based) is HARMONIC_DECAY ** (h - 1).
HARMONIC_DECAY = 0.55
N_HARMONICS = 6

#: Tempo range of the beat, in beats per minute.
TEMPO_RANGE = (88.0, 128.0)
BEATS_PER_CHORD = 2

FADE_SECONDS = 0.25
NOISE_COLOURS = ("white", "pink")


def midi_to_hz(note: float) -> float:
    return 440.0 * 2.0 ** ((note - 69) / 12)


def music_bed(seconds: float, *, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """A few seconds of a chord progression with a bass line, an arpeggio and a beat.

    Returns float32 samples of shape ``(round(seconds * sample_rate),)`` with
    unit RMS (callers scale to their level). Clearly tonal: harmonic partials
    dominate the spectrum; the beat adds a pitched kick and a quiet hi-hat.
    """
    n = round(seconds * sample_rate)
    out = np.zeros(n, dtype=np.float64)
    beat = 60.0 / rng.uniform(*TEMPO_RANGE)
    root = int(rng.integers(45, 57))  # A2 .. G#3
    progression = PROGRESSIONS[int(rng.integers(len(PROGRESSIONS)))]
    chord_len = round(BEATS_PER_CHORD * beat * sample_rate)
    beat_len = round(beat * sample_rate)
    for i, start in enumerate(range(0, n, chord_len)):
        length = min(chord_len, n - start)
        t = np.arange(length) / sample_rate
        offset, quality = progression[i % len(progression)]
        chord = [root + 12 + offset + iv for iv in CHORD_INTERVALS[quality]]
        pad = sum(_tone(midi_to_hz(m), t) for m in chord) * _adsr(length, sample_rate)
        bass = _tone(midi_to_hz(root + offset), t) * _adsr(length, sample_rate)
        out[start : start + length] += 0.35 * pad + 0.5 * bass
    for j, start in enumerate(range(0, n, beat_len)):
        length = min(beat_len, n - start)
        t = np.arange(length) / sample_rate
        offset, quality = progression[(start // chord_len) % len(progression)]
        note = root + 24 + offset + CHORD_INTERVALS[quality][j % 3]
        out[start : start + length] += 0.35 * _tone(midi_to_hz(note), t) * np.exp(-t / 0.25)
        out[start : start + length] += 0.6 * _kick(t)
        half = beat_len // 2
        if start + half < n:
            hat_len = min(half, n - start - half)
            out[start + half : start + half + hat_len] += 0.05 * _hat(hat_len, sample_rate, rng)
    return _unit_rms(fade(out, sample_rate)).astype(np.float32)


def noise_burst(seconds: float, *, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """A burst of white or pink noise (a static crackle or a swoosh), unit RMS, float32."""
    n = round(seconds * sample_rate)
    white = rng.standard_normal(n)
    colour = NOISE_COLOURS[int(rng.integers(len(NOISE_COLOURS)))]
    if colour == "pink":
        spectrum = np.fft.rfft(white)
        freqs = np.fft.rfftfreq(n, 1.0 / sample_rate)
        spectrum[1:] /= np.sqrt(freqs[1:] / freqs[1])
        spectrum[0] = 0.0
        white = np.fft.irfft(spectrum, n)
    return _unit_rms(fade(white, sample_rate, fade_seconds=0.02)).astype(np.float32)


def _tone(freq: float, t: np.ndarray) -> np.ndarray:
    harmonics = np.arange(1, N_HARMONICS + 1)
    harmonics = harmonics[harmonics * freq < 7000.0]
    amps = HARMONIC_DECAY ** (harmonics - 1)
    return np.sin(2 * np.pi * freq * np.outer(t, harmonics)) @ amps


def _adsr(length: int, sample_rate: int) -> np.ndarray:
    attack = min(length, round(0.02 * sample_rate))
    release = min(length - attack, round(0.08 * sample_rate))
    env = np.full(length, 0.8)
    env[:attack] = np.linspace(0.0, 1.0, attack, endpoint=False)
    if release:
        env[length - release :] *= np.linspace(1.0, 0.0, release)
    return env


def _kick(t: np.ndarray) -> np.ndarray:
    # A sine sweeping down from 150 Hz to 50 Hz: the pitch drop is what makes it a drum.
    phase = 2 * np.pi * (50.0 * t + 100.0 * 0.03 * (1.0 - np.exp(-t / 0.03)))
    return np.sin(phase) * np.exp(-t / 0.12)


def _hat(length: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(length) / sample_rate
    noise = np.diff(rng.standard_normal(length + 1))  # first difference: a crude high-pass
    return noise * np.exp(-t / 0.02)


def fade(x: np.ndarray, sample_rate: int, fade_seconds: float = FADE_SECONDS) -> np.ndarray:
    n = min(len(x) // 2, round(fade_seconds * sample_rate))
    if n:
        ramp = np.linspace(0.0, 1.0, n)
        x[:n] *= ramp
        x[len(x) - n :] *= ramp[::-1]
    return x


def _unit_rms(x: np.ndarray) -> np.ndarray:
    rms = np.sqrt(np.mean(x**2)) if len(x) else 0.0
    return x / rms if rms > 0 else x
