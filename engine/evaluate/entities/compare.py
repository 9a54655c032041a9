"""Stage 4 of the scorer: judge one reference/hypothesis entity pair on type, extent and content.

Extent (section 2.4): the first words of the two entities must align, and so must the
last words. With an extent tolerance of N a boundary may be off by up to N alignment
columns, but only across word errors: every column between the two boundaries must be
an error. Content: over the columns where the two entities intersect, every column is
one reference word aligned to the same hypothesis word. The tolerance plays no part in
content.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.entities.spans import EntitySpan
from engine.evaluate.entities.align import CORRECT, Alignment


@dataclass(frozen=True, slots=True)
class Judgement:
    """How one mapped pair fared. Displacements are in alignment columns (0 = exact)."""

    type_ok: bool
    extent_ok: bool
    content_ok: bool
    start_shift: int
    end_shift: int
    start_ok: bool
    end_ok: bool

    @property
    def text_ok(self) -> bool:
        """MUC's TEXT slot: extent and content both right."""
        return self.extent_ok and self.content_ok


def judge(al: Alignment, ref: EntitySpan, hyp: EntitySpan, tolerance: int, *,
          is_error: np.ndarray | None = None) -> Judgement:
    """Compare ``ref`` with ``hyp`` under alignment ``al``; ``tolerance`` in columns (>= 0)."""
    err = al.col_kind != CORRECT if is_error is None else is_error
    start_shift, start_ok = _start(al, ref.first_word, hyp.first_word, err, tolerance)
    end_shift, end_ok = _end(al, ref.last_word, hyp.last_word, err, tolerance)
    lo = max(al.ref_col[ref.first_word], al.hyp_col[hyp.first_word])
    hi = min(al.ref_col[ref.last_word], al.hyp_col[hyp.last_word])
    content_ok = bool(hi >= lo and not err[lo:hi + 1].any())
    return Judgement(ref.type == hyp.type, start_ok and end_ok, content_ok, start_shift, end_shift, start_ok, end_ok)


def _start(al: Alignment, r: int, h: int, err: np.ndarray, tolerance: int) -> tuple[int, bool]:
    cr, ch = int(al.ref_col[r]), int(al.hyp_col[h])
    r_first, h_first = al.col_ref[cr, 0] == r, al.col_hyp[ch, 0] == h
    if cr == ch:
        if r_first and h_first:
            return 0, True
        return 1, tolerance >= 1  # inside a split/merge column, itself an error
    lo, hi = min(cr, ch), max(cr, ch)
    later_partial = not (h_first if ch > cr else r_first)
    shift = hi - lo + int(later_partial)
    return shift, bool(shift <= tolerance and err[lo:hi].all() and (not later_partial or err[hi]))


def _end(al: Alignment, r: int, h: int, err: np.ndarray, tolerance: int) -> tuple[int, bool]:
    cr, ch = int(al.ref_col[r]), int(al.hyp_col[h])
    r_last, h_last = al.col_ref[cr, 1] - 1 == r, al.col_hyp[ch, 1] - 1 == h
    if cr == ch:
        if r_last and h_last:
            return 0, True
        return 1, tolerance >= 1
    lo, hi = min(cr, ch), max(cr, ch)
    earlier_partial = not (h_last if ch < cr else r_last)
    shift = hi - lo + int(earlier_partial)
    return shift, bool(shift <= tolerance and err[lo + 1:hi + 1].all() and (not earlier_partial or err[lo]))
