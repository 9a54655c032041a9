"""The corpus audit's level range: speech alone falls towards silence between words, a voice over a bed does not."""

from __future__ import annotations

import numpy as np

from bench.corpus_audit_bench import SR, level_range_db


def test_a_bed_under_the_bursts_narrows_the_level_range() -> None:
    rng = np.random.default_rng(1)
    bursts = np.zeros(4 * SR)
    for start in np.arange(0.0, 4.0, 0.5):  # 0.35 s bursts every 0.5 s, silence between them
        i = int(start * SR)
        bursts[i : i + 7 * SR // 20] = 0.3 * rng.standard_normal(7 * SR // 20)
    quiet = bursts + 1e-4 * rng.standard_normal(len(bursts))
    bed = bursts + 0.03 * np.sin(2 * np.pi * 220.0 * np.arange(len(bursts)) / SR)  # 20 dB under the bursts
    assert level_range_db(quiet) > 40.0
    assert 10.0 < level_range_db(bed) < 30.0
