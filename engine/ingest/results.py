"""What a recognition worker sends back for one file: its words, the rows derived from them, and stage times.

Kept apart from the work that makes them (:mod:`engine.ingest.transcribe`, :mod:`engine.ingest.analyze`):
the job's process unpickles these and, importing this module alone, never loads the recogniser, the
detectors or the story and entity models.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.asr.base import Word
from engine.storage.store import EntityRow, EventRow, SpeakerTurns, StoryRow


@dataclass
class Analysis:
    """Index rows derived from one recording, with the seconds each stage took."""

    events: list[EventRow] = field(default_factory=list)
    x_duration: list[float] | None = None
    transcribed: list[bool] | None = None
    stories: list[StoryRow] = field(default_factory=list)
    entities: list[EntityRow] = field(default_factory=list)
    speakers: SpeakerTurns = field(default_factory=SpeakerTurns)
    times: dict[str, float] = field(default_factory=dict)


@dataclass
class StageTimes:
    """Seconds of wall time spent in each stage of one file's ingest."""

    decode: float = 0.0
    transcribe: float = 0.0
    detect: float = 0.0
    analyze: float = 0.0
    store: float = 0.0
    language: float = 0.0
    speakers: float = 0.0
    #: CPU seconds of the speaker stage's thread (the wall time above counts other programs' turns too).
    speakers_cpu: float = 0.0
    #: Seconds of the detect and speakers stages that ran beside recognition (counted in both, once in total).
    beside: float = 0.0

    @property
    def total(self) -> float:
        return (self.decode + self.transcribe + self.detect + self.analyze + self.store + self.language + self.speakers
                - self.beside)  # fmt: skip


@dataclass
class Transcript:
    """What recognition produced for one file."""

    words: list[Word]
    #: (first word index, last word index inclusive) per search segment.
    segments: list[tuple[int, int]]
    #: seconds of audio actually decoded.
    audio_seconds: float
    times: StageTimes = field(default_factory=StageTimes)
    analysis: Analysis = field(default_factory=Analysis)
    #: the language identified and transcribed in (ISO 639-1), and a note on it for the user.
    language: str = ""
    language_note: str = ""
