"""The BIC baseline: the criterion on Gaussians with an obvious answer, and two voices end to end."""

from __future__ import annotations

import numpy as np

from engine.speakers.bic import _Stats, delta_bic, diarize_bic, mfcc


def test_delta_bic_is_positive_for_two_distributions_and_negative_for_one(rng: np.random.Generator) -> None:
    a = rng.normal(0, 1, (300, 13))
    b = rng.normal(3, 1, (300, 13))
    same = rng.normal(0, 1, (300, 13))
    assert delta_bic(_Stats(a), _Stats(b)) > 0
    assert delta_bic(_Stats(a), _Stats(same)) < 0


def test_two_synthetic_voices_are_cut_and_told_apart(rng: np.random.Generator) -> None:
    sr = 16_000
    t = np.arange(4 * sr) / sr

    def voice(f0: float, formant: float) -> np.ndarray:
        harmonics = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 20) if abs(f0 * k - formant) < 1500)
        return (0.1 * harmonics + 0.01 * rng.standard_normal(t.size)).astype(np.float32)

    low, high = voice(110, 700), voice(220, 2500)
    samples = np.concatenate([low, high, low])
    assert mfcc(samples).shape == (1198, 13)
    turns = diarize_bic(samples, [(0.0, 12.0)])
    labels = [(round(u.start), u.speaker) for u in turns]
    assert len({s for _, s in labels}) == 2
    at = {round(u.start): u.speaker for u in turns}
    assert at[0] == at.get(8, at[0]) != at[4]
