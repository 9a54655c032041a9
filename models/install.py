"""Verify a downloaded model archive and unpack it into the models folder, atomically.

Order: size, SHA-256 (when the catalogue has one, else every member's CRC),
safe paths and Vosk layout, unpack into a hidden staging folder, check the
layout on disk, write the manifest last, then one ``os.replace`` to
``<root>/NAME``. A crash or failure at any step leaves no folder that the
manager lists as installed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
import zipfile
from pathlib import Path

from engine.errors import ModelError
from engine.jobs import CancelToken, JobReport
from models.catalogue import CatalogueEntry
from models.fetch import fetch
from models.layout import WHISPER_HINT, ArchiveError, archive_model_root, folder_layout, whisper_layout
from models.records import MANIFEST_NAME, RECORD_FORMAT, InstalledModel, folder_size, now_iso, sha256_file, write_json

_READ_BYTES = 1024 * 1024


class _ContentError(Exception):
    """The archive's bytes are wrong; carries the user message."""


def install_archive(archive: Path, *, root: Path, name: str, language: str, url: str,
                    expected_sha256: str | None, expected_bytes: int | None, cancel: CancelToken) -> InstalledModel:
    """Check ``archive`` and unpack the model in it to ``root/name``; return the installed model.

    If the archive's content is wrong (size, checksum, zip, layout) it is
    deleted, since downloading it again is the only cure, and ModelError is
    raised. Disk errors raise ModelError and keep the archive.
    """
    try:
        return _check_and_unpack(archive, root=root, name=name, language=language, url=url,
                                 expected_sha256=expected_sha256, expected_bytes=expected_bytes, cancel=cancel)
    except _ContentError as exc:
        with contextlib.suppress(OSError):
            archive.unlink()
        raise ModelError(f"{name}: {exc}") from None
    except (OSError, EOFError) as exc:  # EOFError: a zip whose directory promises more than the file holds
        why = getattr(exc, "strerror", None) or exc
        raise ModelError(f"{name}: cannot unpack {archive} into {root}: {why}") from None


def _check_and_unpack(archive: Path, *, root: Path, name: str, language: str, url: str,
                      expected_sha256: str | None, expected_bytes: int | None, cancel: CancelToken) -> InstalledModel:
    size = archive.stat().st_size
    if expected_bytes is not None and size != expected_bytes:
        raise _ContentError(f"the download is {size} bytes but the catalogue lists {expected_bytes} bytes")
    digest = sha256_file(archive, cancel)
    if expected_sha256 is not None and digest != expected_sha256:
        raise _ContentError(
            f"checksum mismatch: the download's SHA-256 is {digest}, the catalogue lists {expected_sha256}"
        )
    try:
        with zipfile.ZipFile(archive) as zf:
            if expected_sha256 is None:
                cancel.raise_if_cancelled()
                bad_member = zf.testzip()
                if bad_member is not None:
                    raise _ContentError(f"the zip archive is corrupt ({bad_member} fails its CRC check)")
            try:
                prefix = archive_model_root(zf.namelist())
            except ArchiveError as exc:
                raise _ContentError(str(exc)) from None
            manifest = {
                "format": RECORD_FORMAT, "name": name, "engine": "vosk", "language": language, "source": "download",
                "url": url, "archive_bytes": size, "archive_sha256": digest,
                "archive_sha256_verified": expected_sha256 is not None, "installed_at": now_iso(),
            }
            return _unpack(zf, prefix, root=root, name=name, manifest=manifest, cancel=cancel)
    except zipfile.BadZipFile as exc:
        text = str(exc)
        raise _ContentError(
            f"the zip archive is corrupt ({text})" if "CRC" in text else "the download is not a zip archive"
        ) from None


def _unpack(zf: zipfile.ZipFile, prefix: str, *, root: Path, name: str, manifest: dict[str, object],
            cancel: CancelToken) -> InstalledModel:
    stage = Path(tempfile.mkdtemp(prefix=f".staging-{name}-", dir=root))
    try:
        folder = stage / "model"
        folder.mkdir()
        for info in zf.infolist():
            cancel.raise_if_cancelled()
            rel = info.filename[len(prefix):]
            if not rel:
                continue
            dest = folder / rel
            if info.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, _READ_BYTES)
        layout = folder_layout(folder)
        if layout is None:  # the archive listed the files but they did not unpack as files
            raise ModelError(f"{name}: not a Vosk model after unpacking: {folder} lacks the model files")
        write_json(folder / MANIFEST_NAME, {**manifest, "layout": layout, "model_bytes": folder_size(folder)})
        size = folder_size(folder)  # with the manifest, as installed() counts it
        target = root / name
        _move_aside(target)
        os.replace(folder, target)
        return InstalledModel(name, target, "vosk", str(manifest["language"]), "download", size)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _move_aside(target: Path) -> None:
    """Clear the way for a new model folder: a leftover folder there (no manifest) is deleted."""
    if not target.exists() and not target.is_symlink():
        return
    if target.is_dir() and not target.is_symlink():
        trash = target.with_name(f".removing-{target.name}-{uuid.uuid4().hex[:8]}")
        os.replace(target, trash)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        target.unlink()


def install_whisper(entry: CatalogueEntry, base_url: str, *, root: Path, language: str,
                    report: JobReport) -> InstalledModel:
    """Fetch the files of a CTranslate2 Whisper model from ``base_url/FILE`` and install them as ``root/NAME``.

    Each file is downloaded into ``root/.partial/NAME/`` (resumed if a part is
    there), checked against the catalogue's size and SHA-256 where it lists
    them, then the folder is checked for a Whisper layout, given its manifest
    (with the SHA-256 of every file) and moved into place in one step. Raises
    ModelError naming the model and the reason; leaves nothing that looks installed.
    """
    name = entry.name
    parts = root / ".partial" / name
    try:
        parts.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"{name}: cannot create {parts}: {exc.strerror or exc}") from None
    for file in entry.files:
        fetch(f"{base_url.rstrip('/')}/{file}", parts / f"{file}.part", name=name, report=report)
    stage = Path(tempfile.mkdtemp(prefix=f".staging-{name}-", dir=root))
    try:
        folder = stage / "model"
        folder.mkdir()
        digests = {}
        for file in entry.files:
            report.cancel.raise_if_cancelled()
            shutil.copyfile(parts / f"{file}.part", folder / file)
            digests[file] = sha256_file(folder / file, report.cancel)
        if whisper_layout(folder) is None:
            raise ModelError(f"{name}: not a Whisper model after download: {folder} lacks {WHISPER_HINT}")
        write_json(folder / MANIFEST_NAME, {
            "format": RECORD_FORMAT, "name": name, "engine": "whisper", "language": language, "source": "download",
            "url": base_url, "files_sha256": digests, "sha256_verified": False, "installed_at": now_iso(),
            "layout": "ctranslate2", "model_bytes": folder_size(folder),
        })
        size = folder_size(folder)
        target = root / name
        _move_aside(target)
        os.replace(folder, target)
    except OSError as exc:
        raise ModelError(f"{name}: cannot install into {root}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    shutil.rmtree(parts, ignore_errors=True)
    return InstalledModel(name, target, "whisper", language, "download", size)
