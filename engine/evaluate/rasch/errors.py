"""Errors of the Rasch tool; all are :class:`engine.errors.EarshotError`."""

from __future__ import annotations

from engine.errors import EarshotError


class MatrixFileError(EarshotError):
    """A response matrix or anchor file cannot be used.

    The message is one line: the file, then line and column where they are
    known, then the reason, e.g. ``runs.csv: line 5, column 3: value '2' ...``.
    """

    def __init__(self, path: object, reason: str, *, line: int | None = None, column: int | None = None) -> None:
        self.path = str(path)
        self.reason = reason
        self.line = line
        self.column = column
        where = []
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        prefix = f"{self.path}: {', '.join(where)}: " if where else f"{self.path}: "
        super().__init__(prefix + reason)


class EstimationError(EarshotError):
    """The data admit no finite Rasch measures (e.g. a perfect Guttman pattern)."""
