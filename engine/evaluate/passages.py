"""Character-level passage retrieval evaluation (Wade and Allan, section 2), and the same in seconds.

A run ranks passages, each a span ``[offset, offset + length)`` of one
document; characters are ranked in that order, the first character of the
first passage at rank 1. A character retrieved a second time counts as
non-relevant (the HARD rule). Judgements mark the relevant spans; ``R`` is the
number of relevant characters of the topic, ``R_p`` the number of judged
passages. Measures (topic by topic, then the mean over judged topics; a judged
topic the run misses scores 0):

``psg_rprec``  passage R-precision of HARD 2003 (eq. 1), the flawed one: relevant
               characters among those of the first ``R_p`` passages.
``prec@N``     precision at min(N, R) characters.
``bpref@N``    bpref at k = min(N, R) characters (eq. 2): each of the first k
               relevant characters scores 1 - (non-relevant characters ranked
               above it, at most k) / k; the sum over k.
``rprec``      character R-precision (precision at R).
``bpref@R``    bpref at R characters.
``cap``        non-interpolated character average precision (eq. 3), with
               relevant characters never retrieved at rank infinity.

With ``units="seconds"`` offsets and lengths are seconds of audio and the
measures count milliseconds instead of characters.

Files use the TREC HARD layout, whitespace separated, ``#`` comments allowed:

    run:    TOPIC DOC OFFSET LENGTH RANK SCORE [TAG]
    qrels:  TOPIC DOC OFFSET LENGTH [RELEVANCE]     (RELEVANCE 0 lines are ignored)
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import special, stats

from engine.errors import ParameterError
from engine.search import config
from engine.userfiles import read_text

UNITS = ("chars", "seconds")
#: Seconds are counted in whole milliseconds.
MILLISECONDS = 1000


@dataclass(frozen=True)
class Judgement:
    topic: str
    doc: str
    offset: float
    length: float


@dataclass(frozen=True)
class Retrieved:
    topic: str
    doc: str
    offset: float
    length: float
    rank: int
    score: float


@dataclass(frozen=True)
class RankedUnits:
    """One topic's ranked list as runs of consecutive characters (or milliseconds).

    ``lengths[j]`` units at ranks ``sum(lengths[:j]) + 1 ...`` are all relevant
    (``relevant[j]``) or all not; ``passage[j]`` is the rank (0-based) of the
    passage they come from. ``n_relevant`` is R, ``n_judged`` is R_p.
    """

    lengths: np.ndarray
    relevant: np.ndarray
    passage: np.ndarray
    n_relevant: int
    n_judged: int


# -- files --------------------------------------------------------------------------


def _fields(path: str | Path, n_min: int, what: str) -> Iterable[tuple[int, list[str]]]:
    path = Path(path)
    try:
        text = read_text(path)
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ParameterError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        if len(parts) < n_min:
            raise ParameterError(f"{path}:{number}: a {what} line needs {n_min} fields, got {len(parts)}")
        yield number, parts


def _finite(path: str | Path, number: int, offset: float, length: float) -> None:
    # The end in milliseconds must be finite too: 1e308 + 1e308 is not.
    if not (math.isfinite(offset) and math.isfinite(length) and math.isfinite((offset + length) * MILLISECONDS)):
        raise ParameterError(f"{path}:{number}: offset and length must be finite, got {offset}, {length}")


def read_qrels(path: str | Path) -> dict[str, list[Judgement]]:
    """Judgements by topic."""
    out: dict[str, list[Judgement]] = defaultdict(list)
    for number, f in _fields(path, 4, "judgement"):
        try:
            offset, length = float(f[2]), float(f[3])
            relevance = float(f[4]) if len(f) > 4 else 1.0
        except ValueError:
            raise ParameterError(f"{path}:{number}: offset, length and relevance must be numbers") from None
        _finite(path, number, offset, length)
        if not math.isfinite(relevance):
            raise ParameterError(f"{path}:{number}: the relevance must be finite, got {relevance}")
        if offset < 0 or length <= 0:
            raise ParameterError(f"{path}:{number}: need offset >= 0 and length > 0, got {offset}, {length}")
        if relevance > 0:
            out[f[0]].append(Judgement(f[0], f[1], offset, length))
    return dict(out)


def read_run(path: str | Path) -> dict[str, list[Retrieved]]:
    """Retrieved passages by topic, in rank order (ties by descending score, then file order)."""
    out: dict[str, list[Retrieved]] = defaultdict(list)
    for number, f in _fields(path, 6, "run"):
        try:
            row = Retrieved(f[0], f[1], float(f[2]), float(f[3]), int(f[4]), float(f[5]))
        except ValueError:
            raise ParameterError(f"{path}:{number}: offset, length, rank and score must be numbers") from None
        _finite(path, number, row.offset, row.length)
        if not math.isfinite(row.score):
            raise ParameterError(f"{path}:{number}: the score must be finite, got {row.score}")
        if row.offset < 0 or row.length <= 0:
            raise ParameterError(f"{path}:{number}: need offset >= 0 and length > 0, got {row.offset}, {row.length}")
        out[row.topic].append(row)
    return {t: sorted(rows, key=lambda r: (r.rank, -r.score)) for t, rows in out.items()}


def write_run(path: str | Path, rows: Iterable[Retrieved], *, tag: str = "earshot") -> None:
    lines = [f"{r.topic} {r.doc} {_num(r.offset)} {_num(r.length)} {r.rank} {r.score:.6g} {tag}\n" for r in rows]
    Path(path).write_text("".join(lines), encoding="utf-8")


def write_qrels(path: str | Path, rows: Iterable[Judgement]) -> None:
    Path(path).write_text("".join(f"{j.topic} {j.doc} {_num(j.offset)} {_num(j.length)} 1\n" for j in rows),
                          encoding="utf-8")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.3f}"


# -- ranked units ------------------------------------------------------------------------


def _to_units(offset: float, length: float, units: str) -> tuple[int, int]:
    if units == "chars":
        return round(offset), round(offset + length)
    return round(offset * MILLISECONDS), round((offset + length) * MILLISECONDS)


def _merge(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _covered(spans: list[tuple[int, int]], a: int, b: int) -> list[tuple[int, int]]:
    """Parts of [a, b) inside the disjoint sorted ``spans``."""
    i = max(bisect.bisect_right(spans, (a, a)) - 1, 0)
    out = []
    while i < len(spans) and spans[i][0] < b:
        lo, hi = max(a, spans[i][0]), min(b, spans[i][1])
        if lo < hi:
            out.append((lo, hi))
        i += 1
    return out


def ranked_units(retrieved: Sequence[Retrieved], judged: Sequence[Judgement], *, units: str = "chars") -> RankedUnits:
    """Cut one topic's ranked passages into runs of relevant and non-relevant units."""
    if units not in UNITS:
        raise ParameterError(f"units must be one of {', '.join(UNITS)}, got {units!r}")
    rel: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for j in judged:
        rel[j.doc].append(_to_units(j.offset, j.length, units))
    relevant_spans = {d: _merge(s) for d, s in rel.items()}
    n_relevant = sum(b - a for spans in relevant_spans.values() for a, b in spans)
    seen: dict[str, list[tuple[int, int]]] = defaultdict(list)
    lengths: list[int] = []
    flags: list[bool] = []
    passage: list[int] = []
    for k, r in enumerate(retrieved):
        a, b = _to_units(r.offset, r.length, units)
        if b <= a:
            continue
        cuts = {a, b}
        good = relevant_spans.get(r.doc, [])
        inside_rel = _covered(good, a, b)
        inside_seen = _covered(seen[r.doc], a, b)
        for lo, hi in inside_rel + inside_seen:
            cuts.update((lo, hi))
        points = sorted(cuts)
        for lo, hi in itertools.pairwise(points):
            is_rel = bool(_covered(inside_rel, lo, hi)) and not _covered(inside_seen, lo, hi)
            if lengths and passage[-1] == k and flags[-1] == is_rel:
                lengths[-1] += hi - lo
            else:
                lengths.append(hi - lo)
                flags.append(is_rel)
                passage.append(k)
        seen[r.doc] = _merge([*seen[r.doc], (a, b)])
    return RankedUnits(np.asarray(lengths, dtype=np.int64), np.asarray(flags, dtype=bool),
                       np.asarray(passage, dtype=np.int64), n_relevant, len(judged))


# -- measures ------------------------------------------------------------------------------


def _cumulative(ru: RankedUnits) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Units ranked before each run: in all, non-relevant, relevant."""
    before = np.cumsum(ru.lengths) - ru.lengths
    non = np.where(ru.relevant, 0, ru.lengths)
    rel = np.where(ru.relevant, ru.lengths, 0)
    return before, np.cumsum(non) - non, np.cumsum(rel) - rel


def passage_r_precision(ru: RankedUnits) -> float:
    """Relevant units retrieved at least once in the first R_p passages over all units in them (eq. 1)."""
    top = ru.passage < ru.n_judged
    k = int(ru.lengths[top].sum())
    return float(ru.lengths[top & ru.relevant].sum()) / k if k else 0.0


def precision_at(ru: RankedUnits, k: int) -> float:
    """Fraction of the first ``k`` ranked units that are relevant (unretrieved ranks count as non-relevant)."""
    if k <= 0:
        raise ParameterError(f"precision needs k >= 1, got {k}")
    before, _, _ = _cumulative(ru)
    taken = np.clip(k - before, 0, ru.lengths)
    return float(taken[ru.relevant].sum()) / k


def bpref_at(ru: RankedUnits, k: int) -> float:
    """bpref at ``k`` units (eq. 2)."""
    if k <= 0:
        raise ParameterError(f"bpref needs k >= 1, got {k}")
    _, non_before, rel_before = _cumulative(ru)
    counted = np.clip(np.minimum(rel_before + ru.lengths, k) - rel_before, 0, None)
    per_unit = 1.0 - np.minimum(non_before, k) / k
    return float(np.sum(np.where(ru.relevant, counted * per_unit, 0.0))) / k


def precision_at_min(ru: RankedUnits, n: int) -> float:
    """Precision at min(N, R) units."""
    return precision_at(ru, min(n, ru.n_relevant))


def bpref_at_min(ru: RankedUnits, n: int) -> float:
    """bpref at min(N, R) units."""
    return bpref_at(ru, min(n, ru.n_relevant))


def char_r_precision(ru: RankedUnits) -> float:
    """Character R-precision: precision at R units."""
    return precision_at(ru, ru.n_relevant)


def bpref_at_r(ru: RankedUnits) -> float:
    """bpref at R units."""
    return bpref_at(ru, ru.n_relevant)


def _harmonic(x: np.ndarray) -> np.ndarray:
    """H(x) = 1 + 1/2 + ... + 1/x, H(0) = 0."""
    return special.digamma(np.asarray(x, dtype=np.float64) + 1.0) + np.euler_gamma


def char_average_precision(ru: RankedUnits) -> float:
    """Non-interpolated character average precision (eq. 3).

    Inside a relevant run starting after ``s`` ranked units of which ``n`` are
    non-relevant, the i-th relevant unit sits at rank ``i + n``; its precision
    ``1 - n / rank`` sums over the run to ``L - n (H(s + L) - H(s))``.
    """
    if ru.n_relevant <= 0:
        raise ParameterError("average precision needs at least one relevant unit")
    before, non_before, _ = _cumulative(ru)
    sel = ru.relevant
    length, s, n = ru.lengths[sel].astype(np.float64), before[sel], non_before[sel].astype(np.float64)
    total = np.sum(length - np.where(n > 0, n * (_harmonic(s + length) - _harmonic(s)), 0.0))
    return float(total) / ru.n_relevant


def measure_names(n: int) -> tuple[str, ...]:
    """Names of the measures, in table order, for N = ``n`` units."""
    return ("psg_rprec", f"prec@{n}", f"bpref@{n}", "rprec", "bpref@R", "cap")


def topic_measures(ru: RankedUnits, *, n: int) -> dict[str, float]:
    """All measures of one judged topic."""
    values = (passage_r_precision(ru), precision_at_min(ru, n), bpref_at_min(ru, n), char_r_precision(ru),
              bpref_at_r(ru), char_average_precision(ru))
    return dict(zip(measure_names(n), values, strict=True))


@dataclass(frozen=True)
class RunEvaluation:
    """Per-topic and mean values of one run."""

    name: str
    units: str
    n: int
    per_topic: dict[str, dict[str, float]]

    @property
    def measures(self) -> tuple[str, ...]:
        return measure_names(self.n)

    def means(self) -> dict[str, float]:
        topics = sorted(self.per_topic)
        return {m: float(np.mean([self.per_topic[t][m] for t in topics])) if topics else 0.0 for m in self.measures}

    def values(self, measure: str, topics: Sequence[str]) -> np.ndarray:
        return np.array([self.per_topic[t][measure] for t in topics])


def evaluate_run(run: Mapping[str, Sequence[Retrieved]], qrels: Mapping[str, Sequence[Judgement]], *,
                 units: str = "chars", n: int | float | None = None, name: str = "run") -> RunEvaluation:
    """Every measure for every judged topic (a topic missing from the run scores 0).

    ``n`` is N of the min(N, R) measures in ``units`` (seconds for "seconds");
    default 12,000 characters or ``config.EVAL_N_SECONDS``.
    """

    if units not in UNITS:
        raise ParameterError(f"units must be one of {', '.join(UNITS)}, got {units!r}")
    if n is None:
        n = config.EVAL_N_CHARS if units == "chars" else config.EVAL_N_SECONDS
    n_units = round(n) if units == "chars" else round(float(n) * MILLISECONDS)
    if n_units < 1:
        raise ParameterError(f"N must be positive, got {n}")
    per_topic = {}
    for topic, judged in qrels.items():
        ru = ranked_units(run.get(topic, []), judged, units=units)
        if ru.n_relevant > 0:
            per_topic[topic] = topic_measures(ru, n=n_units)
    label = n_units if units == "chars" else round(n_units / MILLISECONDS)
    renamed = {t: dict(zip(measure_names(label), v.values(), strict=True)) for t, v in per_topic.items()}
    return RunEvaluation(name, units, label, renamed)


def halve_passages(run: Mapping[str, Sequence[Retrieved]], *, units: str = "chars") -> dict[str, list[Retrieved]]:
    """Split every passage into two halves ranked one after the other (the paper's Figure 1)."""
    step = 1.0 if units == "chars" else 1.0 / MILLISECONDS
    out: dict[str, list[Retrieved]] = {}
    for topic, rows in run.items():
        halves: list[Retrieved] = []
        for r in rows:
            first = math.floor(r.length / step / 2) * step
            parts = [(r.offset, first), (r.offset + first, r.length - first)] if first > 0 else [(r.offset, r.length)]
            for off, length in parts:
                halves.append(Retrieved(topic, r.doc, off, length, len(halves) + 1, r.score))
        out[topic] = halves
    return out


# -- comparison -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Means and two-tailed paired t-tests between runs, measure by measure."""

    runs: tuple[str, ...]
    measures: tuple[str, ...]
    topics: tuple[str, ...]
    means: dict[str, dict[str, float]]  # measure -> run -> mean
    p_values: dict[str, dict[tuple[str, str], float]]  # measure -> (run a, run b) -> p


def compare(evaluations: Sequence[RunEvaluation]) -> Comparison:
    """Paired t-tests over the topics every evaluation judged (they share qrels)."""
    if len(evaluations) < 2:
        raise ParameterError("comparing needs at least two runs")
    measures = evaluations[0].measures
    if any(e.measures != measures for e in evaluations):
        raise ParameterError("runs were evaluated with different units or N")
    topics = tuple(sorted(set.intersection(*(set(e.per_topic) for e in evaluations))))
    means: dict[str, dict[str, float]] = {}
    p_values: dict[str, dict[tuple[str, str], float]] = {}
    for m in measures:
        values = {e.name: e.values(m, topics) for e in evaluations}
        means[m] = {name: float(v.mean()) if len(v) else 0.0 for name, v in values.items()}
        p_values[m] = {}
        for a in values:
            for b in values:
                if a != b:
                    p_values[m][(a, b)] = paired_t_test(values[a], values[b])
    return Comparison(tuple(e.name for e in evaluations), measures, topics, means, p_values)


def paired_t_test(a: np.ndarray, b: np.ndarray) -> float:
    """Two-tailed p-value of a paired t-test (1.0 when the runs never differ)."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if len(diff) < 2 or np.allclose(diff, 0.0):
        return 1.0
    if np.allclose(diff, diff[0]):
        return 0.0
    return float(stats.ttest_rel(a, b).pvalue)


def comparison_table(c: Comparison, measure: str, *, alpha: float = 0.05) -> str:
    """A markdown table in the paper's layout: runs by ascending mean, then p-values of the
    two-tailed paired t-test against every run with a lower mean, and, below a p-value under
    ``alpha``, the % improvement."""
    order = sorted(c.runs, key=lambda r: c.means[measure][r])
    head = f"| run | {measure} | " + " | ".join(f"p vs {r}" for r in order[:-1]) + " |"
    lines = [head, "|" + " --- |" * (len(order) + 1)]
    for i, run in enumerate(order):
        cells = []
        for other in order[:-1]:
            if order.index(other) >= i:
                cells.append("")
                continue
            p = c.p_values[measure][(run, other)]
            base = c.means[measure][other]
            gain = f" (+{100 * (c.means[measure][run] - base) / base:.1f}%)" if p < alpha and base > 0 else ""
            cells.append(f"{p:.3f}{gain}")
        lines.append(f"| {run} | {c.means[measure][run]:.4f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
