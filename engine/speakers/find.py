"""Find a speaker's voice in the other recordings of the library.

Each stored speaker has a centroid: the mean of its unit-length CAM++ embeddings,
renormalised (192 float32 values). Two speakers are the same voice when the cosine
similarity of their centroids is at least ``config.FIND_THRESHOLD``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import NotFoundError, ParameterError
from engine.speakers import config
from engine.storage.store import Store

EMBEDDING_SIZE = 192


@dataclass(frozen=True)
class SpeakerMatch:
    """A speaker of another recording and how close its voice is to the one sought (cosine, -1 to 1)."""

    recording_id: int
    title: str
    path: str
    label: int
    name: str
    similarity: float
    seconds: float  # talk time
    first: float | None  # start of its first turn, seconds


def centroid_vector(blob: bytes) -> np.ndarray:
    """A stored centroid as a unit-length float64 vector, shape (192,); ``ParameterError`` when it is not 192 floats."""
    if len(blob) != 4 * EMBEDDING_SIZE:
        raise ParameterError(f"a speaker centroid must be {EMBEDDING_SIZE} float32 values, got {len(blob)} bytes")
    vector = np.frombuffer(blob, dtype="<f4").astype(np.float64)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 and np.isfinite(norm) else np.zeros(EMBEDDING_SIZE)


def similarities(query: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Cosine similarity of ``query`` (d,) with each row of ``candidates`` (n, d), shape (n,); 0 for a zero vector."""
    q = np.asarray(query, dtype=np.float64)
    c = np.asarray(candidates, dtype=np.float64).reshape(-1, q.shape[0])
    norms = np.linalg.norm(c, axis=1) * np.linalg.norm(q)
    dots = c @ q
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)


def find_speaker(store: Store, recording_id: int, label: int, *, threshold: float | None = None,
                 keep_all: bool = False) -> list[SpeakerMatch]:
    """The speakers of every other recording, most similar voice first, at or above ``threshold``
    (``config.FIND_THRESHOLD`` when None; every one with ``keep_all``).

    Raises ``NotFoundError`` when speaker ``label`` of the recording has no stored centroid,
    ``ParameterError`` for a threshold outside [-1, 1].
    """
    cut = config.FIND_THRESHOLD if threshold is None else float(threshold)
    if not -1.0 <= cut <= 1.0:
        raise ParameterError(f"--threshold must be a cosine similarity from -1 to 1, got {threshold}")
    blob = store.speaker_centroids(recording_id).get(label)
    if blob is None:
        raise NotFoundError(f"S{label} of recording {recording_id} has no voice profile (its speakers were stored "
                            "without embeddings); find them again: 'earshot speakers REC --estimate'")
    others = store.speaker_profiles(exclude_recording=recording_id)
    if not others:
        return []
    scores = similarities(centroid_vector(blob), np.stack([centroid_vector(bytes(o["centroid"])) for o in others]))
    matches = [
        SpeakerMatch(int(o["recording_id"]), str(o["title"]), str(o["path"]), int(o["label"]), str(o["name"]), float(s),
                     float(o["seconds"]), None if o["first"] is None else float(o["first"]))
        for o, s in zip(others, scores, strict=True) if keep_all or s >= cut
    ]
    return sorted(matches, key=lambda m: (-m.similarity, m.recording_id, m.label))
