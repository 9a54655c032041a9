"""Downloading, verifying and installing models from a local HTTP server."""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.errors import Cancelled, ModelError, NotFoundError, ParameterError
from engine.jobs import JobReport
from models import CatalogueEntry, ModelManager
from models.fetch import CHUNK_BYTES
from models.records import MANIFEST_NAME
from tests.models.model_testkit import (
    CURRENT_LAYOUT,
    FLAT_LAYOUT,
    MODEL_NAME,
    ModelServer,
    build_zip,
    corrupt_member,
    model_files,
)


def entry(sha256: str | None = None, size_bytes: int | None = None) -> CatalogueEntry:
    return CatalogueEntry(MODEL_NAME, "xx", 1, size_bytes, sha256, "small", "fake model for tests")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Progress:
    """Records report.progress calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float]] = []

    def __call__(self, done: float, total: float) -> None:
        self.calls.append((done, total))


def assert_nothing_installed(manager: ModelManager) -> None:
    assert [m.name for m in manager.installed() if m.source == "download"] == []
    assert not (manager.root / MODEL_NAME).exists()
    assert sorted(p.name for p in manager.root.glob(".staging-*")) == []


def assert_installed_copy(manager: ModelManager, files: dict[str, bytes]) -> Path:
    folder = manager.root / MODEL_NAME
    for rel, data in files.items():
        assert (folder / rel).read_bytes() == data, rel
    return folder


# -- good downloads -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("layout", "top", "expected_layout"),
    [(CURRENT_LAYOUT, MODEL_NAME, "am"), (FLAT_LAYOUT, MODEL_NAME, "flat"), (CURRENT_LAYOUT, None, "am")],
    ids=["current-layout", "old-flat-layout", "no-top-folder"],
)
def test_good_zip_installs_is_listed_and_resolvable(server: ModelServer, layout, top, expected_layout) -> None:
    files = model_files(layout)
    archive = build_zip(files, top=top)
    url = server.serve("/m.zip", archive)
    manager = ModelManager(catalogue=[entry(sha256(archive), len(archive))])
    progress = Progress()

    model = manager.download(MODEL_NAME, report=JobReport(progress=progress), url=url)

    folder = assert_installed_copy(manager, files)
    assert (model.name, model.path, model.engine, model.language, model.source) == (
        MODEL_NAME, folder, "vosk", "xx", "download")
    assert model in manager.installed()
    spec = manager.resolve(MODEL_NAME)
    assert (spec.engine, spec.name, spec.path, spec.language, spec.note) == ("vosk", MODEL_NAME, str(folder), "xx", "")
    manifest = json.loads((folder / MANIFEST_NAME).read_text())
    assert manifest["archive_sha256"] == sha256(archive)
    assert manifest["archive_sha256_verified"] is True
    assert manifest["layout"] == expected_layout
    assert progress.calls[0] == (0, len(archive))
    assert progress.calls[-1] == (len(archive), len(archive))
    assert not manager.partial_path(MODEL_NAME).exists()
    assert sorted(p.name for p in manager.root.iterdir()) == [".partial", MODEL_NAME]


def test_default_root_is_the_data_folder(server: ModelServer, good_zip: bytes, data_dir: Path) -> None:
    manager = ModelManager(catalogue=[entry()])
    model = manager.download(MODEL_NAME, url=server.serve("/m.zip", good_zip))
    assert model.path == data_dir / "models" / MODEL_NAME


def test_unverified_download_records_its_computed_sha256(server: ModelServer, good_zip: bytes) -> None:
    manager = ModelManager(catalogue=[entry(sha256=None)])
    model = manager.download(MODEL_NAME, url=server.serve("/m.zip", good_zip))
    manifest = json.loads((model.path / MANIFEST_NAME).read_text())
    assert (manifest["archive_sha256"], manifest["archive_sha256_verified"]) == (sha256(good_zip), False)


def test_resume_sends_a_range_request_and_completes_the_file(
    server: ModelServer, good_zip: bytes, good_files: dict[str, bytes]
) -> None:
    manager = ModelManager(catalogue=[entry(sha256(good_zip))])
    half = len(good_zip) // 2
    part = manager.partial_path(MODEL_NAME)
    part.parent.mkdir(parents=True)
    part.write_bytes(good_zip[:half])
    progress = Progress()

    manager.download(MODEL_NAME, report=JobReport(progress=progress), url=server.serve("/m.zip", good_zip))

    assert server.requests == [("/m.zip", f"bytes={half}-")]
    assert server.bytes_sent == len(good_zip) - half
    assert progress.calls[0] == (half, len(good_zip))
    assert_installed_copy(manager, good_files)


def test_server_ignoring_range_restarts_from_zero(
    server: ModelServer, good_zip: bytes, good_files: dict[str, bytes]
) -> None:
    manager = ModelManager(catalogue=[entry(sha256(good_zip))])
    part = manager.partial_path(MODEL_NAME)
    part.parent.mkdir(parents=True)
    part.write_bytes(b"stale bytes that must not stay in front" * 100)

    manager.download(MODEL_NAME, url=server.serve("/m.zip", good_zip, honour_range=False))

    assert server.requests == [("/m.zip", f"bytes={len(b'stale bytes that must not stay in front') * 100}-")]
    assert server.bytes_sent == len(good_zip)
    assert_installed_copy(manager, good_files)


def test_complete_part_file_is_installed_after_a_416(
    server: ModelServer, good_zip: bytes, good_files: dict[str, bytes]
) -> None:
    manager = ModelManager(catalogue=[entry(sha256(good_zip))])
    part = manager.partial_path(MODEL_NAME)
    part.parent.mkdir(parents=True)
    part.write_bytes(good_zip)

    manager.download(MODEL_NAME, url=server.serve("/m.zip", good_zip))

    assert server.requests == [("/m.zip", f"bytes={len(good_zip)}-")]
    assert server.bytes_sent == 0
    assert_installed_copy(manager, good_files)


def test_cancel_mid_download_keeps_the_part_and_a_later_call_resumes(
    server: ModelServer, good_zip: bytes, good_files: dict[str, bytes]
) -> None:
    assert len(good_zip) > 3 * CHUNK_BYTES
    manager = ModelManager(catalogue=[entry(sha256(good_zip))])
    url = server.serve("/m.zip", good_zip)
    report = JobReport()
    report.progress = lambda done, total: report.cancel.cancel() if done > 0 else None

    with pytest.raises(Cancelled):
        manager.download(MODEL_NAME, report=report, url=url)

    part = manager.partial_path(MODEL_NAME)
    kept = part.stat().st_size
    assert 0 < kept < len(good_zip)
    assert part.read_bytes() == good_zip[:kept]
    assert_nothing_installed(manager)

    manager.download(MODEL_NAME, url=url)
    assert server.requests[-1] == ("/m.zip", f"bytes={kept}-")
    assert_installed_copy(manager, good_files)


def test_download_of_an_installed_model_returns_it_without_fetching(server: ModelServer, good_zip: bytes) -> None:
    manager = ModelManager(catalogue=[entry()])
    url = server.serve("/m.zip", good_zip)
    first = manager.download(MODEL_NAME, url=url)
    assert manager.download(MODEL_NAME, url=url) == first
    assert len(server.requests) == 1


def test_leftover_folder_without_manifest_is_replaced(server: ModelServer, good_zip: bytes, good_files) -> None:
    manager = ModelManager(catalogue=[entry()])
    leftover = manager.root / MODEL_NAME
    (leftover / "am").mkdir(parents=True)
    (leftover / "am" / "final.mdl").write_bytes(b"half-copied by hand")
    assert MODEL_NAME not in [m.name for m in manager.installed()]

    manager.download(MODEL_NAME, url=server.serve("/m.zip", good_zip))

    assert_installed_copy(manager, good_files)


def test_name_outside_the_catalogue_needs_a_url() -> None:
    with pytest.raises(NotFoundError) as info:
        ModelManager().download("vosk-model-none-0.0")
    assert str(info.value) == "vosk-model-none-0.0: not in the model catalogue"


@pytest.mark.parametrize("name", ["../escape", "", "a/b", ".hidden"], ids=["dotdot", "empty", "slash", "dot-first"])
def test_unsafe_model_names_are_refused(name: str) -> None:
    with pytest.raises(ParameterError) as info:
        ModelManager().download(name, url="http://127.0.0.1:9/x.zip")
    assert str(info.value) == (
        f"{name!r} is not a valid model name (letters, digits, '.', '_' and '-', starting with a letter or digit)"
    )


# -- failures -----------------------------------------------------------------------------------


@dataclass
class Ctx:
    """What a bad case needs to build its server route and its expected message."""

    server: ModelServer
    good: bytes
    url: str = ""


@dataclass
class BadCase:
    #: Sets up the route and returns the catalogue entry to use (ctx.url must be set).
    setup: Callable[[Ctx], CatalogueEntry]
    #: The exact error message.
    message: Callable[[Ctx], str]
    #: Whether the partial download stays for a later resume.
    keeps_part: bool = False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(ctx: Ctx, body: bytes, catalogue_entry: CatalogueEntry, **options: object) -> CatalogueEntry:
    ctx.url = ctx.server.serve("/m.zip", body, **options)
    return catalogue_entry


def _refused(ctx: Ctx) -> CatalogueEntry:
    ctx.url = f"http://127.0.0.1:{_free_port()}/m.zip"
    return entry()


def _missing(ctx: Ctx) -> CatalogueEntry:
    ctx.url = ctx.server.base_url + "/missing.zip"
    return entry()


_WRONG_LAYOUT = build_zip({"conf/model.conf": b"--beam=10\n", "graph/HCLr.fst": b"\0" * 100})
_TWO_TOP_FOLDERS = build_zip(
    {f"{top}/{rel}": data for top in ("a", "b") for rel, data in model_files(CURRENT_LAYOUT).items()}, top=None)
_UNSAFE = build_zip({"../evil.txt": b"x", **model_files(CURRENT_LAYOUT)}, top=None)

BAD_CASES = {
    "http-404": BadCase(
        _missing, lambda c: f"{MODEL_NAME}: cannot download {c.url}: the server answered HTTP 404 Not Found"),
    "http-500": BadCase(
        lambda c: _serve(c, c.good, entry(), status=500),
        lambda c: f"{MODEL_NAME}: cannot download {c.url}: the server answered HTTP 500 Internal Server Error"),
    "connection-refused": BadCase(
        _refused, lambda c: f"{MODEL_NAME}: cannot download {c.url}: connection refused"),
    "truncated-body": BadCase(
        lambda c: _serve(c, c.good, entry(), announced_length=len(c.good) + 5000),
        lambda c: f"{MODEL_NAME}: cannot download {c.url}: the server closed the connection "
                  f"after {len(c.good)} of {len(c.good) + 5000} bytes",
        keeps_part=True),
    "checksum-mismatch": BadCase(
        lambda c: _serve(c, corrupt_member(c.good, f"{MODEL_NAME}/am/final.mdl"), entry(sha256(c.good))),
        lambda c: f"{MODEL_NAME}: checksum mismatch: the download's SHA-256 is "
                  f"{sha256(corrupt_member(c.good, f'{MODEL_NAME}/am/final.mdl'))}, the catalogue lists {sha256(c.good)}"),
    "size-mismatch": BadCase(
        lambda c: _serve(c, c.good, entry(size_bytes=len(c.good) + 1)),
        lambda c: f"{MODEL_NAME}: the download is {len(c.good)} bytes but the catalogue lists {len(c.good) + 1} bytes"),
    "bad-crc": BadCase(
        lambda c: _serve(c, corrupt_member(c.good, f"{MODEL_NAME}/graph/HCLr.fst"), entry()),
        lambda c: f"{MODEL_NAME}: the zip archive is corrupt ({MODEL_NAME}/graph/HCLr.fst fails its CRC check)"),
    "not-a-zip": BadCase(
        lambda c: _serve(c, b"<html><body>Model moved</body></html>\n", entry()),
        lambda c: f"{MODEL_NAME}: the download is not a zip archive"),
    "wrong-layout": BadCase(
        lambda c: _serve(c, _WRONG_LAYOUT, entry()),
        lambda c: f"{MODEL_NAME}: not a Vosk model: the archive needs one top folder holding "
                  "am/final.mdl and conf/model.conf (or final.mdl)"),
    "two-top-folders": BadCase(
        lambda c: _serve(c, _TWO_TOP_FOLDERS, entry()),
        lambda c: f"{MODEL_NAME}: not a Vosk model: the archive needs one top folder holding "
                  "am/final.mdl and conf/model.conf (or final.mdl)"),
    "unsafe-path": BadCase(
        lambda c: _serve(c, _UNSAFE, entry()),
        lambda c: f"{MODEL_NAME}: the archive holds an unsafe path: ../evil.txt"),
}


@pytest.mark.parametrize("case", BAD_CASES.values(), ids=BAD_CASES.keys())
def test_bad_download_raises_one_clear_line_and_installs_nothing(
    server: ModelServer, good_zip: bytes, case: BadCase
) -> None:
    ctx = Ctx(server, good_zip)
    manager = ModelManager(catalogue=[case.setup(ctx)])

    with pytest.raises(ModelError) as info:
        manager.download(MODEL_NAME, url=ctx.url)

    assert str(info.value) == case.message(ctx)
    assert "\n" not in str(info.value)
    assert_nothing_installed(manager)
    assert manager.partial_path(MODEL_NAME).exists() == case.keeps_part
    assert not (manager.root.parent / "evil.txt").exists()


def test_disk_error_is_one_clear_line(server: ModelServer, good_zip: bytes) -> None:
    manager = ModelManager(catalogue=[entry()])
    manager.root.mkdir(parents=True)
    (manager.root / ".partial").write_bytes(b"a file where the partial-download folder belongs")

    with pytest.raises(ModelError) as info:
        manager.download(MODEL_NAME, url=server.serve("/m.zip", good_zip))

    assert str(info.value) == f"{MODEL_NAME}: cannot create {manager.root / '.partial'}: File exists"
    assert_nothing_installed(manager)
    assert server.requests == []


def _whisper_entry() -> CatalogueEntry:
    return CatalogueEntry("faster-whisper-test", "multi", 1, None, None, "small", "fake Whisper model for tests",
                          engine="whisper", repo="test/faster-whisper-test",
                          files=("model.bin", "config.json", "tokenizer.json", "vocabulary.txt"))


def test_a_whisper_model_is_fetched_file_by_file_and_installed_with_its_manifest(server: ModelServer) -> None:
    files = {"model.bin": bytes(range(256)) * 400, "config.json": b"{}", "tokenizer.json": b"{}", "vocabulary.txt": b"a"}
    for name, body in files.items():
        server.serve(f"/w/{name}", body)
    manager = ModelManager(catalogue=[_whisper_entry()])
    model = manager.download("faster-whisper-test", url=server.base_url + "/w", language="de")
    assert (model.engine, model.language, model.source) == ("whisper", "de", "download")
    assert {p.name: p.read_bytes() for p in model.path.iterdir() if p.name != MANIFEST_NAME} == files
    manifest = json.loads((model.path / MANIFEST_NAME).read_text())
    assert manifest["files_sha256"] == {name: sha256(body) for name, body in files.items()}
    assert manifest["sha256_verified"] is False
    assert [m.name for m in manager.installed() if m.source == "download"] == ["faster-whisper-test"]
    assert manager.resolve("faster-whisper-test").engine == "whisper"
    assert not (manager.root / ".partial" / "faster-whisper-test").exists()


def test_a_whisper_download_missing_a_file_leaves_nothing_installed(server: ModelServer) -> None:
    for name in ("model.bin", "config.json", "vocabulary.txt"):
        server.serve(f"/w/{name}", b"x")
    manager = ModelManager(catalogue=[_whisper_entry()])
    with pytest.raises(ModelError, match=r"^faster-whisper-test: cannot download .*/w/tokenizer.json: .*HTTP 404"):
        manager.download("faster-whisper-test", url=server.base_url + "/w")
    assert [m.name for m in manager.installed() if m.source == "download"] == []
    assert not (manager.root / "faster-whisper-test").exists()


@pytest.mark.parametrize("url", ["", "/tmp/model.zip", "model.zip"], ids=["empty", "path", "bare-name"])
def test_a_url_that_is_no_address_is_the_models_error(url: str, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"^my-model: cannot download .*: not an address"):
        ModelManager(root=tmp_path).download("my-model", url=url)
