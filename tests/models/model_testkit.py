"""Test kit for the model manager: tiny fake model folders and zips, and a local HTTP server.

The fake models have the Vosk layout (what the manager checks) but are not
loadable by Kaldi. The server runs on 127.0.0.1 in a thread, honours
``Range: bytes=N-`` unless told not to, and records every request.
"""

from __future__ import annotations

import io
import random
import re
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODEL_NAME = "vosk-model-test-0.1"

#: Files of a fake model in the current layout, relative to its top folder; sizes chosen so the zip spans
#: several download chunks (models.fetch.CHUNK_BYTES).
CURRENT_LAYOUT: dict[str, int | str] = {
    "am/final.mdl": 180_000,
    "conf/model.conf": "--min-active=200\n--max-active=3000\n--beam=10.0\n",
    "conf/mfcc.conf": "--use-energy=false\n--sample-frequency=16000\n",
    "graph/HCLr.fst": 60_000,
    "graph/phones/word_boundary.int": "1 nonword\n2 begin\n",
    "README": "Fake Vosk model for Earshot's tests\n",
}
#: The older layout: final.mdl at the top of the model folder.
FLAT_LAYOUT: dict[str, int | str] = {
    "final.mdl": 150_000, "HCLG.fst": 40_000, "mfcc.conf": "--use-energy=false\n", "words.txt": "a 1\n",
}


def model_files(layout: dict[str, int | str], seed: int = 7) -> dict[str, bytes]:
    """File contents for a layout: text as given, sizes as random (incompressible) bytes from a fixed seed."""
    rng = random.Random(seed)
    return {rel: spec.encode() if isinstance(spec, str) else rng.randbytes(spec) for rel, spec in layout.items()}


def write_model(folder: Path, files: dict[str, bytes]) -> Path:
    """Write ``files`` under ``folder``; return ``folder``."""
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def build_zip(files: dict[str, bytes], top: str | None = MODEL_NAME) -> bytes:
    """A zip (stored, not compressed) holding ``files`` under the folder ``top`` (at the root if None)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        if top:
            zf.writestr(f"{top}/", b"")
        for rel, data in files.items():
            zf.writestr(f"{top}/{rel}" if top else rel, data)
    return buffer.getvalue()


def corrupt_member(archive: bytes, member: str, *, at: int = 1000) -> bytes:
    """``archive`` with one byte flipped inside ``member``'s data, so its CRC no longer matches."""
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        info = zf.getinfo(member)
    header = archive[info.header_offset: info.header_offset + 30]
    name_len, extra_len = int.from_bytes(header[26:28], "little"), int.from_bytes(header[28:30], "little")
    pos = info.header_offset + 30 + name_len + extra_len + at
    return archive[:pos] + bytes([archive[pos] ^ 0xFF]) + archive[pos + 1:]


@dataclass
class Route:
    """What the server answers for one path."""

    body: bytes = b""
    status: int = 200
    honour_range: bool = True
    #: Content-Length to announce instead of the real one (to cut a body short).
    announced_length: int | None = None


@dataclass
class ModelServer:
    """A local HTTP server for model archives; ``requests`` holds (path, Range header or None)."""

    base_url: str = ""
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    bytes_sent: int = 0

    def serve(self, path: str, body: bytes = b"", **options: object) -> str:
        """Serve ``body`` at ``path`` (see Route for options); return its URL."""
        self.routes[path] = Route(body, **options)  # type: ignore[arg-type]
        return self.base_url + path


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        state = self.server.state
        range_header = self.headers.get("Range")
        state.requests.append((self.path, range_header))
        route = state.routes.get(self.path)
        if route is None:
            self.send_error(404)
            return
        if route.status != 200:
            self.send_error(route.status)
            return
        body, start = route.body, 0
        match = re.fullmatch(r"bytes=(\d+)-", range_header or "")
        if match and route.honour_range:
            start = int(match[1])
            if start >= len(body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        payload = body[start:]
        length = route.announced_length if route.announced_length is not None else len(payload)
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        # counted before the write: the client may read the last byte and the test check the count before this
        # handler thread runs again
        state.bytes_sent += len(payload)
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: ModelServer


@contextmanager
def running_server() -> Iterator[ModelServer]:
    """Start a model server on a free port of 127.0.0.1; stop it on exit."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.state = ModelServer(base_url=f"http://127.0.0.1:{httpd.server_address[1]}")
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), name="model-server", daemon=True)
    thread.start()
    try:
        yield httpd.state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
