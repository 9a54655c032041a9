"""Thresholds and sizes of speaker diarization, in one place.

Chosen on broadcasts of the tuning voices only (``tools.voices.TUNING_SPEAKERS``);
the held-out voices never moved any of them.
"""

from __future__ import annotations

SAMPLE_RATE = 16_000
WINDOW_SECONDS = 10.0  # segmentation window (the model's training length)
STEP_SECONDS = 5.0  # hop between windows; each window owns the middle STEP_SECONDS of itself
BATCH_WINDOWS = 32  # windows per segmentation call: the LSTM's per-step overhead is shared by the batch (160 s of audio held)
MIN_EMBED_SECONDS = 0.5  # a local speaker with less clean speech in a window gets no embedding
MAX_EMBED_SECONDS = 2.0  # clean speech embedded per local speaker and window, at most (4 s: same tuning DER, +20 % CPU)
#: Average-linkage cut on cosine distance between CAM++ embeddings (1 - cosine similarity).
CLUSTER_THRESHOLD = 0.6
CLUSTER_BLOCK = 2000  # embeddings clustered at once (about two hours of a broadcast); a longer recording's in two stages
MIN_CLUSTER_SECONDS = 3.0  # speech of a smaller cluster goes to the nearest larger one
MERGE_GAP_SECONDS = 0.3  # a speaker's turns this close are one turn
MIN_TURN_SECONDS = 0.2  # a piece of a turn left shorter than this by music, applause or laughter is dropped

# The BIC baseline (MFCC, change detection, agglomerative clustering)
BIC_N_MFCC = 13
BIC_WINDOW_SECONDS = 3.0  # analysis window for change detection
BIC_STEP_SECONDS = 0.3  # hop between candidate change points
BIC_LAMBDA = 1.0  # penalty weight of the BIC model-complexity term, change detection
BIC_CLUSTER_LAMBDA = 8.0  # the same, agglomerative clustering (tried 2 to 8 on the tuning voices)
BIC_MIN_SEGMENT_SECONDS = 1.0

# Finding a speaker across the library (engine/speakers/find.py)
#: Least cosine similarity of two speakers' stored centroids for "the same voice"; chosen on broadcasts of the
#: tuning voices only (bench/speakers_find_bench.py: 0.703, the middle of the cuts of best F1), measured on the
#: held-out voices.
FIND_THRESHOLD = 0.70
