"""The public entry point: cut a word sequence into stories."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.errors import ParameterError
from engine.segment import config
from engine.segment.boundaries import apply_model_rule, blocks_collapsed
from engine.segment.combiner import apply_model_combiner
from engine.segment.loader import load_model
from engine.segment.model import SegmentationModel
from engine.segment.rules import posterior_starts
from engine.segment.segmentation import Segmentation
from engine.segment.text import Transcript, sentence_starts_from_display
from models.segmentation import (
    ACOUSTIC_MODEL_NAME,
    DEFAULT_MODEL_NAME,
    PUNCTUATED_MODEL_NAME,
    RECOGNISER_MODEL_NAME,
    model_for_recognizer,
)


def resolve_model(model: SegmentationModel | str | Path | None, *, punctuated: bool = False) -> SegmentationModel:
    """A model object, a model name or path, or None for the shipped default.

    The shipped default for ``punctuated`` input (captions, text) adds the
    SENTENCE-START feature; for recognizer output it is the paper's feature set.
    """
    if isinstance(model, SegmentationModel):
        return model

    if model is None and punctuated:
        return load_model(PUNCTUATED_MODEL_NAME)
    return load_model(model)


def boundary_confidence(posterior: np.ndarray, starts: np.ndarray, *, half_window: int) -> np.ndarray:
    """Sum of the start posterior within ``half_window`` words of each start, clipped to [0, 1]."""
    csum = np.concatenate([[0.0], np.cumsum(posterior)])
    lo = np.maximum(starts - half_window, 0)
    hi = np.minimum(starts + half_window + 1, posterior.shape[0])
    conf = np.clip(csum[hi] - csum[lo], 0.0, 1.0)
    if starts.size:
        conf[starts == 0] = 1.0
    return conf


def segment_words(
    words: Sequence[str],
    *,
    starts: np.ndarray | None = None,
    ends: np.ndarray | None = None,
    x_duration: np.ndarray | None = None,
    model: SegmentationModel | str | Path | None = None,
    log_penalty: float | None = None,
    with_posteriors: bool = True,
    sentence_starts: np.ndarray | Sequence[int] | None = None,
    transcribed: np.ndarray | Sequence[bool] | None = None,
    posterior_threshold: float | None = None,
) -> Segmentation:
    """Cut a recognizer's word sequence into stories.

    Parameters
    ----------
    words : sequence of str, length n
        Recognised words in order (lower case, no punctuation; they are lower-cased again here).
    starts, ends : ndarray of float, shape (n,), optional
        Word start and end times in seconds. Without ``x_duration``, the silence
        or untranscribed gap before each word (``starts[t] - ends[t-1]``) is the
        X-DURATION feature; without times it is 0.
    x_duration : ndarray of float, shape (n,), optional
        Untranscribed time before each word from a detector, in seconds; wins over the gaps.
    model : SegmentationModel, model name, path, or None
        None loads the shipped default (trained on NewsScape captions).
    log_penalty : float, optional
        Boundary-state penalty (log); defaults to the model's tuned value.
        Raise it for more, shorter stories.
    with_posteriors : bool
        Run forward-backward for the confidences (about three times the cost of decoding).
    sentence_starts : array of int, optional
        Word indices that open a sentence, from the source's punctuation (captions,
        text). Given, and with ``model=None``, the shipped punctuated model is used;
        recognizer output has no punctuation and leaves this None.
    transcribed : bool array, shape (n,), optional
        Which words are real words (the detectors' verdict). The others, words a
        recogniser "heard" in music, applause or noise, are left out of the HMM's
        word sequence, as the paper's recogniser never emits them: their time is
        already X-DURATION of the next real word. Each belongs to the story of the
        real word before it, and no story starts at one.
    posterior_threshold : float in [0, 1], optional
        Place boundaries where the start posterior, summed over ``CONFIDENCE_HALF_WINDOW``
        words either side, peaks above this probability (at least ``MIN_STORY_WORDS`` apart)
        instead of on the Viterbi path: a calibrated knob whose story count changes smoothly,
        where ``log_penalty`` has a cliff. Implies ``with_posteriors``.

    Returns
    -------
    Segmentation
    """
    if isinstance(words, str):
        raise ParameterError("words must be a sequence of words, not one string (split it first)")
    words = [str(w).lower() for w in words]
    if any(not w or any(c.isspace() for c in w) for w in words):
        bad = next(i for i, w in enumerate(words) if not w or any(c.isspace() for c in w))
        raise ParameterError(f"word {bad} is empty or contains whitespace: {words[bad]!r}")
    resolved = resolve_model(model, punctuated=sentence_starts is not None)
    n = len(words)
    if transcribed is not None:
        return _segment_transcribed(
            words, np.asarray(transcribed), starts=starts, ends=ends, x_duration=x_duration, model=resolved,
            log_penalty=log_penalty, with_posteriors=with_posteriors, sentence_starts=sentence_starts,
            posterior_threshold=posterior_threshold,
        )
    if n == 0:
        empty_i = np.zeros(0, dtype=np.int64)
        return Segmentation(empty_i, np.zeros(0), np.zeros(0), empty_i)
    values = resolved.feature_values(words, starts=starts, ends=ends, x_duration=x_duration,
                                     sentence_starts=sentence_starts)
    bins = resolved.bins_of(values)
    states = resolved.decode(bins, log_penalty=log_penalty)
    story_starts = np.flatnonzero(states == 0)
    if story_starts.size == 0 or story_starts[0] != 0:
        story_starts = np.concatenate([[0], story_starts]).astype(np.int64)
    if posterior_threshold is not None:

        posterior = resolved.boundary_posterior(bins, log_penalty=log_penalty)
        story_starts = posterior_starts(posterior, threshold=posterior_threshold)
        confidence = boundary_confidence(posterior, story_starts, half_window=config.CONFIDENCE_HALF_WINDOW)
    elif with_posteriors:
        posterior = resolved.boundary_posterior(bins, log_penalty=log_penalty)
        confidence = boundary_confidence(posterior, story_starts, half_window=config.CONFIDENCE_HALF_WINDOW)
    else:
        posterior = np.full(n, np.nan)
        confidence = np.full(story_starts.shape[0], np.nan)
    return Segmentation(story_starts.astype(np.int64), confidence, posterior, states)


def _segment_transcribed(words: list[str], transcribed: np.ndarray, *, starts, ends, x_duration, sentence_starts,
                         **kwargs) -> Segmentation:
    """segment_words over the transcribed words only, mapped back to every word."""
    n = len(words)
    if transcribed.shape != (n,) or transcribed.dtype != np.bool_:
        raise ParameterError(f"transcribed must be a bool array of shape ({n},), got {transcribed.dtype} "
                             f"{transcribed.shape}")
    keep = np.flatnonzero(transcribed)
    if keep.size == 0:  # nothing but sound: one story (or none without words)
        return Segmentation(np.zeros(min(n, 1), dtype=np.int64), np.ones(min(n, 1)), np.zeros(n),
                            np.minimum(np.arange(n), 0))

    def part(a):
        return None if a is None else np.asarray(a)[keep]

    sentences = None
    if sentence_starts is not None:
        sentences = np.flatnonzero(np.isin(keep, np.asarray(sentence_starts, dtype=np.int64)))
    sub = segment_words([words[i] for i in keep], starts=part(starts), ends=part(ends), x_duration=part(x_duration),
                        sentence_starts=sentences, **kwargs)
    story_starts = keep[sub.story_starts]
    story_starts[0] = 0  # sound before the first real word belongs to the first story
    owner = np.maximum(np.searchsorted(keep, np.arange(n), side="right") - 1, 0)  # last real word at or before
    posterior = np.zeros(n) if kwargs.get("with_posteriors", True) else np.full(n, np.nan)
    posterior[keep] = sub.boundary_posterior
    return Segmentation(story_starts, sub.confidence, posterior, sub.states[owner])


#: Said when a shipped model meets text without word times (see :func:`shipped_model_note`).
TEXT_WITHOUT_TIMES_NOTE = (
    "the shipped models learnt from broadcast captions, where a pause usually separates two stories; "
    "text without word times has no such pauses, so they find few stories in it: for written text, "
    "train a model on your own kind of text (segment train --corpus DIR --sentences)"
)


def shipped_model_note(transcript: Transcript, model: SegmentationModel | str | Path | None) -> str | None:
    """A hint for the user when a shipped model segments text that has no word times, else None."""

    shipped = model is None or str(model) in (DEFAULT_MODEL_NAME, PUNCTUATED_MODEL_NAME, ACOUSTIC_MODEL_NAME,
                                              RECOGNISER_MODEL_NAME)
    return TEXT_WITHOUT_TIMES_NOTE if shipped and transcript.starts is None else None


def segment_transcript(
    transcript: Transcript,
    *,
    model: SegmentationModel | str | Path | None = None,
    log_penalty: float | None = None,
    with_posteriors: bool = True,
    x_duration: np.ndarray | None = None,
    transcribed: np.ndarray | None = None,
    posterior_threshold: float | None = None,
) -> Segmentation:
    """:func:`segment_words` on a :class:`Transcript`, with its times and (if any) its sentence starts."""
    sentences = transcript.sentence_starts if transcript.sentence_starts.size else None
    return segment_words(
        transcript.words, starts=transcript.starts, ends=transcript.ends, model=model, log_penalty=log_penalty,
        with_posteriors=with_posteriors, sentence_starts=sentences, x_duration=x_duration, transcribed=transcribed,
        posterior_threshold=posterior_threshold,
    )


def segment_recognised(
    words: Sequence[str],
    displays: Sequence[str] | None = None,
    *,
    engine: str | None,
    starts: np.ndarray | None = None,
    ends: np.ndarray | None = None,
    x_duration: np.ndarray | None = None,
    transcribed: np.ndarray | None = None,
    model: SegmentationModel | str | Path | None = None,
    log_penalty: float | None = None,
    posterior_threshold: float | None = None,
    sentence_starts: np.ndarray | None = None,
) -> Segmentation:
    """Stories of one recogniser's output, as ingest finds them.

    ``displays[t]`` is word ``t`` as the recogniser wrote it (cased and punctuated for
    Whisper; None or empty strings: same as ``words``). Sentence ends in it pick the
    punctuated model and feed SENTENCE-START; ``model`` (default: the shipped model for
    ``engine``, see ``models.segmentation.model_for_recognizer``) overrides the choice.
    A model that carries a boundary rule fitted on held-out days (``info["boundary_rule"]``,
    see ``engine.segment.boundaries``) places its boundaries by that rule unless ``log_penalty``
    or ``posterior_threshold`` is given; likewise a model that carries a boundary combiner
    (``info["boundary_combiner"]``, see ``engine.segment.combiner``). Otherwise, with a model whose ``info["block_seconds"]`` is
    set (fitted on held-out days), two or more stories in a row each shorter than that (a
    commercial break's spots) become one block: the boundaries inside it go, its edges stay.
    Stories under ``MIN_STORY_WORDS`` are merged into a neighbour. ``sentence_starts`` (word
    indices), when given, stands for the sentence ends of ``displays``.
    """

    if sentence_starts is not None:  # known from the source's punctuation (a transcript file)
        sentences = np.asarray(sentence_starts, dtype=np.int64)
    else:
        shown = [d or w for d, w in zip(displays, words, strict=True)] if displays is not None else list(words)
        sentences = sentence_starts_from_display(shown)
    chosen = model if model is not None else model_for_recognizer(engine, punctuated=bool(sentences.size))
    resolved = resolve_model(chosen)
    wants_sentences = "sentence_start" in resolved.feature_names
    seg = segment_words(
        words, starts=starts, ends=ends, x_duration=x_duration, transcribed=transcribed, model=resolved,
        log_penalty=log_penalty, posterior_threshold=posterior_threshold,
        sentence_starts=sentences if wants_sentences and sentences.size else None,
    )
    if log_penalty is None and posterior_threshold is None and "boundary_combiner" in resolved.info:
        seg = apply_model_combiner(seg, resolved.info["boundary_combiner"], words=[w.lower() for w in words],
                                   starts=starts, ends=ends, x_duration=x_duration, transcribed=transcribed,
                                   sentence_starts=sentences if sentences.size else None)
    elif log_penalty is None and posterior_threshold is None and "boundary_rule" in resolved.info:
        seg = apply_model_rule(seg, resolved.info["boundary_rule"], starts=starts, ends=ends,
                               x_duration=x_duration, transcribed=transcribed)
    elif posterior_threshold is None:
        seg = blocks_collapsed(seg, block_seconds=float(resolved.info.get("block_seconds", 0.0)), starts=starts,
                               ends=ends)
    return seg.merged_short(config.MIN_STORY_WORDS)
