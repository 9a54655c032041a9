"""Named entities on speech transcripts.

Tagging lower-case recognizer output (:mod:`engine.entities.tagger`: ``tag_words``,
``load_tagger``) and scoring tagged recognizer output against a marked-up reference whose
words differ, after Burger, Palmer & Hirschman, "Named entity scoring for speech input":
read (:mod:`.markup`, :mod:`.readers`), align (:mod:`.align`), map (:mod:`.mapping`),
compare (:mod:`.compare`), count (:mod:`.score`), print (:mod:`.report`).
"""

from engine.entities.spans import EntitySpan, Transcript

__all__ = ["EntitySpan", "Transcript"]
