"""The stories the index stores for a timed transcript, whatever made its words (a recogniser or captions)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from engine.segment.model import SegmentationModel
from engine.segment.segmentation import Segmentation
from engine.segment.segmenter import segment_recognised
from engine.segment.text import Transcript
from engine.storage.store import StoryRow
from models.segmentation import DEFAULT_MODEL_NAME, PUNCTUATED_MODEL_NAME


class TimedWord(Protocol):
    """A word with times in seconds, its search token and its shown form (``""``: the token)."""

    @property
    def start(self) -> float: ...
    @property
    def end(self) -> float: ...
    @property
    def text(self) -> str: ...
    @property
    def display(self) -> str: ...


def segment_stories(
    words: Sequence[TimedWord], x_duration: np.ndarray | None, transcribed: np.ndarray | None = None, *,
    engine: str | None = None, model: SegmentationModel | str | Path | None = None,
) -> list[StoryRow]:
    """Stories by the fine-grained HMM with the shipped model for ``engine`` (or ``model``); words not
    ``transcribed`` are left out.

    Punctuated words (Whisper, most captions) give sentence starts through each word's display
    form. Stories shorter than ``MIN_STORY_WORDS`` are merged into a neighbour, so search never
    ranks a fragment of a few words as a story.
    """
    # Recognisers emit tokens such as "[unk]": the segmenter wants plain words.
    seg = segment_recognised(
        [w.text.replace(" ", "_") or "_" for w in words],
        [w.display or w.text for w in words],
        engine=engine,
        starts=np.array([w.start for w in words]),
        ends=np.array([w.end for w in words]),
        x_duration=x_duration,
        transcribed=transcribed,
        model=model,
    )
    return [
        StoryRow(first, last - 1, float(conf))
        for (first, last), conf in zip(seg.spans(), seg.confidence.tolist(), strict=True)
    ]


def caption_model(punctuated: bool) -> str:
    """The shipped model for caption or plain text that marks no stories: trained on captions, with
    the SENTENCE-START feature when the text writes sentence ends."""
    return PUNCTUATED_MODEL_NAME if punctuated else DEFAULT_MODEL_NAME


def transcript_stories(
    transcript: Transcript, *, model: SegmentationModel | str | Path | None = None,
    log_penalty: float | None = None, posterior_threshold: float | None = None,
) -> Segmentation:
    """The stories an imported transcript gets (:func:`caption_model`, or ``model``), cut by the
    path ingest and import store: the HMM, the model's boundary rule or combiner, short stories merged."""
    punctuated = bool(transcript.sentence_starts.size)
    return segment_recognised(
        transcript.words, engine=None, starts=transcript.starts, ends=transcript.ends,
        model=model if model is not None else caption_model(punctuated), log_penalty=log_penalty,
        posterior_threshold=posterior_threshold, sentence_starts=transcript.sentence_starts,
    )
