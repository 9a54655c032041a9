"""Text output of the scorer: the score table and the aligned view of every entity pair."""

from __future__ import annotations

import numpy as np

from engine.entities.spans import EntitySpan
from engine.evaluate.entities.align import KIND_NAMES
from engine.evaluate.entities.score import Pair, ScoreReport

_KIND_MARK = ("=", "~", "-", "+", "~")


def format_table(report: ScoreReport) -> str:
    """Per-component and overall counts, P, R, F and SER; per-type F; word errors."""
    s = report.settings
    lines = [f"alignment {s['align']}, extent tolerance {s['tolerance']}, mapping {s['mapping']}"
             + (", MUC mode" if s["muc"] else ""),
             f"{'component':<10} {'COR':>6} {'SUB':>6} {'DEL':>6} {'INS':>6} {'P':>7} {'R':>7} {'F':>7} {'SER':>7}"]
    rows = [*report.components.items(), ("overall", report.overall)]
    for name, c in rows:
        lines.append(f"{name:<10} {c.correct:>6} {c.substitution:>6} {c.deletion:>6} {c.insertion:>6} "
                     f"{c.precision:>7.3f} {c.recall:>7.3f} {c.f:>7.3f} {c.ser:>7.3f}")
    lines.append("")
    lines.append(f"{'type':<13} {'ref':>5} {'hyp':>5} {'P':>7} {'R':>7} {'F':>7}")
    for t, v in report.per_type.items():
        lines.append(f"{t:<13} {v['reference']:>5} {v['hypothesis']:>5} "
                     f"{v['precision']:>7.3f} {v['recall']:>7.3f} {v['f']:>7.3f}")
    w = report.words
    wer = w["errors"] / w["ref_words"] if w["ref_words"] else 0.0
    lines.append("")
    lines.append(f"words: {w['ref_words']} reference, {w['hyp_words']} hypothesis; correct {w['correct']}, "
                 f"substitutions {w['substitution']}, deletions {w['deletion']}, insertions {w['insertion']}; "
                 f"WER {wer:.1%}")
    return "\n".join(lines)


def format_pairs(report: ScoreReport, *, only_errors: bool = False, context: int = 1) -> str:
    """Each entity pair with the aligned words around it and the reason for each judgement."""
    out = []
    for k, pair in enumerate(report.pairs, 1):
        if only_errors and pair.judgement is not None and _all_ok(report, pair):
            continue
        out.append(_format_pair(report, k, pair, context))
    return "\n\n".join(out)


def _all_ok(report: ScoreReport, pair: Pair) -> bool:
    j = pair.judgement
    assert j is not None
    return j.type_ok and (j.text_ok if report.settings["muc"] else j.extent_ok and j.content_ok)


def _format_pair(report: ScoreReport, k: int, pair: Pair, context: int) -> str:
    al, ref, hyp = report.alignment, report.ref, report.hyp
    r = ref.entities[pair.ref] if pair.ref is not None else None
    h = hyp.entities[pair.hyp] if pair.hyp is not None else None
    cols = []
    if r is not None:
        cols += [al.ref_col[r.first_word], al.ref_col[r.last_word]]
    if h is not None:
        cols += [al.hyp_col[h.first_word], al.hyp_col[h.last_word]]
    lo, hi = max(min(cols) - context, 0), min(max(cols) + context, al.n_cols - 1)
    ref_cells, hyp_cells, marks = [], [], []
    for c in range(lo, hi + 1):
        rw = _words(ref.words, al.col_ref[c], r)
        hw = _words(hyp.words, al.col_hyp[c], h)
        width = max(len(rw), len(hw), 1)
        ref_cells.append(rw.ljust(width))
        hyp_cells.append(hw.ljust(width))
        marks.append(_KIND_MARK[al.col_kind[c]].ljust(width))
    when = ""
    if r is not None and not np.isnan(ref.starts[r.first_word]):
        when = f"  [{ref.starts[r.first_word]:.2f}s]"
    head = f"#{k}{when} "
    if r is not None and h is not None:
        head += f"{r.type} ~ {h.type}: " + _verdict(report, pair)
    elif r is not None:
        head += f"{r.type} missed: no hypothesis entity shares an aligned word (3 deletions)"
    else:
        assert h is not None
        head += f"{h.type} spurious: no reference entity shares an aligned word (3 insertions)"
    return "\n".join([head, "  ref  " + " ".join(ref_cells), "  hyp  " + " ".join(hyp_cells),
                      "       " + " ".join(marks)])


def _words(words: list[str], rng, ent: EntitySpan | None) -> str:
    a, b = int(rng[0]), int(rng[1])
    if a == b:
        return "*"
    parts = []
    for i in range(a, b):
        w = words[i]
        if ent is not None and i == ent.first_word:
            w = "[" + w
        if ent is not None and i == ent.last_word:
            w = w + "]"
        parts.append(w)
    return " ".join(parts)


def _verdict(report: ScoreReport, pair: Pair) -> str:
    j = pair.judgement
    assert j is not None and pair.ref is not None and pair.hyp is not None
    tol = report.settings["tolerance"]
    bits = ["type " + ("ok" if j.type_ok else f"WRONG ({report.hyp.entities[pair.hyp].type} for "
                                                 f"{report.ref.entities[pair.ref].type})")]
    ext = []
    for side, shift, ok in (("start", j.start_shift, j.start_ok), ("end", j.end_shift, j.end_ok)):
        if shift == 0:
            continue
        if ok:
            ext.append(f"{side} off by {shift}, across word errors, within tolerance {tol}")
        else:
            ext.append(f"{side} off by {shift}" + (" over correctly recognised words" if shift <= tol else
                                                    f", beyond tolerance {tol}"))
    extent = "extent " + ("ok" if j.extent_ok else "WRONG") + (f" ({'; '.join(ext)})" if ext else "")
    content = "content " + ("ok" if j.content_ok else "WRONG (word errors where the two overlap)")
    if report.settings["muc"]:
        bits.append("text " + ("ok" if j.text_ok else "WRONG") + f" [{extent}; {content}]")
    else:
        bits += [extent, content]
    return "; ".join(bits)


__all__ = ["KIND_NAMES", "format_pairs", "format_table"]
