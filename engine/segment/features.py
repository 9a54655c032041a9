"""The segmenter's features (paper section 3), one value per word.

Each feature is a small class with a ``name``, an ``own_states`` setting (None:
every state its own distribution, smoothed across states; k: states 0..k-1 their
own, all later states one shared distribution), a ``word_tables`` method that turns
training counts (:class:`WordStatistics`) into per-word lookup tables, and a
``values`` method that computes the feature for every word of a transcript.
Adding a feature means writing one such class and listing it in
:data:`DEFAULT_FEATURES` (or passing it to ``train_model``); binning, smoothing,
decoding and the explanation plots pick it up by name.

Per-word tables are indexed by word id; the last entry (index ``V``) is the
value for a word never seen in training.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.errors import ParameterError
from engine.segment import config
from engine.segment.hmm import coherence_in_buffer
from engine.segment.text import Transcript


@dataclass
class WordStatistics:
    """Counts from training stories that the features turn into per-word tables.

    Attributes
    ----------
    words : list of str, length V
    token_counts : ndarray, shape (V,)
        ``n_w``: occurrences of each word.
    story_counts : ndarray, shape (V,)
        ``s_w``: number of stories the word occurs in.
    region_counts : dict of int to ndarray, shape (V,)
        ``n_Rw`` per trigger position (0 first word, 1 second, -1 last, -2 next-to-last).
    region_tokens : dict of int to int
        Tokens that fell in each region.
    n_stories, n_tokens : int
    """

    words: list[str]
    token_counts: np.ndarray
    story_counts: np.ndarray
    region_counts: dict[int, np.ndarray]
    region_tokens: dict[int, int]
    n_stories: int
    n_tokens: int
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._index:
            self._index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def count(
        cls, transcripts: Sequence[Transcript], *, story_mask: Sequence[np.ndarray] | None = None
    ) -> WordStatistics:
        """Count words over the stories of ``transcripts``.

        ``story_mask[i][k]`` says whether story ``k`` of transcript ``i`` is counted
        (cross-fitting leaves some out); by default all are.
        """
        index: dict[str, int] = {}
        positions = tuple(config.TRIGGER_REGIONS.values())
        story_ids: list[np.ndarray] = []
        for i, tr in enumerate(transcripts):
            ids = np.fromiter((index.setdefault(w, len(index)) for w in tr.words), dtype=np.int64, count=len(tr))
            edges = np.append(tr.story_starts, len(tr))
            for k in range(len(tr.story_starts)):
                if story_mask is None or story_mask[i][k]:
                    story_ids.append(ids[edges[k] : edges[k + 1]])
        n_words = len(index)
        token_counts = np.zeros(n_words, dtype=np.int64)
        story_counts = np.zeros(n_words, dtype=np.int64)
        region_counts = {p: np.zeros(n_words, dtype=np.int64) for p in positions}
        region_tokens = dict.fromkeys(positions, 0)
        for ids in story_ids:
            if ids.size == 0:
                continue
            token_counts += np.bincount(ids, minlength=n_words)
            story_counts[np.unique(ids)] += 1
            for p in positions:
                if -ids.size <= p < ids.size:
                    region_counts[p][ids[p]] += 1
                    region_tokens[p] += 1
        return cls(
            words=list(index),
            token_counts=token_counts,
            story_counts=story_counts,
            region_counts=region_counts,
            region_tokens=region_tokens,
            n_stories=len(story_ids),
            n_tokens=int(token_counts.sum()),
            _index=index,
        )


class Vocabulary:
    """Maps words to the ids of a model's per-word tables.

    Unseen words get ids ``V, V+1, ...`` local to one call, so that two different
    unseen words never look like the same word to the coherence features.
    """

    def __init__(self, words: Sequence[str]) -> None:
        self.words = list(words)
        self._index = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, words: Sequence[str]) -> np.ndarray:
        """Word ids, shape (n,); unseen words numbered from ``len(self)`` on."""
        unseen: dict[str, int] = {}
        size = len(self.words)
        index = self._index
        return np.fromiter(
            (index[w] if w in index else unseen.setdefault(w, size + len(unseen)) for w in words),
            dtype=np.int64,
            count=len(words),
        )


@dataclass(frozen=True)
class FeatureInput:
    """What a feature may look at for one transcript.

    ``ids`` index the per-word tables (unseen words have ids >= V, see
    :class:`Vocabulary`); ``x_duration`` is the untranscribed time before each word
    in seconds (zeros when unknown); ``sentence_start`` says, for each word, whether
    the source's punctuation opens a sentence there (None when the source has no
    punctuation, as recognizer output has none).
    """

    ids: np.ndarray
    vocabulary_size: int
    x_duration: np.ndarray
    sentence_start: np.ndarray | None = None


def _lookup(table: np.ndarray, ids: np.ndarray, vocabulary_size: int) -> np.ndarray:
    return table[np.minimum(ids, vocabulary_size)]


@dataclass(frozen=True)
class Coherence:
    """COHER-k: ``-log(s_w / s)`` if the word occurs in a 50-word buffer ``offset`` words back, else 0."""

    name: str
    offset: int
    buffer: int = config.COHERENCE_BUFFER
    group: str = "coherence"
    #: Every state has its own distribution, smoothed across states ...
    own_states: int | None = None
    #: ... up to the depth where the buffer lies wholly inside the current story; deeper
    #: states share one distribution (see ``tie_from``).
    tie_coherence: bool = config.TIE_DEEP_COHERENCE

    @property
    def tie_from(self) -> int | None:
        """First state whose buffer never reaches back into the previous story (offset + buffer)."""
        return self.offset + self.buffer if self.tie_coherence else None

    def word_tables(self, stats: WordStatistics) -> dict[str, np.ndarray]:
        s = max(stats.n_stories, 1)
        story_counts = np.append(stats.story_counts, 1)  # an unseen word counts as seen in one story
        return {"story_rarity": -np.log(np.maximum(story_counts, 1) / s)}

    def values(self, data: FeatureInput, tables: Mapping[str, np.ndarray]) -> np.ndarray:
        hit = coherence_in_buffer(data.ids, buffer=self.buffer, offset=self.offset)
        return np.where(hit, _lookup(tables["story_rarity"], data.ids, data.vocabulary_size), 0.0)


@dataclass(frozen=True)
class Trigger:
    """Estimate that this word falls in a story region: ``(n_Rw + 1) / (n_w + 1 / f_R)``.

    ``position`` 0 and 1 are the first and second word of a story; -1 and -2 the
    last and next-to-last, which are delayed by 1 and 2 words so that they line
    up with the first word of the next story (section 3.3). Words before the
    delay has elapsed get 0.
    """

    name: str
    position: int
    group: str = "trigger"
    #: States 0 .. own_states-1 have their own distributions; later states share one.
    own_states: int | None = config.TRIGGER_OWN_STATES

    @property
    def delay(self) -> int:
        return max(0, -self.position)

    def word_tables(self, stats: WordStatistics) -> dict[str, np.ndarray]:
        n_region = stats.region_tokens.get(self.position, 0)
        f_region = max(n_region, 1) / max(stats.n_tokens, 1)
        n_rw = np.append(stats.region_counts[self.position], 0)
        n_w = np.append(stats.token_counts, 0)
        return {f"trigger_{self.name}": (n_rw + 1.0) / (n_w + 1.0 / f_region)}

    def values(self, data: FeatureInput, tables: Mapping[str, np.ndarray]) -> np.ndarray:
        table = tables[f"trigger_{self.name}"]
        out = np.zeros(data.ids.shape[0])
        d = self.delay
        if data.ids.shape[0] > d:
            out[d:] = _lookup(table, data.ids[: data.ids.shape[0] - d], data.vocabulary_size)
        return out


@dataclass(frozen=True)
class XDuration:
    """X-DURATION: untranscribed time before the word, in seconds (0 when times are unknown).

    Times are kept to the millisecond (``config.X_DURATION_DECIMALS``), and a time no longer than
    ``floor_seconds`` reads as 0 (no pause), so that timing noise of a few hundredths of a second
    cannot move a word across the bin edge between "no pause" and "pause" (see
    ``config.X_DURATION_FLOOR_SECONDS``); models saved before the floor existed read 0 and raw times.
    """

    name: str = "x_duration"
    group: str = "x_duration"
    own_states: int | None = config.X_DURATION_OWN_STATES
    floor_seconds: float = config.X_DURATION_FLOOR_SECONDS

    def word_tables(self, stats: WordStatistics) -> dict[str, np.ndarray]:
        return {}

    def values(self, data: FeatureInput, tables: Mapping[str, np.ndarray]) -> np.ndarray:
        if not self.floor_seconds:  # a model saved before the floor: raw times, as it was trained
            return data.x_duration
        seconds = np.round(data.x_duration, config.X_DURATION_DECIMALS)
        return np.where(seconds > self.floor_seconds, seconds, 0.0)


@dataclass(frozen=True)
class SentenceStart:
    """SENTENCE-START: 1 if the source's punctuation opens a sentence at this word, else 0.

    Not one of the paper's features (section 8 invites richer ones): captions and
    written text carry punctuation, recognizer output does not, so a model with this
    feature only segments punctuated input. A story always starts a sentence, so
    state 0 learns p(1 | state 0) close to 1; states 1.. are smoothed as usual.
    """

    name: str = "sentence_start"
    group: str = "sentence_start"
    own_states: int | None = None

    def word_tables(self, stats: WordStatistics) -> dict[str, np.ndarray]:
        return {}

    def values(self, data: FeatureInput, tables: Mapping[str, np.ndarray]) -> np.ndarray:
        if data.sentence_start is None:
            raise ParameterError("this segmentation model needs sentence punctuation (sentence_starts), "
                                 "which this input does not have")
        return data.sentence_start.astype(np.float64)


#: The paper's nine features minus COHER-4 (which hurt in the paper): COHER-1..3,
#: X-DURATION and four triggers.
DEFAULT_FEATURES: tuple = (
    Coherence("coher_1", offset=config.COHERENCE_OFFSETS[0]),
    Coherence("coher_2", offset=config.COHERENCE_OFFSETS[1]),
    Coherence("coher_3", offset=config.COHERENCE_OFFSETS[2]),
    XDuration(),
    *(Trigger(f"trigger_{name}", position=pos) for name, pos in config.TRIGGER_REGIONS.items()),
)

#: The paper's features plus SENTENCE-START, for punctuated input (captions, text).
PUNCTUATED_FEATURES: tuple = (*DEFAULT_FEATURES, SentenceStart())

FEATURES_BY_NAME = {f.name: f for f in PUNCTUATED_FEATURES}


def sentence_start_mask(n_words: int, sentence_starts: np.ndarray | Sequence[int] | None) -> np.ndarray | None:
    """Bool mask, shape (n_words,), of the words that open a sentence; None stays None."""
    if sentence_starts is None:
        return None
    idx = np.asarray(sentence_starts, dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n_words):
        raise ParameterError(f"sentence starts must be word indices in 0..{n_words - 1}")
    mask = np.zeros(n_words, dtype=bool)
    mask[idx] = True
    return mask


def word_tables(features: Sequence, stats: WordStatistics) -> dict[str, np.ndarray]:
    """All per-word tables the features need (features may share one, e.g. COHER-1..3)."""
    tables: dict[str, np.ndarray] = {}
    for feature in features:
        tables.update(feature.word_tables(stats))
    return tables


def x_duration_of(
    n_words: int,
    *,
    starts: np.ndarray | None = None,
    ends: np.ndarray | None = None,
    x_duration: np.ndarray | None = None,
) -> np.ndarray:
    """The X-DURATION value of every word, in seconds, shape (n_words,).

    Detector output (``x_duration``) wins; otherwise the gap between the previous
    word's end and this word's start; otherwise zeros.
    """
    if x_duration is not None:
        xd = np.asarray(x_duration, dtype=np.float64)
        if xd.shape != (n_words,):
            raise ParameterError(f"x_duration must have shape ({n_words},), got {xd.shape}")
        if not np.isfinite(xd).all() or (xd < 0).any():
            raise ParameterError("x_duration must be finite and >= 0 seconds")
        return xd
    if starts is None and ends is None:
        return np.zeros(n_words)
    if starts is None or ends is None:
        raise ParameterError("give both word starts and ends (seconds), or neither")
    starts = np.asarray(starts, dtype=np.float64)
    ends = np.asarray(ends, dtype=np.float64)
    if starts.shape != (n_words,) or ends.shape != (n_words,):
        raise ParameterError(f"starts and ends must have shape ({n_words},), got {starts.shape} and {ends.shape}")
    if not (np.isfinite(starts).all() and np.isfinite(ends).all()):
        raise ParameterError("word starts and ends must be finite seconds")
    if (ends < starts).any():
        i = int(np.flatnonzero(ends < starts)[0])
        raise ParameterError(f"word {i} ends before it starts ({ends[i]} s < {starts[i]} s)")
    gaps = np.zeros(n_words)
    if n_words > 1:
        gaps[1:] = np.maximum(starts[1:] - ends[:-1], 0.0)
    return gaps


def feature_matrix(
    features: Sequence,
    tables: Mapping[str, np.ndarray],
    vocabulary: Vocabulary,
    words: Sequence[str],
    x_duration,
    *,
    sentence_starts: np.ndarray | Sequence[int] | None = None,
) -> np.ndarray:
    """Feature values, shape (n_words, n_features), float64.

    ``sentence_starts`` are the word indices that open a sentence (None: unknown).
    """
    data = FeatureInput(
        ids=vocabulary.encode(words),
        vocabulary_size=len(vocabulary),
        x_duration=x_duration,
        sentence_start=sentence_start_mask(len(words), sentence_starts),
    )
    out = np.empty((len(words), len(features)))
    for j, feature in enumerate(features):
        out[:, j] = feature.values(data, tables)
    return out
