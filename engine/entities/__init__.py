"""Named entities on speech transcripts.

Tagging lower-case recognizer output (:mod:`engine.entities.tagger`: ``tag_words``,
``load_tagger``) into the spans of :mod:`.spans`. Scoring tagged output against a
reference lives in :mod:`engine.evaluate.entities`.
"""

from engine.entities.spans import EntitySpan, Transcript

__all__ = ["EntitySpan", "Transcript"]
