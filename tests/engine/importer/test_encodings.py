"""Caption files in UTF-8, UTF-16 (with and without a byte-order mark), Windows-1252 and Latin-1
are read as written, and what they say is searchable as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParameterError
from engine.importer import import_transcript, read_captions
from engine.search import search
from engine.storage.store import Store
from engine.textfile import decode_text, detect_encoding

SRT = """1
00:00:01,000 --> 00:00:04,250
In München the café’s owner said: “never”.

2
00:00:05,000 --> 00:00:09,500
Señora Muñoz paid 5 € for crème brûlée.
"""


@pytest.mark.parametrize(("encoding", "bom"), [
    ("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
    ("utf-16-le", b""), ("cp1252", b""),
])
def test_each_encoding_reads_as_written(tmp_path: Path, encoding: str, bom: bytes) -> None:
    path = tmp_path / "cafe.srt"
    path.write_bytes(bom + SRT.encode(encoding))
    text = " ".join(cue.text for cue in read_captions(path).cues)
    assert "\ufffd" not in text
    assert "München" in text and "café’s" in text and "€" in text and "brûlée" in text


def test_latin1_without_the_euro_reads_as_written(tmp_path: Path) -> None:
    latin = SRT.replace("’", "'").replace("“", '"').replace("”", '"').replace("€", "EUR")
    path = tmp_path / "cafe.srt"
    path.write_bytes(latin.encode("latin-1"))
    assert "In München the café's owner" in read_captions(path).cues[0].text


def test_a_latin1_caption_is_found_by_its_accented_word(tmp_path: Path) -> None:
    path = tmp_path / "münchen.srt"
    path.write_bytes(SRT.encode("latin-1", errors="replace"))
    with Store(tmp_path / "index.sqlite") as store:
        import_transcript(store, path)
        hits = search(store, "münchen")
        assert hits and "München" in hits[0].snippet


def test_detection_rule() -> None:
    assert detect_encoding(b"plain") == "utf-8"
    assert detect_encoding("é".encode("latin-1")) == "cp1252"
    assert detect_encoding(b"\x81\xe9") == "latin-1"  # 0x81 is unassigned in Windows-1252
    assert decode_text(b"\xff\xfe" + "né".encode("utf-16-le")) == "né"
    assert decode_text(b"\xef\xbb\xbfna\xc3\xafve") == "naïve"


def test_damaged_utf16_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "half.srt"
    path.write_bytes(b"\xff\xfe" + "1\n".encode("utf-16-le") + b"\x00")
    with pytest.raises(ParameterError, match=r"half\.srt: not readable as utf-16"):
        read_captions(path)
