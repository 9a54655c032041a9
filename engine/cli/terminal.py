"""Text from files and file names, made safe to print on a terminal."""

from __future__ import annotations

#: C0 controls, DEL and C1 controls: a name holding ESC could recolour or rewrite the user's terminal.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}


def shown(text: object) -> str:
    """``text`` with every control character (newline and tab too) written as ``\\xNN``.

    For one line of output built from names, paths and messages; never for a transcript or
    JSON written whole.
    """
    return str(text).translate(_CONTROLS)
