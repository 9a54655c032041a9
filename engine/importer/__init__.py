"""Bringing in transcripts that already exist: subtitles, captions, timed text.

Public API::

    from engine.importer import import_transcript, read_captions
    rec_id = import_transcript(store, "news.srt", audio="news.mp4", notice=print)  # detectors run over news.mp4

See :mod:`engine.importer.captions` for the formats.
"""

from engine.importer.captions import FORMATS, Captions, Cue, SkippedRows, read_captions
from engine.importer.save import attach_audio, has_audio, import_transcript, matching_audio

__all__ = ["FORMATS", "Captions", "Cue", "SkippedRows", "attach_audio", "has_audio", "import_transcript",
           "matching_audio", "read_captions"]
