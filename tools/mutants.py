"""Mutation smoke check: break one line of a copy of the tree at a time; its area's tests must fail.

    .venv/bin/python tools/mutants.py            # every mutant (about 10 minutes on two cores)
    .venv/bin/python tools/mutants.py --list     # the mutants, one a line
    .venv/bin/python tools/mutants.py NAME ...   # only these

Each mutant is one line of the product replaced by a plausible mistake, and the tests of the
area that should notice it. The tree (the files git tracks or would track, as they are in the
working tree) is copied once to a temporary folder beside which ``shared`` points at the real
shared data; there each mutant is applied, its tests run (``pytest -x``), and the line put back.
The working tree is never written. A mutant whose tests still pass *survives*: a hole in the
tests. Each test selection first runs on the unbroken copy; a selection that fails there makes
its mutants ``baseline failed`` rather than killed. Results go to bench/results/mutants.json
and mutants.md; the exit status is 1 when any mutant survives or cannot be applied.
A new core behaviour adds its mutant here.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import machine, write_result  # noqa: E402  (the repository is on sys.path first)


@dataclass(frozen=True)
class Mutant:
    """``old`` (one line, compared without its indentation) of ``path`` becomes ``new``; ``tests`` should fail.

    ``nth``: which of several identical lines (1 = the first); without it the line must be unique.
    """

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    nth: int | None = None


class MutantError(Exception):
    """A mutant that cannot be applied: its line is missing, or not unique."""


SEARCH = ("tests/engine/search/test_search.py",)
DETECT_END_TO_END = ("tests/engine/detect/test_analyzer.py", "tests/engine/detect/test_detectors.py")

MUTANTS: tuple[Mutant, ...] = (
    Mutant("search: mm scored with rmp's two-way mixture", "engine/search/ranking.py",
           "return _passages(cands, _neg_kl(cands, ids, weights, p_coll, *_passage_ranges(cands), params.mm_weights,",
           "return _passages(cands, _neg_kl(cands, ids, weights, p_coll, *_passage_ranges(cands),"
           " (params.ql_collection_weight, 0.0, 1 - params.ql_collection_weight),", SEARCH),
    Mutant("search: the default model is rmp", "engine/search/config.py",
           'DEFAULT_MODEL = "mm"', 'DEFAULT_MODEL = "rmp"', SEARCH),
    Mutant("search: hot-spot blend does not reorder", "engine/search/query.py",
           'order = np.concatenate([head[np.argsort(-final[head], kind="stable")], order[len(head):]])',
           "order = np.concatenate([head, order[len(head):]])", SEARCH),
    Mutant("importer: a cue's time shared over n+1 slots", "engine/importer/save.py",
           "step = (cue.end - cue.start) / len(parts)", "step = (cue.end - cue.start) / (len(parts) + 1)",
           ("tests/engine/importer",)),
    Mutant("importer: the segmenter never sees the recording's X-duration", "engine/importer/save.py",
           "stories = stories or caption_stories(words, x_duration, transcribed)",
           "stories = stories or caption_stories(words)", ("tests/engine/importer/test_import_audio.py",)),
    Mutant("importer: skipped rows are not reported", "engine/importer/save.py",
           "(notice or (lambda line: None))(skipped.describe(path))", "pass",
           ("tests/engine/importer/test_import.py",)),
    Mutant("detect: no final min-length/gap-bridge step", "engine/detect/sounds.py",
           "mask = close_and_prune(", "mask = (lambda m, **_: m)(", DETECT_END_TO_END),
    Mutant("detect: sensitivity ignored", "engine/detect/sounds.py",
           "high = 1.0 - _sensitivity(sensitivity)", "high = 1.0 - _sensitivity(0.5)", DETECT_END_TO_END),
    Mutant("detect: events end half a frame late", "engine/detect/events.py",
           "end = min(end_cap, (b - 0.5) * frame_seconds)", "end = min(end_cap, (b + 0.5) * frame_seconds)",
           ("tests/engine/detect",)),
    Mutant("speakers: words in music, applause and laughter keep a speaker", "engine/ingest/speaker_pass.py",
           "cut = turns_outside(found.turns, holes, min_seconds=speaker_config.MIN_TURN_SECONDS)",
           "cut = turns_outside(found.turns, [], min_seconds=speaker_config.MIN_TURN_SECONDS)",
           ("tests/engine/ingest/test_speaker_pass.py",)),
    Mutant("export: every cue names its speaker, not only a turn's first", "engine/export.py",
           "if cue.speaker and cue.speaker != current:", "if cue.speaker:", ("tests/engine/test_export_speakers.py",)),
    Mutant("speech gate: detected speech no longer keeps a word", "engine/ingest/speech_gate.py",
           "return word.conf >= below or any(a <= t < b for a, b in heard)", "return word.conf >= below",
           ("tests/engine/ingest/test_speech_gate.py",)),
    Mutant("cluster: a file whose worker died is never sent again", "engine/ingest/cluster.py",
           "if flight.attempts > self.cluster.retries + 1 or flight.waiting_resends > config.CLUSTER_WAITING_RESENDS:",
           "if True:", ("tests/engine/ingest/test_cluster.py",)),
    Mutant("cluster: a file only waiting on a dead worker spends a try", "engine/ingest/cluster.py",
           "if flight.started:", "if True:", ("tests/engine/ingest/test_cluster.py",), nth=1),
    Mutant("segment: decode ignores the penalty asked for", "engine/segment/model.py",
           "penalty = self.hyper.log_penalty if log_penalty is None else log_penalty",
           "penalty = self.hyper.log_penalty", ("tests/engine/segment/test_model.py",), nth=1),
    Mutant("entities: gazetteers read on every call", "engine/entities/tagger/gazetteer.py",
           "@functools.cache", "", ("tests/engine/entities/test_tagger.py",)),
    Mutant("audio: an unreadable file is not named as such", "engine/audio/decode.py",
           'raise AudioError(path, "permission denied")', 'raise AudioError(path, "cannot open")',
           ("tests/engine/audio/test_decode.py",)),
    Mutant("storage: a read-only index is not told apart", "engine/storage/store.py",
           'if code == sqlite3.SQLITE_READONLY or "readonly" in text or "read-only" in text:', "if False:",
           ("tests/engine/storage/test_atomic.py",)),
    Mutant("storage: a failed savepoint is not rolled back", "engine/storage/store.py",
           'self.conn.execute(f"ROLLBACK TO {name}")', "pass", ("tests/engine/storage",)),
    Mutant("rasch: extreme scores adjusted by 0.5", "engine/evaluate/rasch/config.py",
           "EXTREME_SCORE_ADJUSTMENT = 0.3", "EXTREME_SCORE_ADJUSTMENT = 0.5", ("tests/engine/evaluate/rasch",)),
    Mutant("models: a download's size is not checked", "models/manager.py",
           "expected_bytes = entry.size_bytes if entry else None", "expected_bytes = None",
           ("tests/models/test_download.py",)),
    Mutant("app: PYSIDE-3474 workaround never on", "app/pyside_refcounts.py",
           "return AFFECTED_PYSIDE6 is not None and sys.version_info < (3, 12) and leaks_references()", "return False",
           ("tests/app/test_pyside_refcounts.py",)),
    Mutant("export: SRT cues end where they start", "engine/export.py",
           r'''return "\n".join(f"{i}\n{timestamp(c.start, ',')} --> {timestamp(c.end, ',')}\n" + "\n".join(lines) + "\n"''',
           r'''return "\n".join(f"{i}\n{timestamp(c.start, ',')} --> {timestamp(c.start, ',')}\n" + "\n".join(lines) + "\n"''',
           ("tests/app/test_transcript.py::test_export_from_the_menu",)),
    Mutant("export: JSON words end where they start", "engine/export.py",
           """{"start": round(w["start"], 3), "end": round(w["end"], 3), "conf": round(w["conf"], 4), "text": w["text"],""",
           """{"start": round(w["start"], 3), "end": round(w["start"], 3), "conf": round(w["conf"], 4), "text": w["text"],""",
           ("tests/app/test_transcript.py::test_export_from_the_menu",)),
    Mutant("app: Try the sample queues nothing", "app/main_window.py",
           "self.enqueue([sample])", "self.enqueue([])",
           ("tests/app/test_first_run.py::test_an_empty_library_shows_where_to_start",)),
)


def apply_mutant(tree: Path, mutant: Mutant) -> str:
    """Replace the mutant's line in ``tree`` (keeping its indentation); return the file's text before."""
    path = tree / mutant.path
    if not path.is_file():
        raise MutantError(f"{mutant.path}: no such file")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if line.strip() == mutant.old.strip()]
    if not found:
        raise MutantError(f"{mutant.path}: the line to break is not there: {mutant.old.strip()!r}")
    if mutant.nth is None and len(found) > 1:
        raise MutantError(f"{mutant.path}: the line to break stands {len(found)} times; say which with nth")
    if mutant.nth is not None and not 1 <= mutant.nth <= len(found):
        raise MutantError(f"{mutant.path}: nth={mutant.nth} but the line stands {len(found)} times")
    i = found[(mutant.nth or 1) - 1]
    line = lines[i]
    indent = line[: len(line) - len(line.lstrip())]
    ending = line[len(line.rstrip("\r\n")):]
    lines[i] = indent + mutant.new.strip() + ending
    path.write_text("".join(lines), encoding="utf-8")
    return text


def tracked_files(repo: Path = REPO) -> list[str]:
    """The files git tracks, or would (untracked and not ignored), that exist in the working tree."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                         capture_output=True, check=True).stdout.decode()
    return sorted({f for f in out.split("\0") if f and (repo / f).is_file()})


def copy_tree(dest: Path, repo: Path = REPO) -> Path:
    """Copy the tree into ``dest/tree``, with ``.venv`` and ``dest/shared`` linked to the real ones; return it."""
    tree = dest / "tree"
    for name in tracked_files(repo):
        target = tree / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    if (repo / ".venv").exists():
        (tree / ".venv").symlink_to((repo / ".venv").resolve())
    if (repo.parent / "shared").exists():
        (dest / "shared").symlink_to((repo.parent / "shared").resolve())
    return tree


def run_tests(tree: Path, tests: tuple[str, ...]) -> tuple[int, list[str]]:
    """pytest -x on ``tests`` inside ``tree``: (exit status, the ids of failed tests)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                         cwd=tree, env=env, capture_output=True, text=True, check=False)
    failed = [line.split()[1] for line in run.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    return run.returncode, failed


def check(mutants: tuple[Mutant, ...], tree: Path) -> list[dict[str, object]]:
    baseline: dict[tuple[str, ...], int] = {}
    rows: list[dict[str, object]] = []
    for mutant in mutants:
        row: dict[str, object] = {**asdict(mutant), "tests": list(mutant.tests)}
        started = time.monotonic()
        if mutant.tests not in baseline:
            baseline[mutant.tests] = run_tests(tree, mutant.tests)[0]
        if baseline[mutant.tests] != 0:
            row.update(status="baseline failed", failed=[])
        else:
            try:
                before = apply_mutant(tree, mutant)
            except MutantError as exc:
                row.update(status="not applied", failed=[], reason=str(exc))
            else:
                try:
                    code, failed = run_tests(tree, mutant.tests)
                finally:
                    (tree / mutant.path).write_text(before, encoding="utf-8")
                row.update(status="killed" if code == 1 else "survived" if code == 0 else f"error (pytest {code})",
                           failed=failed)
        row["seconds"] = round(time.monotonic() - started, 1)
        print(f"{row['status']:>16}  {mutant.name}  {' '.join(row['failed'][:1])}", flush=True)  # type: ignore[index]
        rows.append(row)
    return rows


def table(rows: list[dict[str, object]], header: str) -> str:
    lines = [header, "", "| mutant | file | status | first failing test |", "| --- | --- | --- | --- |"]
    for r in rows:
        first = (r["failed"] or [""])[0]  # type: ignore[index]
        lines.append(f"| {r['name']} | `{r['path']}` | {r['status']} | {first} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="run only the mutants whose names contain one of these")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args(argv)
    chosen = tuple(m for m in MUTANTS if not args.names or any(n in m.name for n in args.names))
    if args.list:
        for m in chosen:
            print(f"{m.name}  ({m.path}; {' '.join(m.tests)})")
        return 0
    with tempfile.TemporaryDirectory(prefix="earshot-mutants-") as scratch:
        rows = check(chosen, copy_tree(Path(scratch)))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                            check=False).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True,
                                check=False).stdout.strip())
    date = datetime.date.today().isoformat()
    killed = sum(r["status"] == "killed" for r in rows)
    header = (f"# Mutation smoke check\n\n{killed} of {len(rows)} mutants killed ({date}, commit {commit}"
              f"{' with changes' if dirty else ''}, {machine()}); `tools/mutants.py` writes this file.")
    if not args.names:
        write_result("mutants", {"date": date, "commit": commit, "dirty": dirty, "machine": machine(),
                                 "killed": killed, "mutants": rows}, table(rows, header))
    print(f"{killed} of {len(rows)} mutants killed")
    return 0 if killed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
