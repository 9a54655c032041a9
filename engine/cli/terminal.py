"""Text from files and file names, made safe to print on a terminal."""

from __future__ import annotations

#: C0 controls, DEL and C1 controls: a name holding ESC could recolour or rewrite the user's terminal.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}


def shown(text: object) -> str:
    """``text`` with every control character (newline and tab too), and every byte of a file name that
    is not UTF-8, written as ``\\xNN``: a name reads the same here as the index stores it.

    For one line of output built from names, paths and messages; never for a transcript or
    JSON written whole.
    """
    line = str(text)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # an undecodable byte of a file name, held as a surrogate
        line = line.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return line.translate(_CONTROLS)
