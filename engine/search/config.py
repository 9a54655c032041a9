"""Sizes, weights and defaults of passage search, in one place.

Kernels take every number they need as an argument; the defaults come from here.
Names follow Wade and Allan, "Passage Retrieval and Evaluation" (UMass CIIR, 2005),
sections 2-4.
"""

from __future__ import annotations

#: A passage is this many stopped (non-stop-word) tokens, section 4: "an index of
#: stopped 100 word, half-overlapping passages". Windows start every
#: ``PASSAGE_TOKENS // 2`` tokens, so the index stores half-passages ("blocks")
#: and a passage is two neighbouring blocks of one story.
PASSAGE_TOKENS = 100
BLOCK_TOKENS = PASSAGE_TOKENS // 2

#: Models available by name; the first is the default (section 3).
MODELS = ("mm", "tfidf", "ql", "rmp", "rmd", "qwd")
DEFAULT_MODEL = "mm"

#: Jelinek-Mercer weight of the collection model in query likelihood, eq. 8.
QL_COLLECTION_WEIGHT = 0.5

#: Relevance model (section 3.3): |R| feedback units, at most ``RM_TERMS`` terms
#: each with P(w|R) >= ``RM_MIN_PROB``; the truncated model is renormalised,
#: smoothed with the collection model restricted to its own terms (weight
#: ``RM_COLLECTION_WEIGHT``), then mixed with the query's maximum-likelihood
#: model (weight ``RM_QUERY_WEIGHT``, eq. 11).
RM_FEEDBACK = 20
RM_TERMS = 100
RM_MIN_PROB = 0.001
RM_COLLECTION_WEIGHT = 0.1
RM_QUERY_WEIGHT = 0.5

#: Mixture model weights, eq. 14: corpus, document (story), passage.
MM_WEIGHTS = (0.8, 0.1, 0.1)

#: The mixture model's document for a passage (eq. 14): 0 = its story as the index cut it; K > 0 =
#: its *context window*, the stopped tokens within K words either side of it in its recording,
#: clipped only at stories that came with the transcript (no posterior stored), so a boundary the
#: segmenter missed or put wrong does not decide the document. Candidates are then the blocks
#: around the matched blocks (``CONTEXT_FETCH_WORDS`` beyond twice the reach, so every scored
#: passage's window is whole), and a passage is scored only within K words of a matched block.
#: Off: held out on the NewsScape days (``bench/segment_landing_bench.py``, K = 1,200 chosen on
#: every day) it lifts R-precision without boundaries and on our stories by amounts no paired
#: test tells from chance, and lowers passage R-precision on our stories.
MM_CONTEXT_WORDS = 0
CONTEXT_FETCH_WORDS = 400
#: With context windows, a story given with the transcript is still the whole document of its passages
#: (a hand-cut story is trusted; K only replaces the segmenter's stories and the lack of any).
CONTEXT_GIVEN_WHOLE = True

#: Query word density (section 3.6): the heaviest expanded-query term marks this
#: many stopped tokens either side of each occurrence; the others proportionally
#: less (rounded). Marked runs of at least ``QWD_MIN_CHARS`` characters are passages.
QWD_MAX_RADIUS = 25
QWD_MIN_CHARS = 400

#: Candidate generation: the best ``CANDIDATE_BLOCKS`` blocks by SQLite FTS5's
#: bm25 over the query's terms, then every block of the stories they come from,
#: best story first, up to ``CANDIDATE_DOCS`` stories and ``CANDIDATE_BLOCK_BUDGET``
#: blocks in all (a story bigger than the budget on its own is still taken whole
#: when it comes first).
CANDIDATE_BLOCKS = 1000
CANDIDATE_DOCS = 50
CANDIDATE_BLOCK_BUDGET = 1500
#: FTS5 ranks every row its MATCH expression matches, so the expression takes the
#: query's rarest terms while their estimated matching blocks (passage df / 2) add
#: up to at most this many; the commoner terms still count in scoring. When even
#: the rarest term matches more, the expression asks for all the terms together
#: (and only when that finds nothing, for any of them).
CANDIDATE_MATCH_BUDGET = 4000

#: Hot-spot blend: final = text + HOTSPOT_WEIGHT * audio, where text is the model
#: score min-max scaled to [0, 1] over the re-ranked head and audio is the
#: weighted sum of the features below (each in [0, 1]). 0 ranks by text alone.
HOTSPOT_WEIGHT = 0.15
#: How many of the best text-ranked units the blend may re-order (at least the limit).
HOTSPOT_DEPTH = 100
#: Feature weights (they sum to 1).
HOTSPOT_FEATURE_WEIGHTS = {"events": 0.5, "rate": 0.2, "entities": 0.3}
#: Audio event types that mark a hot spot, and how much each counts (times the
#: event's own score when it has one). The names are engine.detect's; "noise" is
#: its steady non-speech sound such as crowds and cheering.
HOTSPOT_EVENT_TYPES = {"applause": 1.0, "laughter": 1.0, "audience": 1.0, "noise": 0.5}
#: An event this close to a passage (seconds) counts as "around" it; the same
#: margin decides the event-type filter and the events listed with a hit.
EVENT_MARGIN_SECONDS = 5.0
#: Speech-rate feature: |log(passage words per second / recording's)| divided by
#: log(RATE_SCALE), capped at 1 (1.5: half again as fast or slow scores 1).
RATE_SCALE = 1.5

#: A hit plays from its first matched word less this lead-in (seconds), so the listener
#: hears the word arrive rather than land mid-syllable.
LEAD_IN_SECONDS = 1.0
#: The lead-in stops at the end of the last word before the anchor that ends a sentence or is
#: followed by a pause of at least this long (seconds): the listener hears the anchor's sentence
#: from its first word, not the tail of the sentence (or story) before it.
LEAD_IN_PAUSE_SECONDS = 0.3
#: How many words before the anchor are read to find where its sentence begins.
LEAD_IN_WORDS = 8
#: A hit plays from the first word of its densest run of matched words: the most within
#: this many words (a story's own words cluster; a stray query word elsewhere does not).
ANCHOR_WORDS = 30
#: Where a hit starts and ends (``engine.search.extents``): "soft" grows each ranked passage
#: from its densest run of query words to the nearest strong boundary evidence either side;
#: "passage" returns the ranked passage as it is (two blocks of one indexed story).
PASSAGE_EXTENTS = ("soft", "passage")
PASSAGE_EXTENT = "soft"
#: Soft extents look at most this many words beyond the anchor run on either side (with the
#: opening sentence below, chosen on the four NewsScape days by `bench/segment_landing_bench.py`
#: from its grid, which also reports the choice held out by day).
EXTENT_REACH_WORDS = 150
#: Boundary evidence of a gap between two words (a boundary when it reaches 1): a story start
#: in the index counts this much, a pause ``EXTENT_PAUSE_WEIGHT`` times its length over
#: ``EXTENT_PAUSE_SECONDS`` (capped at 1), a sentence ending just before it this much.
EXTENT_STORY_WEIGHT = 1.0
EXTENT_PAUSE_WEIGHT = 1.0
EXTENT_PAUSE_SECONDS = 5.0
EXTENT_SENTENCE_WEIGHT = 0.0
#: A sentence end before the hit's anchor counts this much more, on the start side only: a hit
#: opens at its anchor's sentence (the story's lead, where its query words gather) and still ends
#: at the next strong evidence after it. 0 turns it off.
EXTENT_OPENING_WEIGHT = 1.0
#: A soft extent shorter than this many words falls back to the ranked passage.
EXTENT_MIN_WORDS = 20
#: Pauses and sentence ends are boundary evidence only inside documents (stories, or whole
#: recordings without stories) of at least this many words: a short story the index found
#: is kept whole, a long one may hide a missed boundary.
EXTENT_PAUSE_INSIDE_WORDS = 0
#: Stories stored without a posterior came with the transcript (caption story markers) rather
#: than from the segmenter: pauses inside them are not boundary evidence.
EXTENT_TRUST_GIVEN_STORIES = True
#: Whether a soft extent may end inside the ranked passage at strong evidence (else it only grows).
EXTENT_SHRINK = True
#: Query-time cohesion: a gap is this much boundary evidence when the ``EXTENT_COHESION_WORDS``
#: words beyond it (away from the hit's query words) share no term with the hit's core (its
#: densest run of query words and ``EXTENT_COHESION_WORDS`` words either side). 0 turns it off.
EXTENT_COHESION_WEIGHT = 0.0
EXTENT_COHESION_WORDS = 20
#: Pseudo-relevance feedback for cohesion: terms in the cores of at least two of this many best
#: hits (the story's other airings, mostly) count as every hit's core. 0 turns it off.
EXTENT_COHESION_FEEDBACK = 0
#: Terms of at least this many characters count for cohesion (shorter ones are too common to
#: tell one story from the next); a final "s" is dropped so "flood" meets "floods".
COHESION_MIN_CHARS = 4
#: Soft extents swallow some of the passages ranked after them: this many times the limit
#: are ranked before the overlaps go.
EXTENT_OVERFETCH = 2
#: A speaker filter asks the search for this many times the hits wanted, then keeps those where the speaker talks.
SPEAKER_OVERFETCH = 3
#: Matched words listed (with their times) per hit.
MAX_MATCHED_WORDS = 50

#: Search as you type: a word not yet ended by a space stands for this many of the
#: library's commonest words that begin with it.
PREFIX_TERMS = 8
#: "Did you mean": library words within this many characters of an unknown word's
#: length, sharing its first or last letter, with difflib similarity at least this.
SUGGEST_LENGTH_SPREAD = 2
SUGGEST_MIN_SIMILARITY = 0.75

#: Teasers and promos ("coming up, rebuilding New Orleans ...") match a story's words but are
#: not the story. A unit is a teaser when its document (story) has fewer than
#: ``TEASER_SHORT_DOC_TOKENS`` stopped tokens, or a cue below ends at most
#: ``TEASER_CUE_WORDS`` words before one of its matched words; its model score (a log
#: probability for the language models) drops by ``TEASER_PENALTY``. 0 turns it off.
TEASER_SHORT_DOC_TOKENS = 25
TEASER_CUE_WORDS = 12
TEASER_PENALTY = 1.0
TEASER_CUES = (
    "coming up", "still ahead", "when we return", "when we come back", "after the break", "after this break",
    "stay with us", "up next", "next on", "later in the show", "later tonight", "later in this", "don't go away",
    "stick around", "right after this", "we'll be right back", "be right back", "tonight at", "just ahead",
    "also ahead", "coming next", "next hour", "tomorrow on",
)

#: The rules that make search terms of words (engine/search/text.py); bumped when they change, so that
#: ``reindex_stale`` knows which recordings to re-index. 2: numbers in words and digits alike.
TERMS_VERSION = 2

#: Snippet: this many words around the densest cluster of query words.
SNIPPET_WORDS = 32
SNIPPET_MARKS = ("[", "]")

#: Evaluation (section 2): N of precision and bpref at min(N, R), in characters
#: (the paper's 12,000) and in seconds (about the same text read aloud at
#: broadcast speed, ~15 characters per second).
EVAL_N_CHARS = 12_000
EVAL_N_SECONDS = 800.0
#: Seconds are measured in whole milliseconds.
EVAL_SECONDS_RESOLUTION = 0.001
#: Significance level used to print % improvement in comparison tables.
EVAL_ALPHA = 0.05
