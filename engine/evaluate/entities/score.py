"""Stage 5 of the scorer, and the whole pipeline: align, map, judge, count.

Each mapped pair is judged on every component; a wrong component is a substitution,
counted against recall and precision. An unmapped reference entity is a deletion of
every component (recall), an unmapped hypothesis entity an insertion of every
component (precision). P = C / (C + S + I), R = C / (C + S + D), F = 2PR / (P + R),
slot error rate SER = (S + D + I) / (C + S + D) (Makhoul et al. 1999).

Components: ``type``, ``extent``, ``content`` (the paper's three), or in MUC mode
``type`` and ``text`` (extent and content together, extent tolerance 0), which equals
the MUC scorer's TYPE and TEXT slots when the two texts are the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.entities import config
from engine.entities.spans import Transcript
from engine.errors import ParameterError
from engine.evaluate.entities.align import Alignment, align
from engine.evaluate.entities.compare import Judgement, judge
from engine.evaluate.entities.mapping import candidate_pairs, map_entities

THREE_COMPONENTS = ("type", "extent", "content")
MUC_COMPONENTS = ("type", "text")


@dataclass
class Counts:
    """Correct, substitution, deletion and insertion counts of one component (or all)."""

    correct: int = 0
    substitution: int = 0
    deletion: int = 0
    insertion: int = 0

    def add(self, other: Counts) -> None:
        self.correct += other.correct
        self.substitution += other.substitution
        self.deletion += other.deletion
        self.insertion += other.insertion

    @property
    def precision(self) -> float:
        d = self.correct + self.substitution + self.insertion
        return self.correct / d if d else 0.0

    @property
    def recall(self) -> float:
        d = self.correct + self.substitution + self.deletion
        return self.correct / d if d else 0.0

    @property
    def f(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def ser(self) -> float:
        """Slot error rate: (S + D + I) / number of reference slots."""
        n = self.correct + self.substitution + self.deletion
        return (self.substitution + self.deletion + self.insertion) / n if n else 0.0

    def to_dict(self) -> dict[str, float]:
        return {"correct": self.correct, "substitution": self.substitution, "deletion": self.deletion,
                "insertion": self.insertion, "precision": self.precision, "recall": self.recall, "f": self.f,
                "ser": self.ser}


@dataclass(frozen=True)
class Pair:
    """A mapped pair (both indices), a missed reference entity (hyp None) or a spurious one (ref None)."""

    ref: int | None
    hyp: int | None
    judgement: Judgement | None = None


@dataclass
class ScoreReport:
    """Everything one scoring run found; ``to_dict`` gives the JSON the CLI prints."""

    components: dict[str, Counts]
    overall: Counts
    per_type: dict[str, dict[str, float]]
    pairs: list[Pair]
    words: dict[str, int]
    settings: dict[str, Any]
    ref: Transcript = field(repr=False)
    hyp: Transcript = field(repr=False)
    alignment: Alignment = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "components": {k: v.to_dict() for k, v in self.components.items()},
                "overall": self.overall.to_dict(), "per_type": self.per_type, "words": self.words,
                "entities": {"reference": len(self.ref.entities), "hypothesis": len(self.hyp.entities),
                             "mapped": sum(p.ref is not None and p.hyp is not None for p in self.pairs)}}


def score(ref: Transcript, hyp: Transcript, *, align_mode: str = "phonetic", tolerance: int = config.DEFAULT_TOLERANCE,
          mapping: str = "optimal", muc: bool = False, alignment: Alignment | None = None) -> ScoreReport:
    """Score the entities of ``hyp`` against those of ``ref`` (the paper's five stages).

    Parameters
    ----------
    align_mode : {"phonetic", "sclite"}
    tolerance : int
        Extent tolerance in alignment columns (ignored, i.e. 0, in MUC mode).
    mapping : {"optimal", "greedy"}
    muc : bool
        Score ``type`` and ``text`` (extent and content combined, tolerance 0).
    alignment : Alignment, optional
        Use this alignment instead of computing one (tests, or several runs on one pair).
    """
    if tolerance < 0:
        raise ParameterError(f"extent tolerance must be >= 0, got {tolerance}")
    if not len(ref):  # every hypothesis word would be an insertion over zero words: no error rate exists
        raise ParameterError(f"{ref.source}: the reference has no words; there is nothing to score against")
    if muc:
        tolerance = 0
    al = alignment if alignment is not None else align(ref, hyp, mode=align_mode)
    if len(al.ref_col) != len(ref) or len(al.hyp_col) != len(hyp):
        raise ParameterError("the alignment does not belong to these transcripts")
    err = al.col_kind != 0
    names = MUC_COMPONENTS if muc else THREE_COMPONENTS
    cache: dict[tuple[int, int], Judgement] = {}

    def judged(r: int, h: int) -> Judgement:
        j = cache.get((r, h))
        if j is None:
            j = cache[(r, h)] = judge(al, ref.entities[r], hyp.entities[h], tolerance, is_error=err)
        return j

    def n_correct(r: int, h: int) -> int:
        return sum(_component(judged(r, h), c) for c in names)

    candidates = candidate_pairs(al, ref.entities, hyp.entities)
    mapped = map_entities(candidates, mapping, n_correct)
    pairs = [Pair(r, h, judged(r, h)) for r, h in mapped]
    mapped_r = {r for r, _ in mapped}
    mapped_h = {h for _, h in mapped}
    pairs += [Pair(r, None) for r in range(len(ref.entities)) if r not in mapped_r]
    pairs += [Pair(None, h) for h in range(len(hyp.entities)) if h not in mapped_h]
    pairs.sort(key=lambda p: (ref.entities[p.ref].first_word if p.ref is not None else _hyp_pos(al, hyp, p.hyp),
                              p.ref is None))
    components = {c: Counts() for c in names}
    by_ref_type: dict[str, Counts] = {}
    by_hyp_type: dict[str, Counts] = {}
    for p in pairs:
        for c in names:
            one = _count(p, c)
            components[c].add(one)
            if p.ref is not None:
                by_ref_type.setdefault(ref.entities[p.ref].type, Counts()).add(one)
            if p.hyp is not None:
                by_hyp_type.setdefault(hyp.entities[p.hyp].type, Counts()).add(one)
    overall = Counts()
    for counts in components.values():
        overall.add(counts)
    per_type = {}
    for t in sorted(set(by_ref_type) | set(by_hyp_type)):
        rc, hc = by_ref_type.get(t, Counts()), by_hyp_type.get(t, Counts())
        p_, r_ = hc.precision, rc.recall
        per_type[t] = {"precision": p_, "recall": r_, "f": 2 * p_ * r_ / (p_ + r_) if p_ + r_ else 0.0,
                       "reference": sum(1 for e in ref.entities if e.type == t),
                       "hypothesis": sum(1 for e in hyp.entities if e.type == t)}
    settings = {"align": al.mode, "tolerance": tolerance, "mapping": mapping, "muc": muc,
                "reference": ref.source, "hypothesis": hyp.source}
    return ScoreReport(components, overall, per_type, pairs, al.word_errors(), settings, ref, hyp, al)


def _component(j: Judgement, name: str) -> bool:
    return {"type": j.type_ok, "extent": j.extent_ok, "content": j.content_ok, "text": j.text_ok}[name]


def _count(p: Pair, name: str) -> Counts:
    if p.ref is None:
        return Counts(insertion=1)
    if p.hyp is None:
        return Counts(deletion=1)
    assert p.judgement is not None
    return Counts(correct=1) if _component(p.judgement, name) else Counts(substitution=1)


def _hyp_pos(al: Alignment, hyp: Transcript, h: int | None) -> int:
    """Reference word position of a spurious hypothesis entity, for ordering."""
    assert h is not None
    return int(al.col_ref[al.hyp_col[hyp.entities[h].first_word], 0])
