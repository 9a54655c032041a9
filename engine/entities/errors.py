"""Errors of the entity scorer and tagger."""

from __future__ import annotations

from engine.errors import EarshotError


class MarkupError(EarshotError):
    """Entity mark-up that cannot be read: the message names the file, line and column."""

    def __init__(self, source: str, line: int, column: int, reason: str) -> None:
        self.source, self.line, self.column, self.reason = source, line, column, reason
        super().__init__(f"{source}:{line}:{column}: {reason}")


class TranscriptError(EarshotError):
    """A transcript file (CTM, STM, trn) whose lines do not follow the format."""
