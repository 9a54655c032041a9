"""Fixtures for the detectors' tests: short generated broadcasts (built once per session) and their features."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.asr.base import Word
from engine.detect import AudioAnalyzer, Detections, FrameFeatures
from engine.detect.audioset import AudioSetModel
from engine.errors import ModelError
from tools.broadcast import BroadcastTruth, build_broadcast
from tools.sound_clips import ClipsUnavailable

#: Short, varied stories (the segmentation fixtures' texts plus two more).
STORIES = [
    "Heavy rain closed the Harbour Bridge in Riverton last night. Mayor Linda Okafor thanked the Red Cross volunteers.",
    "Norland Airways shares fell after chief executive Peter Lindqvist warned that fuel costs would cut profits.",
    "Doctor Maria Alvarez of Lakeside University found a new frog in the cloud forests of northern Peru.",
    "The national orchestra will tour six cities this spring, its director said, with free concerts for schools.",
    "Farmers in the eastern valleys expect a record apple harvest after a mild winter and a wet, warm summer.",
]


@dataclass(frozen=True)
class Analysed:
    """A generated broadcast, its ground truth, its features and what the analyzer found in it."""

    wav: Path
    truth: BroadcastTruth
    audio: np.ndarray  # int16, shape (n_samples,)
    features: FrameFeatures
    detections: Detections

    def truth_spans(self, kind: str) -> list[tuple[float, float]]:
        return [(e.start, e.end) for e in self.truth.events if e.type == kind]


def truth_words(truth: BroadcastTruth) -> list[Word]:
    """The broadcast's words as a perfect recogniser would give them (confidence 1)."""
    return [Word(w.start, w.end, 1.0, w.norm) for w in truth.words]


def analyse(wav: Path, truth: BroadcastTruth) -> Analysed:
    audio, sr = sf.read(wav, dtype="int16")
    analyzer = AudioAnalyzer(sr=sr)
    for i in range(0, len(audio), sr // 2):  # the ingest worker's 0.5 s blocks
        analyzer.feed(audio[i : i + sr // 2])
    detections = analyzer.finish(truth_words(truth))
    assert analyzer.features is not None
    return Analysed(wav, truth, audio, analyzer.features, detections)


@pytest.fixture(scope="session")
def clip_broadcast(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    """Five short stories with music beds, noise bursts and real applause, laughter and crowd clips."""
    out = tmp_path_factory.mktemp("detect-clips") / "clips.wav"
    try:
        truth = build_broadcast(out, stories=STORIES, seed=4, applause=True, laughter=True, crowd=True)
    except ClipsUnavailable as exc:
        pytest.skip(f"real applause/laughter/crowd clips unavailable here: {exc}")
    return analyse(out, truth)


@pytest.fixture(scope="session")
def plain_broadcast(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    """Plain speech: five stories separated only by silences (no music, noise or clips)."""
    out = tmp_path_factory.mktemp("detect-plain") / "plain.wav"
    truth = build_broadcast(out, stories=STORIES, seed=8, music_beds=False, noise_bursts=False)
    return analyse(out, truth)


#: Sentences the learned classifier's tests speak with two espeak-ng voices.
CLASSIFIER_TEXTS = (
    "Heavy rain closed the Harbour Bridge in Riverton last night, and the mayor thanked the volunteers.",
    "Shares in Norland Airways fell after the chief executive warned that fuel costs would cut profits.",
    "A new frog was found in the cloud forests of northern Peru by a team from Lakeside University.",
)


@pytest.fixture(scope="module")
def speech_clips() -> list[np.ndarray]:
    """Six spoken sentences at 16 kHz (three texts, two voices, 160 words a minute), float32 each of shape (n,)."""
    from tools.tts import SpeechSynthesisError, speak

    try:
        return [speak(t, voice, 160, sample_rate=16000).audio for t in CLASSIFIER_TEXTS for voice in ("en-us", "en+f2")]
    except SpeechSynthesisError as exc:
        pytest.skip(f"espeak-ng is needed for the speech in the fixture: {exc}")


@pytest.fixture(scope="session")
def tagger() -> AudioSetModel:
    """The shipped AudioSet tagger (skips when its data package is not installed)."""
    try:
        return AudioSetModel.shipped()
    except ModelError as exc:
        pytest.skip(f"the AudioSet tagger is not installed here: {exc}")
