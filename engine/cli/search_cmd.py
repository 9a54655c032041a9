"""``search`` (hot-spot passage search) and ``eval`` (``passages``, ``compare``, ``run``, ``der``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.cli.common import open_store, positive_int
from engine.errors import ParameterError
from engine.search import SearchFilters, config, explain, search
from engine.timefmt import clock
from engine.userfiles import read_text


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("search", help="find the passages (and the seconds to play) that answer a query")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--model", choices=config.MODELS, default=config.DEFAULT_MODEL,
                   help="retrieval model (default: mm, the passage/story/corpus mixture)")
    p.add_argument("--limit", type=positive_int, default=20)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--hotspot", type=float, default=config.HOTSPOT_WEIGHT, metavar="W",
                   help=f"weight of the audio around a passage (default {config.HOTSPOT_WEIGHT}; 0: text only)")
    p.add_argument("--event", action="append", default=[], metavar="TYPE",
                   help="only passages near an event of this type (applause, laughter, ...); repeatable")
    p.add_argument("--entity", metavar="TEXT", help="only passages naming this entity")
    p.add_argument("--entity-type", metavar="TYPE", help="only passages with an entity of this type (PERSON, ...)")
    p.add_argument("--recording", action="append", default=[], metavar="REC", help="only this recording; repeatable")
    p.add_argument("--from", dest="date_from", metavar="YYYY-MM-DD", help="broadcast on or after this day")
    p.add_argument("--to", dest="date_to", metavar="YYYY-MM-DD", help="broadcast on or before this day")
    p.set_defaults(func=run_search)

    e = subparsers.add_parser("eval", help="evaluate passage retrieval runs (TREC HARD layout) or speaker turns (DER)")
    sub = e.add_subparsers(dest="eval_command", metavar="WHAT")
    der = sub.add_parser("der", help="diarization error rate of speaker turns: RTTM hypothesis against RTTM reference")
    der.add_argument("reference", metavar="REF.rttm")
    der.add_argument("hypothesis", metavar="HYP.rttm")
    der.add_argument("--collar", type=float, default=0.25, metavar="S",
                     help="seconds not scored each side of a reference boundary (default 0.25, md-eval's -c)")
    der.set_defaults(func=run_eval_der)
    ps = sub.add_parser("passages", help="every measure of one run against judgements")
    ps.add_argument("run", metavar="RUN")
    ps.add_argument("qrels", metavar="QRELS")
    _measure_options(ps)
    ps.set_defaults(func=run_eval_passages)

    cp = sub.add_parser("compare", help="compare runs: means and two-tailed paired t-tests")
    cp.add_argument("runs", metavar="RUN", nargs="+")
    cp.add_argument("--qrels", required=True, metavar="QRELS")
    _measure_options(cp)
    cp.set_defaults(func=run_eval_compare)

    rn = sub.add_parser("run", help="search the index for every topic of a file and write a run")
    rn.add_argument("topics", metavar="TOPICS", help="one topic a line: TOPIC<TAB>QUERY")
    rn.add_argument("-o", "--output", required=True, metavar="RUN")
    rn.add_argument("--model", choices=config.MODELS, default=config.DEFAULT_MODEL)
    rn.add_argument("--depth", type=positive_int, default=100, help="passages per topic (default 100)")
    rn.add_argument("--units", choices=("chars", "seconds"), default="chars")
    rn.set_defaults(func=run_eval_run)
    e.set_defaults(func=lambda args: (e.print_help(), 2)[1])


def _measure_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--units", choices=("chars", "seconds"), default="chars",
                   help="offsets and lengths are characters of the transcript text or seconds of audio")
    p.add_argument("--n", type=float, default=None, metavar="N",
                   help=f"N of precision and bpref at min(N, R) (default {config.EVAL_N_CHARS} characters"
                        f" or {config.EVAL_N_SECONDS:g} seconds)")
    p.add_argument("--per-topic", action="store_true", help="also print every topic's values")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run_search(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        recordings = tuple(int(store.recording(r)["id"]) for r in args.recording)
        filters = SearchFilters(event_types=tuple(args.event), entity=args.entity, entity_type=args.entity_type,
                                recordings=recordings, date_from=args.date_from, date_to=args.date_to)
        hits = search(store, args.query, model=args.model, limit=args.limit, filters=filters,
                      hotspot_weight=args.hotspot)
        note = explain(store, args.query).message()
    if note:
        print(note, file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=1))
        return 0
    if not hits:
        print(f"no matches for {args.query!r}")
        return 0
    for h in hits:
        events = "  [" + ", ".join(f"{e.type} {clock(e.start, decimals=2)}" for e in h.events) + "]" if h.events else ""
        print(f"{h.name}  {clock(h.play_from, decimals=2)}-{clock(h.end, decimals=2)}  {h.score:.3f}  {h.snippet}{events}")
    return 0


def run_eval_der(args: argparse.Namespace) -> int:
    from engine.evaluate.der import diarization_error, read_rttm  # lazy: SciPy

    reference, hypothesis = read_rttm(args.reference), read_rttm(args.hypothesis)
    if not reference:
        raise ParameterError(f"{args.reference}: no SPEAKER lines; nothing to score against")
    print(f"{'file':<24} {'DER':>7} {'miss':>7} {'false alarm':>12} {'confusion':>10} {'speech (s)':>11}")
    totals = [0.0, 0.0, 0.0, 0.0]
    for file_id in sorted(reference):
        r = diarization_error(reference[file_id], hypothesis.get(file_id, []), collar=args.collar)
        ref = r.reference or 1.0
        print(f"{file_id:<24.24} {100 * r.der:6.1f}% {100 * r.miss / ref:6.1f}% {100 * r.false_alarm / ref:11.1f}% "
              f"{100 * r.confusion / ref:9.1f}% {r.reference:11.1f}")
        for k, v in enumerate((r.miss, r.false_alarm, r.confusion, r.reference)):
            totals[k] += v
    missing = sorted(set(hypothesis) - set(reference))
    if missing:
        print(f"note: hypothesis files not in the reference, not scored: {', '.join(missing)}", file=sys.stderr)
    if len(reference) > 1:
        ref = totals[3] or 1.0
        der_all = (totals[0] + totals[1] + totals[2]) / ref
        print(f"{'all':<24} {100 * der_all:6.1f}% {100 * totals[0] / ref:6.1f}% {100 * totals[1] / ref:11.1f}% "
              f"{100 * totals[2] / ref:9.1f}% {totals[3]:11.1f}")
    return 0


def run_eval_passages(args: argparse.Namespace) -> int:
    from engine.evaluate.passages import evaluate_run, read_qrels, read_run  # lazy: SciPy costs a search 0.5 s

    ev = evaluate_run(read_run(args.run), read_qrels(args.qrels), units=args.units, n=args.n, name=Path(args.run).name)
    if args.json:
        print(json.dumps({"run": ev.name, "units": ev.units, "topics": len(ev.per_topic), "means": ev.means(),
                          **({"per_topic": ev.per_topic} if args.per_topic else {})}, indent=1))
        return 0
    print(f"{ev.name}: {len(ev.per_topic)} judged topics, units {ev.units}")
    if args.per_topic:
        print("topic\t" + "\t".join(ev.measures))
        for topic in sorted(ev.per_topic):
            print(topic + "\t" + "\t".join(f"{ev.per_topic[topic][m]:.4f}" for m in ev.measures))
    for m, v in ev.means().items():
        print(f"{m:<12} {v:.4f}")
    return 0


def run_eval_compare(args: argparse.Namespace) -> int:
    from engine.evaluate.passages import compare, comparison_table, evaluate_run, read_qrels, read_run  # lazy: SciPy

    qrels = read_qrels(args.qrels)
    names = [Path(r).name for r in args.runs]
    if len(set(names)) != len(names):
        names = [str(r) for r in args.runs]
    if len(set(names)) != len(names):
        raise ParameterError("the same run is given twice")
    evs = [evaluate_run(read_run(r), qrels, units=args.units, n=args.n, name=n) for r, n in zip(args.runs, names, strict=True)]
    c = compare(evs)
    if args.json:
        out = {"units": args.units, "topics": len(c.topics), "means": c.means,
               "p_values": {m: {f"{a} vs {b}": p for (a, b), p in ps.items()} for m, ps in c.p_values.items()}}
        if args.per_topic:
            out["per_topic"] = {e.name: e.per_topic for e in evs}
        print(json.dumps(out, indent=1))
        return 0
    print(f"{len(c.topics)} topics judged in every run; units {args.units}; two-tailed paired t-tests")
    if args.per_topic:
        for m in c.measures:
            print(f"\n{m} per topic\ntopic\t" + "\t".join(names))
            for t in c.topics:
                print(t + "\t" + "\t".join(f"{e.per_topic[t][m]:.4f}" for e in evs))
    for m in c.measures:
        print(f"\n{comparison_table(c, m, alpha=config.EVAL_ALPHA)}")
    return 0


def run_eval_run(args: argparse.Namespace) -> int:
    from engine.evaluate.collection import run_rows  # lazy: SciPy
    from engine.evaluate.passages import write_run

    topics = []
    try:
        lines = read_text(args.topics).splitlines()
    except OSError as exc:
        raise ParameterError(f"{args.topics}: cannot read topics ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ParameterError(f"{args.topics}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x}"
                             f" at offset {exc.start})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        topic, sep, query = line.partition("\t")
        if not sep or not topic.strip() or not query.strip():
            raise ParameterError(f"{args.topics}:{number}: expected TOPIC<TAB>QUERY")
        topics.append((topic.strip(), query.strip()))
    rows = []
    with open_store(args) as store:
        for topic, query in topics:
            hits = search(store, query, model=args.model, limit=args.depth, hotspot_weight=0.0, snippets=False)
            rows += run_rows(topic, hits, units=args.units)
    write_run(args.output, rows, tag=args.model)
    print(f"wrote {len(rows)} passages for {len(topics)} topics to {args.output}")
    return 0
