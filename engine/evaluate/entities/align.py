"""Stage 2 of the scorer: align the lexemes of reference and hypothesis.

Two modes:

``sclite``
    Word Levenshtein alignment with sclite's costs and tie-breaking; one-to-one columns,
    the same alignment and word error counts as NIST ``sclite`` on each utterance.
``phonetic``
    Phone-level alignment (:mod:`engine.evaluate.entities.phonetic`); a column may hold several
    words on either side.

Texts are first cut into chunks by utterance id (trn) or file and channel (stm, ctm)
when both sides name them; a chunk longer than ``MAX_DP_WORDS`` is then cut by anchors,
runs of three or more identical words within a time window when both sides have times
(:mod:`engine.evaluate.entities.anchors`), and the stretches between anchors are aligned whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.entities import config
from engine.entities.spans import Transcript
from engine.errors import ParameterError
from engine.evaluate.entities._kernels import DEL, DIAG, _sclite_columns, _sclite_dp
from engine.evaluate.entities.anchors import find_anchors
from engine.evaluate.entities.phonetic import PhoneString, link_columns, word_links
from engine.evaluate.entities.pronounce import Lexicon, shared_lexicon

MODES = ("phonetic", "sclite")

#: Column kinds.
CORRECT, SUBSTITUTION, DELETION, INSERTION, MULTI = 0, 1, 2, 3, 4
KIND_NAMES = ("correct", "substitution", "deletion", "insertion", "split/merge")


@dataclass
class Alignment:
    """Columns of aligned words, in order.

    Attributes
    ----------
    col_ref, col_hyp : ndarray of int64, shape (n_cols, 2)
        Half-open word ranges of each column in the reference and in the hypothesis.
    col_kind : ndarray of uint8, shape (n_cols,)
        CORRECT (one word each side, equal), SUBSTITUTION, DELETION, INSERTION, MULTI.
    ref_col, hyp_col : ndarray of int64, shape (n_ref,) and (n_hyp,)
        Column of every word.
    mode : str
    """

    col_ref: np.ndarray
    col_hyp: np.ndarray
    col_kind: np.ndarray
    ref_col: np.ndarray
    hyp_col: np.ndarray
    mode: str

    @property
    def n_cols(self) -> int:
        return len(self.col_kind)

    def word_errors(self) -> dict[str, int]:
        """Correct, substitution, deletion and insertion counts of the words.

        A split/merge column of r reference and h hypothesis words counts min(r, h)
        substitutions and the rest as deletions or insertions.
        """
        r = self.col_ref[:, 1] - self.col_ref[:, 0]
        h = self.col_hyp[:, 1] - self.col_hyp[:, 0]
        k = self.col_kind
        multi = k == MULTI
        counts = {
            "correct": int((k == CORRECT).sum()),
            "substitution": int((k == SUBSTITUTION).sum() + np.minimum(r, h)[multi].sum()),
            "deletion": int((k == DELETION).sum() + np.maximum(r - h, 0)[multi].sum()),
            "insertion": int((k == INSERTION).sum() + np.maximum(h - r, 0)[multi].sum()),
        }
        n_ref = len(self.ref_col)
        counts["ref_words"] = n_ref
        counts["hyp_words"] = len(self.hyp_col)
        errors = counts["substitution"] + counts["deletion"] + counts["insertion"]
        counts["errors"] = errors
        return counts

    def wer(self) -> float:
        c = self.word_errors()
        return c["errors"] / c["ref_words"] if c["ref_words"] else 0.0


class _Columns:
    def __init__(self, ref: Sequence[str], hyp: Sequence[str]) -> None:
        self.ref, self.hyp = ref, hyp
        self.rows: list[tuple[int, int, int, int, int]] = []

    def add(self, r0: int, r1: int, h0: int, h1: int) -> None:
        nr, nh = r1 - r0, h1 - h0
        if nr + nh > 2 and nr and nh:
            # A word recognised correctly at either edge of a split or merge is a column of its own
            # (as sclite has it): "cabinet" against "cabinet that" is correct + insertion, not one wrong column.
            if self.ref[r0] == self.hyp[h0]:
                self._add_one(r0, r0 + 1, h0, h0 + 1)
                self._add_rest(r0 + 1, r1, h0 + 1, h1)
                return
            if self.ref[r1 - 1] == self.hyp[h1 - 1]:
                self._add_rest(r0, r1 - 1, h0, h1 - 1)
                self._add_one(r1 - 1, r1, h1 - 1, h1)
                return
        self._add_one(r0, r1, h0, h1)

    def _add_rest(self, r0: int, r1: int, h0: int, h1: int) -> None:
        """What is left of a peeled column: word by word when one side is empty, else a column."""
        if r0 == r1 or h0 == h1:
            for r in range(r0, r1):
                self._add_one(r, r + 1, h0, h0)
            for h in range(h0, h1):
                self._add_one(r1, r1, h, h + 1)
        else:
            self.add(r0, r1, h0, h1)

    def _add_one(self, r0: int, r1: int, h0: int, h1: int) -> None:
        nr, nh = r1 - r0, h1 - h0
        if nr == 1 and nh == 1:
            kind = CORRECT if self.ref[r0] == self.hyp[h0] else SUBSTITUTION
        elif nh == 0:
            kind = DELETION
        elif nr == 0:
            kind = INSERTION
        else:
            kind = MULTI
        self.rows.append((r0, r1, h0, h1, kind))

    def add_rows(self, rows: list) -> None:
        self.rows.extend(rows)

    def add_correct_run(self, r0: int, h0: int, length: int) -> None:
        self.rows.extend((r0 + k, r0 + k + 1, h0 + k, h0 + k + 1, CORRECT) for k in range(length))

    def build(self, mode: str) -> Alignment:
        rows = np.array(self.rows, dtype=np.int64).reshape(-1, 5)
        idx = np.arange(len(rows))
        return Alignment(rows[:, 0:2].copy(), rows[:, 2:4].copy(), rows[:, 4].astype(np.uint8),
                         _column_of_each_word(rows[:, 0:2], idx, len(self.ref)),
                         _column_of_each_word(rows[:, 2:4], idx, len(self.hyp)), mode)


def _column_of_each_word(ranges: np.ndarray, idx: np.ndarray, n: int) -> np.ndarray:
    lengths = ranges[:, 1] - ranges[:, 0]
    total = int(lengths.sum())
    offsets = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out = np.empty(n, dtype=np.int64)
    out[np.repeat(ranges[:, 0], lengths) + offsets] = np.repeat(idx, lengths)
    return out


def align(ref: Transcript, hyp: Transcript, *, mode: str = "phonetic", lexicon: Lexicon | None = None,
          max_dp_words: int = config.MAX_DP_WORDS, min_run: int = config.ANCHOR_MIN_RUN) -> Alignment:
    """Align the words of ``hyp`` to those of ``ref`` (both in reading order).

    Parameters
    ----------
    mode : {"phonetic", "sclite"}
    lexicon : Lexicon, optional
        Pronunciations for phonetic mode (default: the shared one).
    max_dp_words : int
        Chunks longer than this on either side are cut by anchors first.
    min_run : int
        Shortest run of identical words used as an anchor.
    """
    if mode not in MODES:
        raise ParameterError(f"alignment mode must be one of {', '.join(MODES)}, got {mode!r}")
    if min_run < 2 or max_dp_words < 1:
        raise ParameterError(f"min_run must be >= 2 and max_dp_words >= 1, got {min_run} and {max_dp_words}")
    lexicon = lexicon or (shared_lexicon() if mode == "phonetic" else None)
    vocab: dict[str, int] = {}
    ref_ids = np.array([vocab.setdefault(w, len(vocab)) for w in ref.words], dtype=np.int32)
    hyp_ids = np.array([vocab.setdefault(w, len(vocab)) for w in hyp.words], dtype=np.int32)
    cols = _Columns(ref.words, hyp.words)
    phones = (PhoneString(ref.words, lexicon), PhoneString(hyp.words, lexicon)) if lexicon is not None else None
    batch: list[tuple[int, int, int, int]] = []  # short chunks aligned by sclite in one kernel call
    for r0, r1, h0, h1 in _chunks(ref, hyp):
        if mode == "sclite" and max(r1 - r0, h1 - h0) <= max_dp_words:
            batch.append((r0, r1, h0, h1))
            continue
        cols.add_rows(_sclite_batch(ref_ids, hyp_ids, batch))
        batch = []
        _align_chunk(cols, ref, hyp, ref_ids, hyp_ids, r0, r1, h0, h1, mode, phones, max_dp_words, min_run)
    cols.add_rows(_sclite_batch(ref_ids, hyp_ids, batch))
    return cols.build(mode)


def _sclite_batch(ref_ids: np.ndarray, hyp_ids: np.ndarray, chunks: list[tuple[int, int, int, int]]) -> list[tuple]:
    if not chunks:
        return []
    rows = _sclite_columns(ref_ids, hyp_ids, np.array(chunks, dtype=np.int64).reshape(-1, 4),
                           config.SCLITE_INS, config.SCLITE_DEL, config.SCLITE_SUB)
    return rows.tolist()


def _align_chunk(cols: _Columns, ref: Transcript, hyp: Transcript, ref_ids: np.ndarray, hyp_ids: np.ndarray,
                 r0: int, r1: int, h0: int, h1: int, mode: str, phones: tuple[PhoneString, PhoneString] | None,
                 max_dp_words: int, min_run: int) -> None:
    if max(r1 - r0, h1 - h0) <= max_dp_words:
        _fine(cols, ref_ids, hyp_ids, r0, r1, h0, h1, mode, phones)
        return
    timed = ref.timed and hyp.timed
    runs = find_anchors(ref_ids[r0:r1], hyp_ids[h0:h1], ref.starts[r0:r1] if timed else None,
                        hyp.starts[h0:h1] if timed else None, min_run=min_run)
    ri, hi = r0, h0
    for s_r, s_h, length in runs:
        _fine(cols, ref_ids, hyp_ids, ri, r0 + s_r, hi, h0 + s_h, mode, phones)
        cols.add_correct_run(r0 + s_r, h0 + s_h, length)
        ri, hi = r0 + s_r + length, h0 + s_h + length
    _fine(cols, ref_ids, hyp_ids, ri, r1, hi, h1, mode, phones)


#: Past this many phone-grid cells a gap between anchors is aligned word by word.
_MAX_PHONE_CELLS = 40_000_000


def _fine(cols: _Columns, ref_ids: np.ndarray, hyp_ids: np.ndarray, r0: int, r1: int, h0: int, h1: int,
          mode: str, phones: tuple[PhoneString, PhoneString] | None) -> None:
    if r1 == r0 or h1 == h0:
        for r in range(r0, r1):
            cols.add(r, r + 1, h0, h0)
        for h in range(h0, h1):
            cols.add(r1, r1, h, h + 1)
        return
    if phones is not None and (r1 - r0) * (h1 - h0) * 25 <= _MAX_PHONE_CELLS:
        lo, hi = word_links(phones[0], phones[1], r0, r1, h0, h1)
        for a, b, c, d in link_columns(lo, hi, h1 - h0).tolist():
            cols.add(r0 + a, r0 + b, h0 + c, h0 + d)
        return
    ops = sclite_ops(ref_ids[r0:r1], hyp_ids[h0:h1])
    a, b = r0, h0
    for op in ops:
        if op == DIAG:
            cols.add(a, a + 1, b, b + 1)
            a += 1
            b += 1
        elif op == DEL:
            cols.add(a, a + 1, b, b)
            a += 1
        else:
            cols.add(a, a, b, b + 1)
            b += 1


def sclite_ops(ref_ids: np.ndarray, hyp_ids: np.ndarray) -> np.ndarray:
    """Edit codes (0 diagonal, 1 deletion, 2 insertion) of sclite's alignment of two id strings."""
    return _sclite_dp(np.ascontiguousarray(ref_ids, dtype=np.int32), np.ascontiguousarray(hyp_ids, dtype=np.int32),
                      config.SCLITE_INS, config.SCLITE_DEL, config.SCLITE_SUB)


def unmatched_units(ref: Transcript, hyp: Transcript) -> str:
    """A one-line note when both sides name their units (trn utterances, stm/ctm files) and no name
    is on both, so the whole texts are aligned as one chunk; "" otherwise."""
    ref_names = [u for u, _, _ in _unit_runs(ref.units) if u]
    hyp_names = [u for u, _, _ in _unit_runs(hyp.units) if u]
    if not ref_names or not hyp_names or set(ref_names) & set(hyp_names):
        return ""
    return (f"no utterance or file name of the hypothesis ({hyp_names[0]!r}, ...) is in the reference "
            f"({ref_names[0]!r}, ...); the whole texts were aligned as one chunk")


def _chunks(ref: Transcript, hyp: Transcript) -> list[tuple[int, int, int, int]]:
    """Consecutive (ref_lo, ref_hi, hyp_lo, hyp_hi) ranges that are aligned independently:
    utterances (trn) or files (stm/ctm) when both sides name them, else everything."""
    ref_runs, hyp_runs = _unit_runs(ref.units), _unit_runs(hyp.units)
    shared = {u for u, _, _ in ref_runs} & {u for u, _, _ in hyp_runs} - {""}
    if shared:  # names that never meet (rec.stm against rec.wav.ctm) are ignored rather than all wrong
        return _unit_chunks(ref_runs, hyp_runs)
    return [(0, len(ref), 0, len(hyp))]


def _unit_chunks(ref_runs: list[tuple[str, int, int]], hyp_runs: list[tuple[str, int, int]]) -> list[tuple[int, int, int, int]]:
    """Pair units by name, in reference order; a unit on one side only is all deletions or insertions."""
    ref_at = {u: (a, b) for u, a, b in ref_runs}
    hyp_at = {u: (a, b) for u, a, b in hyp_runs}
    order = [u for u, _, _ in ref_runs]
    placed = set(order)
    prev = None
    for u, _, _ in hyp_runs:  # a unit only the hypothesis has goes after the unit it follows there
        if u not in placed:
            at = order.index(prev) + 1 if prev is not None else 0
            while at < len(order) and order[at] not in hyp_at and order[at] < u:
                at += 1  # past reference-only units that sort before it
            order.insert(at, u)
            placed.add(u)
        prev = u
    out = []
    r_end = h_end = 0
    for u in order:
        r0, r1 = ref_at.get(u, (r_end, r_end))
        h0, h1 = hyp_at.get(u, (h_end, h_end))
        out.append((r0, r1, h0, h1))
        r_end, h_end = r1, h1
    return out


def _unit_runs(units: Sequence[str]) -> list[tuple[str, int, int]]:
    runs: list[tuple[str, int, int]] = []
    for i, u in enumerate(units):
        if runs and runs[-1][0] == u:
            runs[-1] = (u, runs[-1][1], i + 1)
        else:
            runs.append((u, i, i + 1))
    return runs
