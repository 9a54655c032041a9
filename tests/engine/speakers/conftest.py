"""Fixtures of the speaker tests: the pinned weights (skipped when the data package is absent)."""

from __future__ import annotations

import pytest

from engine.errors import ModelError
from models.speakers import SpeakerModelFiles, speaker_model_files


@pytest.fixture(scope="session")
def speaker_files() -> SpeakerModelFiles:
    try:
        return speaker_model_files()
    except ModelError as error:
        pytest.skip(str(error))
