"""Diarization error rate (DER) of speaker turns, with RTTM files in and out.

DER = (missed speech + false alarm + speaker confusion) / reference speech, in
seconds, as NIST's md-eval scores it with overlapping speech scored:

* every reference boundary (start or end of a turn) has a no-score *collar* of
  ``collar`` seconds on each side (0.25 s by default, md-eval's ``-c 0.25``;
  pyannote.metrics calls the same zone ``collar=0.5``);
* at each instant with ``R`` reference and ``H`` hypothesis speakers, of which
  ``C`` are correctly paired, miss is ``max(0, R - H)``, false alarm
  ``max(0, H - R)``, confusion ``min(R, H) - C`` and reference speech ``R``;
* the pairing of hypothesis labels to reference speakers is the one-to-one map
  that maximises their total scored overlap (Hungarian algorithm, scipy).

The computation is exact on the elementary intervals between all boundaries; a
speaker's own overlapping turns are merged first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np
from scipy.optimize import linear_sum_assignment

from engine.errors import ParameterError, file_access_reason
from engine.textfile import read_text

COLLAR = 0.25  # seconds each side of a reference boundary


@dataclass(frozen=True)
class Turn:
    """One speaker talking from ``start`` to ``end`` (seconds)."""

    start: float
    end: float
    speaker: str


@dataclass(frozen=True)
class DerResult:
    """Components of DER in seconds, and the label map chosen (hypothesis -> reference)."""

    miss: float
    false_alarm: float
    confusion: float
    reference: float  # scored reference speech, speaker-seconds
    mapping: dict[str, str] = field(default_factory=dict)

    @property
    def der(self) -> float:
        """(miss + false alarm + confusion) / reference speech; 0 when both are empty."""
        errors = self.miss + self.false_alarm + self.confusion
        if self.reference == 0:
            return 0.0 if errors == 0 else math.inf
        return errors / self.reference


def _check(turns: Sequence[Turn], name: str) -> None:
    for turn in turns:
        if not (math.isfinite(turn.start) and math.isfinite(turn.end) and 0 <= turn.start <= turn.end):
            raise ParameterError(f"{name} turn {turn} needs 0 <= start <= end, finite seconds")


def _activity(turns: Sequence[Turn], labels: list[str], mids: np.ndarray) -> np.ndarray:
    """(intervals, speakers) bool: is each speaker talking at each interval's midpoint."""
    active = np.zeros((mids.size, len(labels)), dtype=bool)
    column = {label: k for k, label in enumerate(labels)}
    for turn in turns:
        lo, hi = np.searchsorted(mids, [turn.start, turn.end])
        active[lo:hi, column[turn.speaker]] = True
    return active


def diarization_error(reference: Sequence[Turn], hypothesis: Sequence[Turn], *, collar: float = COLLAR) -> DerResult:
    """DER components of ``hypothesis`` against ``reference`` (one recording each)."""
    _check(reference, "reference")
    _check(hypothesis, "hypothesis")
    if not (math.isfinite(collar) and collar >= 0):
        raise ParameterError(f"collar must be >= 0 seconds, got {collar}")
    ref_labels = sorted({t.speaker for t in reference})
    hyp_labels = sorted({t.speaker for t in hypothesis})
    ref_edges = np.array([e for t in reference for e in (t.start, t.end)], dtype=np.float64)
    points = [ref_edges, np.array([e for t in hypothesis for e in (t.start, t.end)], dtype=np.float64)]
    if collar > 0:
        points += [ref_edges - collar, ref_edges + collar]
    cuts = np.unique(np.concatenate([*points, np.zeros(1)]))
    if cuts.size < 2:
        return DerResult(0.0, 0.0, 0.0, 0.0)
    mids = (cuts[:-1] + cuts[1:]) / 2
    weight = np.diff(cuts)
    if collar > 0 and ref_edges.size:
        edges = np.sort(ref_edges)
        at = np.clip(np.searchsorted(edges, mids), 1, edges.size) - 1
        nearest = np.minimum(np.abs(mids - edges[at]), np.abs(mids - edges[np.minimum(at + 1, edges.size - 1)]))
        weight = np.where(nearest < collar, 0.0, weight)
    ref = _activity(reference, ref_labels, mids)
    hyp = _activity(hypothesis, hyp_labels, mids)
    overlap = (ref * weight[:, None]).T.astype(np.float64) @ hyp.astype(np.float64)  # (ref, hyp) seconds
    rows, cols = linear_sum_assignment(overlap, maximize=True) if overlap.size else ([], [])
    pairs = [(r, c) for r, c in zip(rows, cols, strict=True) if overlap[r, c] > 0]
    n_ref, n_hyp = ref.sum(axis=1), hyp.sum(axis=1)
    correct = sum(overlap[r, c] for r, c in pairs)
    return DerResult(
        miss=float(np.sum(weight * np.maximum(0, n_ref - n_hyp))),
        false_alarm=float(np.sum(weight * np.maximum(0, n_hyp - n_ref))),
        confusion=float(np.sum(weight * np.minimum(n_ref, n_hyp)) - correct),
        reference=float(np.sum(weight * n_ref)),
        mapping={hyp_labels[c]: ref_labels[r] for r, c in pairs},
    )


def read_rttm(path: str | Path) -> dict[str, list[Turn]]:
    """Turns by file id from an RTTM file's ``SPEAKER`` lines (other line types are skipped).

    Raises ``ParameterError`` naming the file and line for a malformed ``SPEAKER`` line.
    """
    path = Path(path)
    try:
        text = read_text(path)  # any of the encodings a text file comes in; a device is refused
    except OSError as exc:
        raise ParameterError(f"{path}: {file_access_reason(exc, 'read')}") from None
    except ValueError as exc:
        raise ParameterError(f"{path}: {exc}") from None
    turns: dict[str, list[Turn]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0] != "SPEAKER":
            continue
        try:
            onset, duration = float(fields[3]), float(fields[4])
            speaker = fields[7]
        except (IndexError, ValueError) as error:
            raise ParameterError(f"{path}:{number}: not an RTTM SPEAKER line ({error})") from error
        if not (math.isfinite(onset) and math.isfinite(duration) and onset >= 0 and duration >= 0):
            raise ParameterError(f"{path}:{number}: onset and duration must be finite seconds >= 0")
        turns.setdefault(fields[1], []).append(Turn(onset, onset + duration, speaker))
    return turns


def write_rttm(turns: Iterable[Turn], file_id: str, stream: TextIO) -> None:
    """Write ``turns`` of recording ``file_id`` as RTTM ``SPEAKER`` lines (channel 1, times to the millisecond)."""
    if not file_id or any(c.isspace() for c in file_id):
        raise ParameterError(f"RTTM file id must be one word, got {file_id!r}")
    for turn in turns:
        stream.write(f"SPEAKER {file_id} 1 {turn.start:.3f} {turn.end - turn.start:.3f} <NA> <NA> {turn.speaker} <NA> <NA>\n")
