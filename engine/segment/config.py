"""Sizes, defaults and tolerances of the story segmenter, in one place.

Kernels take every number they need as an argument; the defaults come from here.
Names follow Greiff et al. (MITRE), "Fine-grained hidden Markov modeling for
broadcast-news story segmentation", sections 2-5.
"""

from __future__ import annotations

#: Number of position states before the absorbing state (paper: 250). States are
#: 0-based here: state 0 is the paper's state 1 (first word of a story), state
#: ``MAX_STATE`` the paper's state 251 (every word after the 250th).
MAX_STATE = 250

#: Size of each coherence buffer, in words (section 3.1).
COHERENCE_BUFFER = 50

#: How far the start of each coherence buffer lies behind the current word, in
#: words: COHER-1 looks at the 50 words right before it, COHER-2 and COHER-3 at
#: the buffers 50 and 100 words further back (COHER-4 hurt in the paper).
COHERENCE_OFFSETS = (0, 50, 100)

#: Trigger regions as story positions: 0 = first word, 1 = second word,
#: -1 = last word, -2 = next-to-last word (section 3.3). End-of-story regions are
#: delayed by ``-position`` words so they line up with the next story's first word.
TRIGGER_REGIONS = {"first": 0, "second": 1, "last": -1, "next_to_last": -2}

#: Features that describe the edge of a story are modelled per state only for the
#: first few states; every later state shares one pooled distribution (parameter
#: tying). Section 3.2: an untranscribed stretch "has uniform likelihood of
#: occurring anywhere in a news story, except prior to the first word"; section
#: 3.3: triggers "correspond to small regions at the beginning and end of stories".
#: Without tying, a feature whose background differs by genre (talk show versus
#: news) adds a small bias at every word of a story, which swamps the boundary.
X_DURATION_OWN_STATES = 1

#: X-DURATION reads a silence no longer than this (seconds) as no pause at all. Caption times
#: put the words of one row end to start (gap 0) and the rows a few frames apart (0.133 s), and
#: a recogniser's word times move by tens of milliseconds; with bin edges among those values
#: (0 and 0.135 s) the stories changed when every word end moved by 0.01 s. 0.25 s lies above
#: the caption row gap moved by 0.05 s either way, and is the shortest silence that studies of
#: speech pauses count as a pause (Goldman-Eisler's 250 ms).
X_DURATION_FLOOR_SECONDS = 0.25
#: X-DURATION keeps this many decimals of a second (milliseconds, the resolution of caption times),
#: so that float noise of interpolated word times does not make one gap look like many distinct values.
X_DURATION_DECIMALS = 3
TRIGGER_OWN_STATES = 2

#: COHER-k's buffer lies wholly inside the current story from state offset + buffer on
#: (50, 100, 150 for COHER-1..3); beyond that depth the feature's distribution can only
#: differ by the kind of programme that makes long stories (talk shows against news),
#: a small bias per word that summed over a story outweighs the boundary evidence. Those
#: states share one distribution.
TIE_DEEP_COHERENCE = True

#: Default number of bins per feature (one of them is the "zero" bin).
DEFAULT_N_BINS = 8

#: Kernel-regression bandwidth across states 1 .. L-1, in units of log(state). A
#: log scale keeps states 1 and 2 apart while pooling states 150-250 together.
DEFAULT_STATE_BANDWIDTH = 0.15

#: Story-length smoothing bandwidth, in units of log(length).
DEFAULT_LENGTH_BANDWIDTH = 0.15

#: Log of the boundary-state penalty (section 5): added to the log probability
#: of a path each time it enters state 0. Positive values segment more.
DEFAULT_LOG_PENALTY = 0.0

#: Smallest probability any (bin, state) cell or transition may get, so that a
#: value never seen in one state cannot veto a path outright.
PROBABILITY_FLOOR = 1e-6

#: Gaussian kernels are cut at this many bandwidths.
KERNEL_CUTOFF = 4.0

#: Forward-backward keeps the forward variables of every CHECKPOINT-th word and
#: recomputes the rest block by block, so memory is O(words / CHECKPOINT * states).
FORWARD_BACKWARD_CHECKPOINT = 1024

#: A boundary's confidence sums the posterior of a story start over this many
#: words either side of it (the start may be placed a word or two off).
CONFIDENCE_HALF_WINDOW = 5

#: Distance between the two probe words of the TDT segmentation measure, in words.
TDT_PROBE_WORDS = 50

#: TDT segmentation cost constants: C_miss, C_fa and the prior P(segment boundary).
TDT_COST_MISS = 1.0
TDT_COST_FALSE_ALARM = 1.0
TDT_PRIOR_SEGMENT = 0.3

#: Hyper-parameter grids searched on development data by ``fit_hyperparameters``.
GRID_N_BINS = (4, 6, 8, 12, 16)
GRID_STATE_BANDWIDTH = (0.05, 0.1, 0.2, 0.4, 0.8)
GRID_LENGTH_BANDWIDTH = (0.05, 0.1, 0.2, 0.4)
GRID_LOG_PENALTY = tuple(float(x) for x in range(-8, 9, 2))

#: Weights searched for each feature group's log-likelihood (the paper's model: all 1).
#: Features are not independent given the state (COHER-1..3 share words, the four triggers
#: share positions), so their summed log-likelihoods over-count; a weight below 1 says how
#: much each group is worth on development data, and 0 switches a group off.
GRID_FEATURE_WEIGHT = (0.0, 0.25, 0.5, 1.0)

#: After the coarse search the penalty is refined within +-PENALTY_REFINE_SPAN of the best
#: coarse value, on PENALTY_REFINE_STEPS points.
PENALTY_REFINE_SPAN = 1.5
PENALTY_REFINE_STEPS = 7

#: Coordinate-descent sweeps over the grids above.
HYPERPARAMETER_SWEEPS = 2

#: Documents are split into this many folds when features of training documents
#: are computed from the statistics of the other documents (cross-fitting).
MAX_CROSS_FIT_FOLDS = 5

#: exp(log_next) + exp(log_restart) must equal 1 for every state within this tolerance,
#: and so must the initial distribution's sum.
STOCHASTIC_TOLERANCE = 1e-6

#: Besides the cost-optimal penalty, training records the largest penalty whose
#: held-out P(false alarm) stays within this target (the paper's ABC operating
#: point had P(false alarm) 0.11), searched on GRID_RECALL_PENALTY.
FALSE_ALARM_TARGET = 0.11
GRID_RECALL_PENALTY = tuple(x / 2 for x in range(-8, 25))

#: Pause thresholds (seconds) searched on training data for the caption-gap rule
#: ("a story starts after every pause longer than T").
GRID_GAP_THRESHOLD = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0)

#: Shortest story (words) that segmentation hands to ingest and search: shorter ones are
#: merged into the neighbour across their weaker boundary. A caption or recogniser story
#: of a few words is a fragment, not a passage search can rank.
MIN_STORY_WORDS = 30

#: ``segment train`` refuses a corpus with fewer stories than this: the length
#: distribution and the trigger counts need a few dozen stories at least.
MIN_TRAINING_STORIES = 36

#: Boundary combiner (engine/segment/combiner.py): windows (words on each side) of its two
#: lexical-cohesion cues; a word after a pause longer than this (seconds) is a candidate, as is
#: every sentence start; words of at most this many characters are left out of the cohesion
#: counts (a cheap stop list).
COMBINER_COHESION_NEAR_WORDS = 20
COMBINER_COHESION_FAR_WORDS = 60
COMBINER_CANDIDATE_PAUSE_SECONDS = 0.05
COMBINER_COHESION_SHORT_WORD = 3
#: A speaker turn starting within this many words of a candidate sets its ``speaker_change`` cue.
COMBINER_SPEAKER_CHANGE_WORDS = 3
