"""The reason line for a user's file that the operating system would not give us."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import file_access_reason


def _os_error(path: Path) -> OSError:
    try:
        path.read_bytes()
    except OSError as exc:
        return exc
    raise AssertionError(f"{path} was readable")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: tmp / "absent.csv", "file not found"),
        (lambda tmp: tmp, "is a folder, not a file"),
        (lambda tmp: (tmp / "f").touch() or tmp / "f" / "below", "cannot read: Not a directory"),
    ],
    ids=["missing", "folder", "below-a-file"],
)
def test_reason_names_what_the_os_refused(tmp_path: Path, make, reason: str) -> None:
    assert file_access_reason(_os_error(make(tmp_path)), "read") == reason


def test_each_caller_keeps_its_wording(tmp_path: Path) -> None:
    missing = _os_error(tmp_path / "gone.wav")
    assert file_access_reason(missing, "access", missing="gone") == "gone"
    assert file_access_reason(IsADirectoryError(21, "Is a directory"), "read", folder="a folder") == "a folder"
    assert file_access_reason(PermissionError(13, "Permission denied"), "read") == "permission denied"
    assert file_access_reason(OSError("disk on fire"), "open") == "cannot open: disk on fire"
