"""Named entities on speech transcripts.

Tagging recognizer output, cased or lower case (:mod:`engine.entities.tagger`: ``tag_shown``, ``tag_words``,
``load_tagger``) into the spans of :mod:`.spans`. Scoring tagged output against a
reference lives in :mod:`engine.evaluate.entities`.
"""

from engine.entities.spans import EntitySpan, Transcript

__all__ = ["EntitySpan", "Transcript"]
