"""Standalone build: build time, folder size, and start times frozen versus ``python main.py``.

1. Builds the one-folder app with ``packaging/build.sh`` (PyInstaller's cache
   cleared) into a scratch folder and times it; measures the folder (MiB, files,
   largest parts).
2. Times three starts of the frozen ``earshot`` and of ``.venv/bin/python main.py``
   in the same run, alternating them so load on the machine hits both alike:
   ``--help`` (command line ready), ``--gui-smoke-test`` (main window shown,
   offscreen, then closed) and ``--self-test`` (the whole self-test). The first
   start of each uses fresh user data and cache folders (no compiled numba
   kernels: "cold"; from source, NUMBA_CACHE_DIR points there too); the rest
   reuse them ("warm", median). The operating system's file cache is warm in
   both, and so are the source tree's ``.pyc`` files.

Writes ``bench/results/build.json`` and ``bench/results/build.md``.

Run: ``.venv/bin/python -m bench.build_bench [--runs 5] [--app dist/earshot] [--skip-self-test]``
(``--app`` times an existing build instead of building).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import REPO, RESULTS, write_result

PYTHON = REPO / ".venv" / "bin" / "python"

#: (name, arguments, what the time means, warm runs as a share of --runs)
PROBES = (
    ("cli", ["--help"], "command line ready (--help)", 1.0),
    ("gui", ["--gui-smoke-test"], "main window shown, offscreen (--gui-smoke-test)", 1.0),
    ("selftest", ["--self-test"], "whole self-test (--self-test)", 0.4),
)


def build(dist: Path, work: Path) -> dict[str, object]:
    """Run packaging/build.sh into ``dist``; returns its wall time and PyInstaller's version."""
    env = dict(os.environ, EARSHOT_DIST_DIR=str(dist), EARSHOT_BUILD_DIR=str(work))
    started = time.perf_counter()
    result = subprocess.run(["bash", "packaging/build.sh"], cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stdout}\n{result.stderr}")
    version = subprocess.run([str(PYTHON), "-m", "PyInstaller", "--version"], capture_output=True, text=True).stdout
    return {"seconds": round(seconds, 1), "pyinstaller": version.strip(), "output": result.stdout.strip()}


def folder_size(app: Path) -> dict[str, object]:
    """Bytes and files under ``app`` (symlinks not followed), and the ten largest top-level parts."""
    parts: dict[str, int] = {}
    total = files = 0
    for path in app.rglob("*"):
        if path.is_file() and not path.is_symlink():
            size = path.stat().st_size
            total += size
            files += 1
            rel = path.relative_to(app).parts
            key = "/".join(rel[:2]) if rel[0] == "_internal" and len(rel) > 2 else "/".join(rel)
            parts[key] = parts.get(key, 0) + size
    largest = sorted(parts.items(), key=lambda kv: -kv[1])[:10]
    return {"mib": round(total / 2**20, 1), "files": files,
            "largest_mib": {name: round(size / 2**20, 1) for name, size in largest}}


def timed_start(argv: list[str], home: Path) -> tuple[float, int]:
    """Wall seconds and exit code of one start, with the user folders under ``home``.

    From source, numba's kernel cache goes to ``home`` too (not the source tree's
    ``__pycache__``), so both kinds of start begin with no compiled kernels.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith(("EARSHOT_", "NUMBA_"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"),
               XDG_CONFIG_HOME=str(home / "config"), QT_QPA_PLATFORM="offscreen")
    if argv[0] == str(PYTHON):
        env["NUMBA_CACHE_DIR"] = str(home / "cache" / "numba-from-source")
    started = time.perf_counter()
    code = subprocess.run(argv, cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - started, code


def start_times(app: Path, runs: int, probes: tuple[tuple[str, list[str], str, float], ...]) -> dict[str, Any]:
    """Cold and warm start times of each probe, frozen and from source, alternating."""
    commands = {"frozen": [str(app / "earshot")], "python": [str(PYTHON), str(REPO / "main.py")]}
    results: dict[str, Any] = {}
    for name, args, meaning, share in probes:
        warm_runs = max(1, round(runs * share))
        row: dict[str, Any] = {"meaning": meaning}
        with tempfile.TemporaryDirectory(prefix="earshot-bench-") as tmp:
            samples: dict[str, list[float]] = {kind: [] for kind in commands}
            codes: dict[str, set[int]] = {kind: set() for kind in commands}
            for i in range(warm_runs + 1):
                for kind, command in commands.items():
                    home = Path(tmp) / kind
                    home.mkdir(exist_ok=True)
                    seconds, code = timed_start(command + args, home)
                    samples[kind].append(seconds)
                    codes[kind].add(code)
                    print(f"{name:<9} {kind:<7} run {i}: {seconds:6.2f} s (exit {code})", flush=True)
            for kind in commands:
                row[kind] = {
                    "cold_s": round(samples[kind][0], 2), "warm_median_s": round(statistics.median(samples[kind][1:]), 2),
                    "warm_runs": warm_runs, "exit_codes": sorted(codes[kind]),
                }
        results[name] = row
    return results


def starts_table(record: dict[str, Any]) -> str:
    """Start-up times of the frozen app and of ``python main.py``, cold and warm, a markdown table."""
    lines = ["| start | frozen cold | frozen warm | `python main.py` cold | `python main.py` warm |", "|---|---|---|---|---|"]
    for row in record["starts"].values():
        f, p = row["frozen"], row["python"]
        lines.append(f"| {row['meaning']} | {f['cold_s']:.2f} s | {f['warm_median_s']:.2f} s | "
                     f"{p['cold_s']:.2f} s | {p['warm_median_s']:.2f} s |")
    return "\n".join(lines)


def markdown(record: dict[str, Any]) -> str:
    """``bench/results/build.md`` from ``build.json``."""
    size = record["size"]
    built = ""
    if "build" in record:
        built = (f"built by `bash packaging/build.sh` (PyInstaller {record['build']['pyinstaller']}, clean cache) "
                 f"in {record['build']['seconds']:.0f} s; ")
    m = record["machine"]
    return "\n".join([f"Standalone folder: {built}{size['mib']:.0f} MiB in {size['files']} files.", "",
                      starts_table(record), "",
                      f"Cold: fresh user data and cache folders (numba compiles its kernels); warm: median of the "
                      f"following runs. {m['machine']}, {m['cores']} cores, load average {m['load_before']} before and "
                      f"{m['load_after']} after, {record['date']}."])


def write_results(record: dict[str, Any]) -> None:
    write_result("build", record, markdown(record), indent=2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="warm starts per probe (the self-test gets fewer)")
    ap.add_argument("--app", type=Path, help="time this built folder instead of building one")
    ap.add_argument("--skip-self-test", action="store_true", help="time --help and --gui-smoke-test only")
    args = ap.parse_args(argv)
    record: dict[str, Any] = {
        "date": datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": {"machine": platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
                    "load_before": _load()},
    }
    scratch = Path(tempfile.mkdtemp(prefix="earshot-build-bench-"))
    try:
        app = args.app.resolve() if args.app else scratch / "dist" / "earshot"
        if args.app is None:
            record["build"] = build(scratch / "dist", scratch / "work")
            print(f"build: {record['build']['seconds']} s", flush=True)
        record["size"] = folder_size(app)
        print(f"size: {record['size']['mib']} MiB", flush=True)
        probes = tuple(p for p in PROBES if not (args.skip_self_test and p[0] == "selftest"))
        record["starts"] = start_times(app, args.runs, probes)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    record["machine"]["load_after"] = _load()
    write_results(record)
    print((RESULTS / "build.md").read_text(encoding="utf-8"))
    return 0


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
