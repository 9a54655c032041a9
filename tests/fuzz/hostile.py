"""What the fuzz lane feeds the program: file contents, and hostile files of every kind on disk."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hypothesis import strategies as st

from tests.engine.test_file_parsers_fuzz import TOKENS

#: Shapes that broke parsers before, or come near the edges of the formats: long digit runs in
#: every time field, times without hours or with too many, unicode digits, huge numbers.
EDGE_TOKENS = ["9" * 30 + ":00:00,000 --> 00:00:02,000", "00:00:01,000 --> " + "9" * 4400 + ":00,000",
               "[" + "1" * 30 + ".5]", "1" * 5000, "00:00:01.000 --> 00:00:00.500", "01:02 text",
               "\u0661\u0662:\u0663\u0664", "²:00", "1:2:3:4:5", "TOP|" + "9" * 40, "TOP|20240101000000.000",
               "20240101000000.000|20240101000001.000|CC1|hello", "|" * 5, "SEG_00|Type=Story start",
               "99999999999999999999.000|1|CC1|x", "Type=Commercial", "1e-400", "-0", "0x10", "1_000"]
ALL_TOKENS = [*TOKENS, *EDGE_TOKENS]

_line = st.lists(st.sampled_from(ALL_TOKENS), max_size=8).map(" ".join)
#: Text made of the formats' own pieces, in any order.
near_valid = st.lists(_line, max_size=16).map("\n".join).map(lambda t: t.encode("utf-8"))
#: One line of up to 30 kB (a file that lost its line breaks; the CLI's hostile files hold a 1 MB one).
huge_line = st.tuples(st.sampled_from(ALL_TOKENS), st.integers(1, 6_000)).map(
    lambda t: ((t[0] + " ") * t[1])[:30_000].encode("utf-8"))
#: Any file: near-valid text (most often), random bytes, Latin-1, a huge line, or empty.
contents = st.one_of(
    near_valid,
    near_valid,
    near_valid,
    st.binary(max_size=600),
    near_valid.map(lambda b: b + b"\xe9\xff\x00"),
    near_valid.map(lambda b: b.decode("utf-8").encode("latin-1", errors="replace")),
    huge_line,
    st.just(b""),
)


def hostile_files(folder: Path, suffixes: tuple[str, ...]) -> list[str]:
    """Make every kind of file a user could wrongly name, for each suffix; return their paths.

    Empty, binary, a huge line, a Latin-1 (not UTF-8) name, a folder, a folder of junk, a
    symlink to /dev/zero, a dangling symlink, a missing file, a read-only file; plus /dev/null.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[str] = [os.devnull, str(folder / "missing" / "file.txt")]
    junk = folder / "junk-folder"
    junk.mkdir()
    (junk / "a.txt3").write_bytes(b"\x00\xff" * 50)
    (junk / "b.txt").write_text("no markers here\n")
    paths.append(str(junk))
    for suffix in suffixes:
        made = {
            f"empty{suffix}": b"",
            f"binary{suffix}": bytes(range(256)) * 4,
            f"huge-line{suffix}": b"00:00:01,000 " * 80_000,
            f"digits{suffix}": b"1\n" + b"9" * 5000 + b":00:01,000 --> 00:00:02,000\nhello\n",
        }
        for name, data in made.items():
            (folder / name).write_bytes(data)
            paths.append(str(folder / name))
        latin1 = os.fsencode(folder) + b"/caf\xe9" + suffix.encode()
        with open(latin1, "wb") as f:
            f.write(b"caf\xe9 \xe9t\xe9\n")
        paths.append(os.fsdecode(latin1))
        (folder / f"folder{suffix}").mkdir()
        paths.append(str(folder / f"folder{suffix}"))
        (folder / f"zero{suffix}").symlink_to("/dev/zero")
        paths.append(str(folder / f"zero{suffix}"))
        (folder / f"dangling{suffix}").symlink_to(folder / "nowhere")
        paths.append(str(folder / f"dangling{suffix}"))
        paths.append(str(folder / f"missing{suffix}"))
        readonly = folder / f"read-only{suffix}"
        readonly.write_bytes(b"00:00:01,000 --> 00:00:02,000\nread only\n")
        readonly.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        paths.append(str(readonly))
    return paths
