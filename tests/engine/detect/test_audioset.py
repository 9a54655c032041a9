"""The AudioSet tagger: YAMNet's front end and quantised network on real speech and tones, streamed."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import soxr

from engine.detect.audioset import (
    PATCH_SECONDS,
    AudioSetModel,
    AudioSetStream,
    audioset_logits,
    mel_matrix,
    patch_centres,
)
from engine.detect.features import frame_features
from engine.errors import ModelError
from models.audioset import PACKAGE, PINNED, UNPACKED, audioset_files
from models.discover import package_folder
from tools.tts import SpeechSynthesisError, speak

SR = 16000


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    try:
        said = speak("The minister said the new budget will cut taxes for families across the country.",
                     "en-us", 160, sample_rate=SR)  # fmt: skip
    except SpeechSynthesisError as error:
        pytest.skip(str(error))
    return said.audio


def top(tagger: AudioSetModel, logits: np.ndarray, k: int) -> list[str]:
    return [tagger.class_names[i] for i in np.argsort(-logits.astype(np.float32).mean(axis=0))[:k]]


def test_speech_is_tagged_speech(tagger: AudioSetModel, speech: np.ndarray) -> None:
    assert top(tagger, audioset_logits(speech, model=tagger), 1) == ["Speech"]


def test_a_beep_is_a_beep_not_speech(tagger: AudioSetModel) -> None:
    t = np.arange(3 * SR) / SR
    tone = (0.3 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)
    logits = audioset_logits(tone, model=tagger).astype(np.float32)
    assert {"Beep, bleep", "Sine wave"} & set(top(tagger, logits, 2))
    assert logits[:, tagger.class_names.index("Speech")].max() < logits[:, tagger.class_names.index("Beep, bleep")].min()


def test_patches_cover_the_recording_once_every_hop(tagger: AudioSetModel) -> None:
    rng = np.random.default_rng(1)
    for seconds, expected in ((0.3, 1), (0.97, 1), (2.0, 4), (10.0, 20)):
        audio = (0.05 * rng.standard_normal(round(seconds * SR))).astype(np.float32)
        logits = audioset_logits(audio, model=tagger)
        assert logits.shape == (expected, 521), seconds
        # The last patch reaches the end; the one before it does not (no spare patch).
        ends = patch_centres(expected) + (PATCH_SECONDS + 0.015) / 2
        assert ends[-1] >= seconds and (expected == 1 or ends[-2] < seconds), seconds
    assert audioset_logits(np.zeros(0, np.float32), model=tagger).shape == (0, 521)


def test_streamed_blocks_give_the_whole_signals_logits(tagger: AudioSetModel, speech: np.ndarray) -> None:
    whole = audioset_logits(speech, model=tagger)
    stream = AudioSetStream(tagger)
    for block in np.array_split(speech, 17):  # uneven blocks, some shorter than a window
        stream.feed(block)
    np.testing.assert_array_equal(stream.finish(), whole)


def test_other_sample_rates_are_resampled(tagger: AudioSetModel, speech: np.ndarray) -> None:
    at_48k = soxr.resample(speech, SR, 48000).astype(np.float32)
    pcm = np.clip(np.round(at_48k * 32767), -32768, 32767).astype(np.int16)
    logits = audioset_logits(pcm, sr=48000, model=tagger)
    assert abs(logits.shape[0] - audioset_logits(speech, model=tagger).shape[0]) <= 1
    assert top(tagger, logits, 1) == ["Speech"]


def test_frame_features_carry_the_logits_and_slice_them(tagger: AudioSetModel, speech: np.ndarray) -> None:
    features = frame_features(speech, sr=SR, audioset=tagger)
    assert features.audioset is not None and features.audioset.dtype == np.float16
    np.testing.assert_array_equal(features.audioset, audioset_logits(speech, model=tagger))
    part = features.slice(0.96, 2.88)
    assert part.audioset is not None and part.audioset.shape[0] == 4
    assert frame_features(speech, sr=SR).audioset is None


def test_mel_bands_cover_125_to_7500_hz_without_dc() -> None:
    mel = mel_matrix()
    assert mel.shape == (257, 64)
    freqs = np.linspace(0, 8000, 257)
    used = freqs[mel.sum(axis=1) > 0]
    assert used.min() >= 125 and used.max() <= 7500
    assert (mel.max(axis=0) > 0.5).all()  # every band has a bin near its peak


def test_files_unpack_once_into_the_cache(tmp_path: Path, tagger: AudioSetModel) -> None:
    files = audioset_files(tmp_path)
    assert files.model.name == "model.onnx" and len(files.class_names) == 521
    stamps = {name: (files.model.parent / name).stat().st_mtime_ns for name in UNPACKED}
    again = audioset_files(tmp_path)
    assert again.model == files.model
    assert {name: (files.model.parent / name).stat().st_mtime_ns for name in UNPACKED} == stamps


def test_a_changed_file_is_refused_by_name(tmp_path: Path, tagger: AudioSetModel) -> None:
    source = package_folder(PACKAGE)
    assert source is not None
    copy = tmp_path / "pkg"
    shutil.copytree(source / "data", copy / "data")
    zip_name = next(name for name in PINNED if name.endswith(".zip"))
    with open(copy / zip_name, "r+b") as handle:
        handle.seek(1000)
        handle.write(b"\0\1\2\3")
    with pytest.raises(ModelError, match=r"YamNet_w8a8\.onnx\.zip: not the pinned"):
        audioset_files(tmp_path / "cache", folder=copy)
    with pytest.raises(ModelError, match=r"no-package-here/data/YamNet_w8a8\.onnx\.zip: not the pinned"):
        audioset_files(tmp_path / "cache", folder=tmp_path / "no-package-here")
    assert not (tmp_path / "cache").exists()  # nothing unpacked from a refused package
