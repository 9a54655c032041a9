"""Captions made to look like recogniser output, and the boundary-posterior threshold fitted on them.

A NewsScape caption day read by :func:`engine.segment.text.read_txt3` is already lower case,
without inner punctuation, speaker labels or ``>>`` markers, with word times inside each caption
row. What still differs from a recogniser's output is the punctuation: captioners end a sentence
every dozen words, Whisper tiny.en on broadcast speech about every forty (bench/segment_asr_bench.py
``--engine whisper``: 69 sentences in 2,886 words), so a model trained on caption sentences learns
that every story starts a sentence and waits for a sentence end that Whisper never writes.
:func:`whisper_like` thins the caption sentence starts at random, independently of the story
breaks (nothing leaks), to Whisper's rate, so SENTENCE-START is learnt as the weaker cue it is
on recogniser text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from engine.errors import ParameterError
from engine.evaluate.segmentation import score_documents
from engine.segment import config
from engine.segment.rules import posterior_starts
from engine.segment.text import Transcript

#: Mean words per sentence in Whisper tiny.en's output of read broadcast news (2,886 / 69).
WHISPER_WORDS_PER_SENTENCE = 42.0

#: Boundary-posterior thresholds searched by :func:`fit_posterior_threshold`.
#: The HMM's start posteriors are sharp (most of a true start's window mass sits on one word), so
#: the grid is finer near 1.
GRID_POSTERIOR_THRESHOLD = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)


def whisper_like(transcript: Transcript, *, words_per_sentence: float = WHISPER_WORDS_PER_SENTENCE,
                 rng: np.random.Generator) -> Transcript:
    """``transcript`` with its sentence starts thinned at random to one per ``words_per_sentence`` words.

    Word 0 always opens a sentence. Each other sentence start is kept with the same
    probability, whatever the story breaks, so the thinned starts carry no more about the
    stories than the captioner's punctuation did. A transcript without sentence starts
    (unpunctuated) is returned as it is.
    """
    if words_per_sentence <= 0:
        raise ParameterError(f"words_per_sentence must be positive, got {words_per_sentence}")
    sentences = transcript.sentence_starts
    if sentences.size == 0 or len(transcript) == 0:
        return transcript
    keep_rate = min(1.0, len(transcript) / words_per_sentence / sentences.size)
    kept = sentences[(sentences == 0) | (rng.random(sentences.size) < keep_rate)]
    if kept.size == 0 or kept[0] != 0:
        kept = np.concatenate([[0], kept])
    return replace(transcript, sentence_starts=np.unique(kept).astype(np.int64))


def unpunctuated(transcript: Transcript) -> Transcript:
    """``transcript`` without its sentence starts: what Vosk or PocketSphinx would give."""
    return replace(transcript, sentence_starts=np.zeros(0, dtype=np.int64))


def threshold_starts(posterior: np.ndarray, n_words: int, *, threshold: float,
                     min_words: int = config.MIN_STORY_WORDS) -> np.ndarray:
    """Stories where the windowed start posterior peaks above ``threshold``, at least ``min_words`` long, int64 (k,)."""
    starts = posterior_starts(np.asarray(posterior, dtype=np.float64), threshold=threshold, min_words=min_words)
    if starts.size and starts[-1] >= n_words:
        raise ParameterError(f"posterior of {np.asarray(posterior).shape[0]} words for a text of {n_words} words")
    return starts


def fit_posterior_threshold(decoded: Sequence[tuple[np.ndarray, Transcript]],
                            grid: Sequence[float] = GRID_POSTERIOR_THRESHOLD) -> float:
    """The threshold whose stories have the lowest mean C_seg + Pk + WindowDiff on held-out decodes.

    Parameters
    ----------
    decoded : sequence of (boundary posterior, transcript)
        Each transcript (with its true story starts) decoded by a model trained without it;
        the posterior is float64 (n_words,).
    """
    if not decoded:
        raise ParameterError("fitting the posterior threshold needs at least one decoded transcript")

    def cost(threshold: float) -> float:
        total = 0.0
        for posterior, t in decoded:
            found = threshold_starts(posterior, len(t), threshold=threshold)
            s = score_documents([t.story_starts], [found], [len(t)])
            total += s.tdt_cost + s.pk + s.windowdiff
        return total / len(decoded)

    costs = [cost(float(g)) for g in grid]
    return float(grid[int(np.argmin(costs))])
