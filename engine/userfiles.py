"""Reading the files a user names: whole, or refused when they are not files at all.

``Path.read_text`` on a link to ``/dev/zero`` reads until memory runs out, and on a pipe
waits for ever; these readers refuse a device, pipe or socket with an ``OSError`` (as a
missing or unreadable file gets one), so each caller's existing ``except OSError`` names
the file and the reason in one line.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

#: The reason an ``OSError`` gives for a device, pipe or socket.
NOT_REGULAR = "not a regular file (a device, pipe or socket)"


def read_bytes(path: str | Path) -> bytes:
    """The bytes of the regular file at ``path`` (links followed).

    Raises IsADirectoryError for a folder, OSError (EINVAL, ``NOT_REGULAR``) for a device,
    pipe or socket, and whatever ``open`` raises for a missing or unreadable one.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe with no writer would block the open itself
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, str(path))
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read()
    finally:
        os.close(fd)


def read_text(path: str | Path, *, encoding: str = "utf-8", errors: str = "strict") -> str:
    """The text of the regular file at ``path``, newlines made ``\\n`` (as ``Path.read_text`` does).

    Raises as :func:`read_bytes` does, and UnicodeDecodeError with ``errors="strict"``.
    """
    text = read_bytes(path).decode(encoding, errors)
    return text.replace("\r\n", "\n").replace("\r", "\n")
