"""Scoring tagged recognizer output against a marked-up reference whose words differ.

After Burger, Palmer & Hirschman, "Named entity scoring for speech input": read
(:mod:`.markup`, :mod:`.readers`), align (:mod:`.align`), map (:mod:`.mapping`), compare
(:mod:`.compare`), count (:mod:`.score`), print (:mod:`.report`); :mod:`.simulate` makes
recognition errors for benchmarks and tests. The spans and transcripts it scores come from
:mod:`engine.entities`.
"""
