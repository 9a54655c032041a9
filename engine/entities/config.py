"""Costs, defaults and tolerances of the entity scorer and tagger, in one place.

Kernels take every number they need as an argument; the defaults come from here.
Section names refer to Burger, Palmer & Hirschman (MITRE), "Named entity scoring
for speech input" (the paper in ``shared/papers``).
"""

from __future__ import annotations

#: sclite's word costs (SCTK ``word.c``, ``wwd_WORD``): correct 0, insertion and
#: deletion 3, substitution 4. Integers so that ties are exact.
SCLITE_INS = 3
SCLITE_DEL = 3
SCLITE_SUB = 4

#: Default extent tolerance (section 2.4: "the latter being the default setting
#: in our implementation"), in alignment columns.
DEFAULT_TOLERANCE = 1

#: Coarse anchoring (section 2.1): runs of at least this many identical words.
ANCHOR_MIN_RUN = 3

#: Two runs are the same stretch of speech only if their times differ by at most
#: this many seconds (reference word times are estimated inside segments).
ANCHOR_TIME_WINDOW = 30.0

#: A stretch with more words than this (on either side) between anchors, or in one
#: segment, is cut by anchors before dynamic programming; shorter ones are aligned
#: whole, exactly as sclite aligns one utterance.
MAX_DP_WORDS = 600

#: Longest word a transcript file may hold, characters: a longer "word" is a damaged file or
#: not a transcript, and spelling it out letter by letter would take the aligner minutes.
MAX_WORD_CHARS = 100

#: Phonetic alignment costs (units: one phone inserted or deleted = 1).
PHONE_INDEL = 1.0
#: Word boundary inserted or deleted: cheap, so a word may split in two
#: (GINGRICH ~ GOOD RICH) without a phone being lost.
BOUNDARY_INDEL = 0.4
#: Substituting a vowel by a consonant (semivowels excepted) costs this much.
PHONE_SUB_VOWEL_CONSONANT = 1.6
#: Floor of a substitution between two different phones of the same class.
PHONE_SUB_BASE = 0.35

#: Entity types the scorer accepts, by mark-up element (MUC-7 named entity task).
ENAMEX_TYPES = ("PERSON", "LOCATION", "ORGANIZATION")
TIMEX_TYPES = ("DATE", "TIME")
NUMEX_TYPES = ("MONEY", "PERCENT")
#: The paper's short tags.
SHORT_TAGS = {"P": "PERSON", "L": "LOCATION", "O": "ORGANIZATION"}

#: Tagger: words whose Zipf frequency (log10 per billion words, wordfreq) is at
#: least this are "common" and are not taken as a one-word name without context.
COMMON_ZIPF = 4.2
#: Frequent enough that even a country or big-city reading needs support.
VERY_COMMON_ZIPF = 5.3
#: Smallest city population for a one-word city match.
CITY_MIN_POPULATION = 100_000

#: Structured perceptron: passes over the training data.
PERCEPTRON_EPOCHS = 12
#: Features seen fewer times than this in training are dropped.
FEATURE_MIN_COUNT = 2

#: Words carry case (and go to the cased tagger) when at least this share of those with
#: letters has a capital ...
CASED_MIN_CAPITALISED = 0.02
#: ... and fewer than this share is written all in capitals (captions in capitals are all
#: capitals; news text with headlines and tables of team abbreviations is not). Chosen on CoNLL
#: testa: at 0.5 the 1% of its documents that are mostly capitals went to the rules (F 0.898
#: over testa), at 0.9 none did (F 0.914).
CASED_MAX_ALL_CAPITALS = 0.9
