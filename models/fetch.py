"""HTTP download into a ``.part`` file that a later call resumes with a Range request."""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import BinaryIO

from engine.errors import ModelError
from engine.jobs import JobReport

#: Bytes read per chunk; cancel is checked and progress reported between chunks.
CHUNK_BYTES = 64 * 1024
#: Seconds without any answer before a connection counts as dead.
TIMEOUT_S = 30.0
USER_AGENT = "Earshot-model-manager/1"

_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED_RANGE = re.compile(r"bytes\s+\*/(\d+)")


def fetch(url: str, part: Path, *, name: str, report: JobReport, expected_bytes: int | None = None) -> int:
    """Download ``url`` into ``part``, resuming the bytes already there; return the file's size in bytes.

    A server that ignores the Range request (answers 200) is read from byte 0
    and the part file rewritten. ``report.progress(bytes_done, bytes_total)``
    is called after every chunk (``bytes_total`` is 0 when neither the server
    nor ``expected_bytes`` gives it). Cancelling raises Cancelled between
    chunks and keeps the part file for a later resume. Every other failure
    raises ModelError naming ``name`` and the reason.
    """
    for _attempt in range(2):
        offset = part.stat().st_size if part.exists() else 0
        try:
            response = _open(url, offset)
        except urllib.error.HTTPError as exc:
            content_range = (exc.headers.get("Content-Range") if exc.headers else None) or ""
            exc.close()
            if exc.code != 416 or not offset:
                raise ModelError(
                    f"{name}: cannot download {url}: the server answered HTTP {exc.code} {exc.reason}"
                ) from None
            match = _UNSATISFIED_RANGE.fullmatch(content_range.strip())
            if match and int(match[1]) == offset:  # the part file is already complete
                report.progress(offset, offset)
                return offset
            _discard(part, name)
            continue
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise ModelError(f"{name}: cannot download {url}: {_connection_problem(exc)}") from None
        except ValueError:  # urllib's word for '', a bare path or an unknown scheme
            raise ModelError(f"{name}: cannot download {url!r}: not an address (give an http:// or https:// URL)") from None
        with response:
            start, total = _body_span(response, offset)
            if start is None:  # a 206 for some other range: start over
                _discard(part, name)
                continue
            return _copy(response, part, start=start, total=total, shown_total=total or expected_bytes or 0,
                         name=name, url=url, report=report)
    raise ModelError(f"{name}: cannot download {url}: the server does not answer byte-range requests consistently")


def _open(url: str, offset: int) -> http.client.HTTPResponse:
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=TIMEOUT_S)


def _body_span(response: http.client.HTTPResponse, offset: int) -> tuple[int | None, int | None]:
    """(first byte the body holds, total file size) for a 200 or 206 answer; start None if unusable."""
    length = response.headers.get("Content-Length")
    body_bytes = int(length) if length and length.isdigit() else None
    if response.status != 206:
        return 0, body_bytes
    match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
    if not match or int(match[1]) != offset:
        return None, None
    if match[3] != "*":
        return offset, int(match[3])
    return offset, offset + body_bytes if body_bytes is not None else None


def _copy(response: http.client.HTTPResponse, part: Path, *, start: int, total: int | None, shown_total: int,
          name: str, url: str, report: JobReport) -> int:
    """Append the body to ``part`` (rewrite it if ``start`` is 0); ``total`` is what the server said, if anything."""
    done = start
    report.progress(done, shown_total)
    with _open_part(part, append=start > 0, name=name) as out:
        while True:
            report.cancel.raise_if_cancelled()
            try:
                chunk = response.read(CHUNK_BYTES)
            except (OSError, http.client.HTTPException) as exc:
                why = f"the connection broke after {done} bytes ({_connection_problem(exc)})"
                raise ModelError(f"{name}: cannot download {url}: {why}") from None
            if not chunk:
                break
            try:
                out.write(chunk)
            except OSError as exc:
                raise ModelError(f"{name}: cannot write {part}: {exc.strerror or exc}") from None
            done += len(chunk)
            report.progress(done, shown_total)
    if total is not None and done != total:
        raise ModelError(
            f"{name}: cannot download {url}: the server closed the connection after {done} of {total} bytes"
        )
    return done


def _open_part(part: Path, *, append: bool, name: str) -> BinaryIO:
    try:
        return open(part, "ab" if append else "wb")
    except OSError as exc:
        raise ModelError(f"{name}: cannot write {part}: {exc.strerror or exc}") from None


def _discard(part: Path, name: str) -> None:
    try:
        part.unlink(missing_ok=True)
    except OSError as exc:
        raise ModelError(f"{name}: cannot remove the stale partial download {part}: {exc.strerror or exc}") from None


def _connection_problem(exc: BaseException) -> str:
    """A short, platform-independent reason for a failed connection or read."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) and isinstance(exc.reason, BaseException) else exc
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, ConnectionResetError):
        return "connection reset"
    if isinstance(reason, TimeoutError):
        return f"no answer within {TIMEOUT_S:.0f} s"
    if isinstance(reason, socket.gaierror):
        return "unknown host"
    if isinstance(reason, ssl.SSLError):
        return f"secure connection failed ({reason.reason or reason})"
    if isinstance(reason, http.client.IncompleteRead):
        return "incomplete read"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__
