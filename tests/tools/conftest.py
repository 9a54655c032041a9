"""Fixtures for the test-broadcast generator: short texts and broadcasts built once per session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tools.broadcast import BroadcastTruth, build_broadcast
from tools.sound_clips import ClipsUnavailable

SHORT_STORIES = [
    "Heavy rain closed the Harbour Bridge in Riverton last night. Mayor Linda Okafor thanked the Red Cross volunteers.",
    "Norland Airways shares fell after chief executive Peter Lindqvist warned that fuel costs would cut profits.",
    "Doctor Maria Alvarez of Lakeside University found a new frog in the cloud forests of northern Peru.",
]


@dataclass(frozen=True)
class Built:
    """A broadcast on disk, its ground truth and its samples (float64, shape ``(n_samples,)``)."""

    wav: Path
    truth: BroadcastTruth
    audio: np.ndarray

    def span(self, start: float, end: float) -> np.ndarray:
        sr = self.truth.sample_rate
        return self.audio[round(start * sr) : round(end * sr)]


def build(out: Path, **kwargs) -> Built:
    truth = build_broadcast(out, **kwargs)
    audio, _ = sf.read(out, dtype="float64")
    return Built(out, truth, audio)


@pytest.fixture(scope="session")
def tts_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TTS cache private to this test session (the first build renders, later ones hit it)."""
    return tmp_path_factory.mktemp("tts-cache")


@pytest.fixture(scope="session")
def short_broadcast(tmp_path_factory: pytest.TempPathFactory, tts_cache: Path) -> Built:
    """Three short English stories with music beds and noise bursts, no real clips."""
    out = tmp_path_factory.mktemp("short") / "short.wav"
    return build(out, stories=SHORT_STORIES, seed=7, tts_cache_dir=tts_cache)


@pytest.fixture(scope="session")
def clip_broadcast(tmp_path_factory: pytest.TempPathFactory, tts_cache: Path) -> Built:
    """Three short stories with real applause and laughter from Debian packages."""
    out = tmp_path_factory.mktemp("clips") / "clips.wav"
    try:
        return build(out, stories=SHORT_STORIES, seed=3, applause=True, laughter=True, tts_cache_dir=tts_cache)
    except ClipsUnavailable as exc:
        pytest.skip(f"real applause/laughter clips unavailable here: {exc}")


@pytest.fixture(scope="session")
def short_stories() -> list[str]:
    return list(SHORT_STORIES)


@pytest.fixture(scope="session")
def build_to():
    """``build_to(out_wav, **build_broadcast_kwargs) -> Built``."""
    return build
