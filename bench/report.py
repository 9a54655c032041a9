"""Every table of figures in docs/, regenerated from the result files in bench/results/.

``python -m bench.report`` rewrites each marked region of the docs pages, the lines between
``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->``, with the table ``NAME`` below: a line saying
where the figures come from (result file, date, commit, machine) and the table, rendered by the
bench's own table function from its JSON, so the docs show what the bench wrote and nothing edited
by hand. ``python -m bench.report --check`` changes nothing and exits 1 naming every region that
differs from what it would write (tests/bench/test_report.py runs it).

A result written by :func:`bench.common.write_result` carries its date, commit and machine
(``recorded``); for an older file the date and commit are those of the file's last change in git,
and the machine is what the file itself says, or "not recorded".
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import (
    asr_bench,
    build_bench,
    caption_markup_bench,
    chunk_bench,
    cli_search_bench,
    cluster_bench,
    detect_bench,
    detect_heldout_bench,
    detect_loso_bench,
    detect_speech_bench,
    downstream_bench,
    entities_bench,
    entities_broadcast_bench,
    entities_cased_bench,
    gate_bench,
    gui_search,
    import_audio_bench,
    ingest_bench,
    landing_bench,
    language_bench,
    markup_bench,
    models_bench,
    music_bed_cues_bench,
    overhead_bench,
    rasch_bench,
    search_bench,
    segment_asr_bench,
    segment_bench,
    segment_heldout_bench,
    segment_jitter_bench,
    segment_landing_bench,
    segment_recogniser_bench,
    segment_speaker_cue_bench,
    segment_whisper_stories_bench,
    speakers_bench,
    speakers_find_bench,
    speakers_ingest_bench,
)
from bench.common import REPO, RESULTS

DOCS = REPO / "docs"
REGION = re.compile(r"<!-- bench:(?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- /bench:(?P=name) -->", re.S)


def nth_table(markdown: str, n: int) -> str:
    """The ``n``-th markdown table (a run of lines starting with ``|``) in ``markdown``."""
    tables: list[list[str]] = []
    inside = False
    for line in markdown.splitlines():
        if line.startswith("|"):
            if not inside:
                tables.append([])
            tables[-1].append(line)
        inside = line.startswith("|")
    if n >= len(tables):
        raise ValueError(f"the markdown holds {len(tables)} tables, not {n + 1}")
    return "\n".join(tables[n])


@dataclass(frozen=True)
class Table:
    """A docs table: the result files it reads (stems in bench/results/), how the bench renders them, and a
    note that must stand beside the figures (what the measured model was tuned or chosen on)."""

    sources: tuple[str, ...]
    render: Callable[[list[dict[str, Any]]], str]
    note: str = ""


def _one(render: Callable[[dict[str, Any]], str]) -> Callable[[list[dict[str, Any]]], str]:
    return lambda results: render(results[0])


def _bench_table(markdown: Callable[[dict[str, Any]], str], n: int) -> Callable[[list[dict[str, Any]]], str]:
    return _one(lambda result: nth_table(markdown(result), n))


def _memory(results: list[dict[str, Any]]) -> str:
    return asr_bench.memory_table([m for r in results for m in r["memory"]])


def _ingest_runs(results: list[dict[str, Any]]) -> str:
    return ingest_bench.runs_table({"runs": [run for r in results for run in r["runs"]]})


TABLES: dict[str, Table] = {
    # docs/recognition.md
    "asr": Table(("asr",), _one(asr_bench.engines_table)),
    "gate": Table(("gate",), _one(gate_bench.table)),
    "overhead": Table(("overhead",), _one(overhead_bench.table)),
    "chunk": Table(("chunk",), _one(chunk_bench.table)),
    "asr-direct": Table(("asr",), _one(lambda r: asr_bench.direct_table(r["whisper_vs_direct"]))),
    "asr-memory": Table(("asr-memory-10min", "asr-memory-60min", "asr-memory-180min", "asr-memory-5min",
                         "asr-memory-60min-vosk", "asr-memory-180min-vosk"), _memory),
    "asr-memory-ingest": Table(("asr-memory-ingest-10-180min",),
                               lambda results: asr_bench.ingest_memory_table([m for r in results for m in r["memory"]])),
    "ingest": Table(("ingest", "ingest-pocketsphinx", "ingest-control"), _ingest_runs),
    "models": Table(("models",), _one(models_bench.markdown)),
    "language": Table(("language",), _one(language_bench.markdown)),
    "language-30s": Table(("language-30s",), _bench_table(language_bench.markdown, 0)),
    "downstream": Table(("downstream",), _one(downstream_bench.engines_table)),
    # docs/detectors.md
    "detect-loso": Table(("detect_loso",), _one(detect_loso_bench.scores_table),
                         "the shipped model (first column) was chosen on this table, so for that choice these mixtures "
                         "are no longer unseen"),
    "detect-loso-false-alarms": Table(("detect_loso",), _bench_table(detect_loso_bench.markdown, 1)),
    "detect-loso-laughter": Table(("detect_loso_laughter",), _one(detect_loso_bench.scores_table),
                                  "the false-alarm weight and keeping the laughter head out of ingest were decided "
                                  "after seeing this table"),
    "detect-speech": Table(("detect_speech",), _bench_table(detect_speech_bench.markdown, 0)),
    "detect-heldout": Table(("detect_heldout",), _bench_table(detect_heldout_bench.markdown, 0)),
    "music-bed-cues": Table(("music_bed_cues",), _bench_table(music_bed_cues_bench.markdown, 0)),
    "detect-broadcast": Table(("detect",), _bench_table(detect_bench.markdown, 0),
                              "tuned material: the broadcast's applause, laughter and crowd clips are in the classifier's "
                              "training data, so this measures fit, not generalisation"),
    # docs/segmentation.md
    "segment-lee": Table(("segment",), _bench_table(segment_bench.markdown, 0),
                         "the HMM's penalty and weights are fitted inside each training fold"),
    "segment-newsscape": Table(("segment",), _bench_table(segment_bench.markdown, 2)),
    "segment-speed": Table(("segment",), _bench_table(segment_bench.markdown, 4)),
    "segment-heldout": Table(("segment_heldout",), _bench_table(segment_heldout_bench.markdown, 0)),
    "segment-heldout-days": Table(("segment_heldout",), _bench_table(segment_heldout_bench.markdown, 5)),
    "import-audio": Table(("import_audio",), _bench_table(import_audio_bench.markdown, 0)),
    "import-audio-time": Table(("import_audio",), _bench_table(import_audio_bench.markdown, 1)),
    "segment-oracle": Table(("segment_heldout",), _bench_table(segment_heldout_bench.markdown, 6),
                            "an oracle: each setting is chosen by reading the held-out day's truth"),
    "segment-jitter": Table(("segment_jitter",), _bench_table(segment_jitter_bench.markdown, 0),
                            "the shipped models (rows before and after) were trained on these four days: they "
                            "measure stability, not accuracy; the held-out rows' models never saw the day they cut"),
    "segment-jitter-heldout": Table(("segment_jitter",), _bench_table(segment_jitter_bench.markdown, 1),
                                    "the block length (30 s) is the shipped model's, fitted on all four days; the "
                                    "floor of 0.25 s was set from the caption frame gaps, not on these scores"),
    "segment-recogniser": Table(("segment_recogniser",), _bench_table(segment_recogniser_bench.markdown, 0)),
    "segment-asr": Table(("segment_asr",), _one(lambda r: segment_asr_bench.scores_table(r["scores"]))),
    "segment-asr-whisper": Table(("segment_asr_whisper",), _one(lambda r: segment_asr_bench.scores_table(r["scores"])),
                                 "making the combiner ingest's path for Whisper was decided on an earlier run of this "
                                 "table; its weights and thresholds never saw this broadcast"),
    "segment-whisper-stories": Table(("segment_whisper_stories",), _one(segment_whisper_stories_bench.stories_table),
                                     "the choice of ingest's path was made looking at these broadcasts"),
    "caption-markup": Table(("caption_markup",), _bench_table(caption_markup_bench.markdown, 1)),
    "segment-speaker-cue": Table(("segment_speaker_cue",), _bench_table(segment_speaker_cue_bench.markdown, 0)),
    "segment-speaker-cue-days": Table(("segment_speaker_cue",), _bench_table(segment_speaker_cue_bench.markdown, 1)),
    "segment-speaker-cue-marks": Table(("segment_speaker_cue",), _bench_table(segment_speaker_cue_bench.markdown, 6)),
    # docs/search.md
    "search-quality": Table(("search",), _bench_table(search_bench.markdown, 0)),
    "search-scale": Table(("search",), _bench_table(search_bench.markdown, 20)),
    "cli-search": Table(("cli_search",), _bench_table(cli_search_bench.markdown, 0)),
    "landing": Table(("landing",), _bench_table(landing_bench.markdown, 0),
                     "the soft extents' reach (150 words) and opening sentence were chosen on this collection"),
    "landing-none": Table(("landing",), _bench_table(landing_bench.markdown, 1)),
    "segment-landing": Table(("segment_landing",), _bench_table(segment_landing_bench.markdown, 0),
                             "rows \"as shipped\" are a fit: the shipped extents were chosen on all four days; "
                             "\"held-out choice\" rows are the held-out figures"),
    "segment-landing-paired": Table(("segment_landing",), _bench_table(segment_landing_bench.markdown, 1),
                                    "each topic searched with the configuration chosen without its day"),
    "segment-landing-days": Table(("segment_landing",), _bench_table(segment_landing_bench.markdown, 2),
                                  "the shipped extents, chosen on all four days: a fit"),
    "gui-search": Table(("gui_search",), _one(gui_search.latency_table)),
    # docs/entities.md
    "entities-cased": Table(("entities_cased",), _one(entities_cased_bench.markdown),
                            "the cased model is trained on CoNLL train with every choice made on testa; test was "
                            "used for these figures only"),
    "entities-broadcast": Table(("entities_broadcast",), _one(entities_broadcast_bench.markdown),
                                "the stories are CoNLL test documents; nothing was chosen on these broadcasts"),
    "entities-conll": Table(("entities",), _bench_table(entities_bench.markdown, 0),
                            "the perceptron is trained on CoNLL train; the shipped gazetteers and rules were not tuned "
                            "on CoNLL test"),
    "entities-scoring": Table(("entities",), _bench_table(entities_bench.markdown, 1)),
    "markup": Table(("markup",), _bench_table(markup_bench.markdown, 0)),
    # docs/evaluation.md
    "rasch-speed": Table(("rasch",), _bench_table(rasch_bench.markdown, 0)),
    "rasch-winsteps": Table(("rasch",), _bench_table(rasch_bench.markdown, 1)),
    # docs/build.md
    "build": Table(("build",), _one(build_bench.starts_table)),
    # docs/cluster.md
    "cluster-runs": Table(("cluster",), _one(cluster_bench.runs_table)),
    "cluster-writer": Table(("cluster",), _one(cluster_bench.writer_table)),
    "cluster-plan": Table(("cluster",), _one(cluster_bench.plan_table),
                          "the index size and search latency are extrapolated from the 1,000-hour index of "
                          "bench/results/search.json, not measured at 10,000 hours"),
    # docs/speakers.md
    "speakers": Table(("speakers",), _one(speakers_bench.table),
                      "the clustering threshold, the CAM++ excerpt length and the BIC penalty were chosen on the tuning "
                      "voices only; "
                      "the held-out and real rows are the measure"),
    "speakers-find": Table(("speakers_find",), _one(speakers_find_bench.table),
                           "each method's threshold was chosen on the tuning voices only; the held-out rows are the "
                           "measure"),
    "speakers-memory": Table(("speakers",), _one(speakers_bench.memory_table)),
    "speakers-ingest": Table(("speakers_ingest",), _one(speakers_ingest_bench.table)),
}


def _git_last_change(path: Path) -> tuple[str, str]:
    """(date, commit) of the last commit that changed ``path``."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%cs %H", "--", str(path.relative_to(REPO))],
                             capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"bench.report: cannot read the git history of {path} ({exc})") from exc
    if len(out) != 2:
        raise SystemExit(f"bench.report: {path} has no date or commit of its own and is not committed")
    return out[0], out[1][:10]


def _machine(result: dict[str, Any]) -> str:
    """The machine a result says it was measured on, as one line; "not recorded" if it says nothing."""
    found = result.get("machine") or result.get("meta", {}).get("machine")
    if isinstance(found, dict):
        found = ", ".join(f"{k} {v}" for k, v in found.items() if k in ("machine", "cores", "cpus", "python", "platform"))
    cores = result.get("cpus") or result.get("meta", {}).get("cpus")
    if found and cores and "core" not in str(found):
        found = f"{found}, {cores} cores"
    if not found:
        return f"not recorded ({cores} cores)" if cores else "not recorded"
    return str(found)


def provenance(stem: str, result: dict[str, Any]) -> str:
    """``bench/results/STEM.json``: its date, commit and machine, from the file where it says them, else the date
    and commit of the file's last change in git."""
    stamp = result.get("recorded") or {}
    date = stamp.get("date") or result.get("date") or result.get("meta", {}).get("date")
    commit = stamp.get("commit")
    if not (date and commit):
        git_date, git_commit = _git_last_change(RESULTS / f"{stem}.json")
        date, commit = date or git_date, commit or f"{git_commit} (the file's last change in git)"
    return f"`bench/results/{stem}.json`: {date}, commit {commit}, machine: {stamp.get('machine') or _machine(result)}"


def render(name: str) -> str:
    """The body of region ``name``: where its figures come from, the note that goes with them, the table."""
    table = TABLES[name]
    results = [json.loads((RESULTS / f"{s}.json").read_text(encoding="utf-8")) for s in table.sources]
    lines = ["*" + "; ".join(provenance(s, r) for s, r in zip(table.sources, results, strict=True)) + ".*"]
    if table.note:
        lines.append(f"*Note: {table.note}.*")
    return "\n".join([*lines, "", table.render(results), ""]) + "\n"


def refresh(text: str, page: Path) -> str:
    """``text`` (a docs page) with every marked region rendered afresh; an unknown name stops the run."""

    def body(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in TABLES:
            raise SystemExit(f"bench.report: {page}: no table named {name!r} (known: {', '.join(TABLES)})")
        return f"<!-- bench:{name} -->\n{render(name)}<!-- /bench:{name} -->"

    return REGION.sub(body, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a docs table is stale")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the folder of docs pages (default: docs/)")
    args = parser.parse_args(argv)
    stale: list[str] = []
    used: set[str] = set()
    for page in sorted(args.docs.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        used.update(m["name"] for m in REGION.finditer(text))
        fresh = refresh(text, page)
        if fresh == text:
            continue
        if args.check:
            old = {m["name"]: m["body"] for m in REGION.finditer(text)}
            new = {m["name"]: m["body"] for m in REGION.finditer(fresh)}
            stale += [f"{page.name}: {n}" for n in new if old.get(n) != new[n]]
        else:
            page.write_text(fresh, encoding="utf-8")
            print(f"rewrote {page.relative_to(REPO) if page.is_relative_to(REPO) else page}")
    if stale:
        print("bench.report: these docs tables differ from bench/results/ (run `python -m bench.report`):\n  "
              + "\n  ".join(stale), file=sys.stderr)
        return 1
    unused = sorted(set(TABLES) - used)
    if args.check and unused and args.docs == DOCS:
        print(f"bench.report: tables no docs page shows: {', '.join(unused)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
