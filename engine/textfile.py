"""Text files in the encodings caption and subtitle files come in, read without replacing a character.

The rule, in order: a byte-order mark names the encoding (UTF-8, UTF-16 or UTF-32); text that is
valid UTF-8 is UTF-8; text whose every other byte is zero is BOM-less UTF-16; anything else is
Windows-1252, the superset of Latin-1 that broadcast caption tools write (its five unassigned
bytes, which Latin-1 maps to control codes, fall back to Latin-1). UTF-8 almost never validates
by accident on Western European text in a single-byte encoding, so the order is safe, and unlike
a statistical guess it cannot call a short Latin-1 file Cyrillic.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from engine.userfiles import read_bytes

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),  # before UTF-16: they share a prefix
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)


def detect_encoding(raw: bytes) -> str:
    """The codec name :func:`decode_text` reads ``raw`` with."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return name
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    sample = raw[:4096]
    if len(sample) >= 4:
        if sample[1::2].count(0) > 0.9 * (len(sample) // 2) and sample[0::2].count(0) < 0.1 * (len(sample) // 2):
            return "utf-16-le"
        if sample[0::2].count(0) > 0.9 * (len(sample) // 2) and sample[1::2].count(0) < 0.1 * (len(sample) // 2):
            return "utf-16-be"
    try:
        raw.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def decode_text(raw: bytes) -> str:
    """``raw`` as text in the encoding :func:`detect_encoding` finds; a byte-order mark is dropped.

    Raises UnicodeDecodeError only for damaged UTF-16 or UTF-32 (a mark followed by an odd tail).
    """
    return raw.decode(detect_encoding(raw))


def read_text(path: str | Path) -> str:
    """The text of the regular file at ``path`` (see :func:`decode_text`). Raises OSError as
    :func:`engine.userfiles.read_bytes` does (a device, pipe or socket is refused, not read for
    ever), and ValueError naming the encoding for a file that claims UTF-16 or UTF-32 and is not."""
    raw = read_bytes(path)
    try:
        return decode_text(raw)
    except UnicodeDecodeError as exc:
        raise ValueError(f"not readable as {exc.encoding} text although it starts as such") from None
