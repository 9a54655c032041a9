"""Stage 3 of the scorer: map reference entities to hypothesis entities.

Two entities may be mapped when some word of one is aligned with some word of the other
(they share an alignment column). ``greedy`` is the paper's left-to-right choice: the
first possible pair wins. ``optimal`` solves an assignment problem per group of
overlapping entities (``scipy.optimize.linear_sum_assignment``) so that the final score
is as high as it can be, and among equal scores as many pairs as possible are mapped
(which lowers the slot error rate).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from engine.entities.spans import EntitySpan
from engine.errors import ParameterError
from engine.evaluate.entities.align import Alignment

MAPPINGS = ("optimal", "greedy")


def candidate_pairs(al: Alignment, ref: Sequence[EntitySpan], hyp: Sequence[EntitySpan]) -> list[tuple[int, int]]:
    """Pairs (ref index, hyp index) that share an alignment column, sorted by position."""
    ref_ent = np.full(len(al.ref_col), -1, dtype=np.int64)
    hyp_ent = np.full(len(al.hyp_col), -1, dtype=np.int64)
    for k, e in enumerate(ref):
        ref_ent[e.first_word:e.last_word + 1] = k
    for k, e in enumerate(hyp):
        hyp_ent[e.first_word:e.last_word + 1] = k
    r_len = al.col_ref[:, 1] - al.col_ref[:, 0]
    h_len = al.col_hyp[:, 1] - al.col_hyp[:, 0]
    pairs: set[tuple[int, int]] = set()
    single = np.flatnonzero((r_len == 1) & (h_len == 1))
    a = ref_ent[al.col_ref[single, 0]]
    b = hyp_ent[al.col_hyp[single, 0]]
    both = (a >= 0) & (b >= 0)
    pairs.update(zip(a[both].tolist(), b[both].tolist(), strict=True))
    for c in np.flatnonzero((r_len >= 1) & (h_len >= 1) & ((r_len > 1) | (h_len > 1))):
        rs = {int(x) for x in ref_ent[al.col_ref[c, 0]:al.col_ref[c, 1]] if x >= 0}
        hs = {int(x) for x in hyp_ent[al.col_hyp[c, 0]:al.col_hyp[c, 1]] if x >= 0}
        pairs.update((x, y) for x in rs for y in hs)
    return sorted(pairs, key=lambda p: (ref[p[0]].first_word, hyp[p[1]].first_word))


def map_entities(pairs: Sequence[tuple[int, int]], how: str = "optimal",
                 value: Callable[[int, int], int] | None = None) -> list[tuple[int, int]]:
    """One-to-one mapping chosen among candidate ``pairs``.

    ``value(r, h)`` is the number of correct score components the pair would get
    (needed by ``optimal``). Returns the mapped pairs sorted by reference index.
    """
    if how == "greedy":
        used_r: set[int] = set()
        used_h: set[int] = set()
        out = []
        for r, h in pairs:
            if r not in used_r and h not in used_h:
                used_r.add(r)
                used_h.add(h)
                out.append((r, h))
        return sorted(out)
    if how != "optimal":
        raise ParameterError(f"mapping must be one of {', '.join(MAPPINGS)}, got {how!r}")
    if value is None:
        raise ParameterError("optimal mapping needs the value of each pair")
    return sorted(p for group in _groups(pairs) for p in _assign(group, value))


def _groups(pairs: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Connected groups of the bipartite overlap graph."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r, h in pairs:
        parent[find(("r", r))] = find(("h", h))
    groups: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    for r, h in pairs:
        groups[find(("r", r))].append((r, h))
    return list(groups.values())


def _assign(group: list[tuple[int, int]], value: Callable[[int, int], int]) -> list[tuple[int, int]]:
    if len(group) == 1:
        return group

    rs = sorted({r for r, _ in group})
    hs = sorted({h for _, h in group})
    ri = {r: k for k, r in enumerate(rs)}
    hi = {h: k for k, h in enumerate(hs)}
    big = len(group) + 1  # one more correct component outweighs any number of extra pairs
    forbidden = -float(len(group) * (4 * big + 1) + 1)  # worse than losing every real pair
    weight = np.full((len(rs), len(hs)), forbidden)
    for r, h in group:
        weight[ri[r], hi[h]] = value(r, h) * big + 1
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return [(rs[a], hs[b]) for a, b in zip(rows, cols, strict=True) if weight[a, b] > forbidden]
