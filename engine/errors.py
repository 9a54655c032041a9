"""The project's own exceptions.

Engine and storage raise these; the CLI and the GUI each turn them into a
one-line user message in exactly one place.
"""

from __future__ import annotations


class EarshotError(Exception):
    """Base of every error Earshot reports to a user."""


class ParameterError(EarshotError, ValueError):
    """A caller passed an argument outside its documented range or shape."""


class AudioError(EarshotError):
    """A recording cannot be read or decoded.

    The message always starts with the file's path, then the reason.
    """

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __reduce__(self) -> tuple[type[AudioError], tuple[str, str]]:
        return type(self), (self.path, self.reason)  # it crosses process boundaries whole


class ModelError(EarshotError):
    """A speech model is missing, broken, or cannot be fetched."""


class StorageError(EarshotError):
    """The index cannot be opened, migrated or written."""


class NotFoundError(EarshotError):
    """A recording, model or other named thing does not exist."""


class Cancelled(EarshotError):
    """A long task stopped because its cancel flag was set."""


class IndexReadOnly(StorageError):
    """The index file, its folder or its disk does not allow writing (reading still works)."""


class IndexFull(StorageError):
    """The disk holding the index has no room left (reading still works)."""


class IndexDamaged(StorageError):
    """The index file fails SQLite's integrity check or is not an index at all."""


class NotAnIndex(StorageError):
    """The file is a sound SQLite database of another program, not an Earshot index."""


class IndexTooNew(IndexReadOnly):
    """The index was written by a newer Earshot (a schema this version does not know): it can only be read."""


def file_access_reason(exc: OSError, verb: str, *, missing: str = "file not found",
                       folder: str = "is a folder, not a file") -> str:
    """Why a user's file could not be reached, as the reason part of a one-line message.

    ``verb`` names what failed for an error other than missing, folder or permission
    (``"read"`` gives ``"cannot read: <strerror>"``); ``missing`` and ``folder`` let
    each caller keep its own wording. The caller wraps the reason in its own error class.
    """
    if isinstance(exc, FileNotFoundError):
        return missing
    if isinstance(exc, IsADirectoryError):
        return folder
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"cannot {verb}: {exc.strerror or exc}"


class LanguageMismatch(EarshotError):
    """A recording is in a language the chosen speech model cannot transcribe.

    The message starts with the file's path, says what was heard and what to do.
    """
