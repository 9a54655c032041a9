"""What the benchmarks share: where the repository, the shared data, the results and the
bench cache live, the key of cached ingest output, the machine line every result carries, and
writing a result.

A benchmark run as a script (``python bench/x_bench.py``) puts the repository on
``sys.path`` before importing this module; ``python -m bench.x_bench`` needs nothing.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: ``../shared/data`` beside the checkout: the Lee corpus, NewsScape days, Rasch data sets.
SHARED = REPO.parent / "shared" / "data"
RESULTS = REPO / "bench" / "results"
#: Built inputs kept between runs (synthetic libraries, broadcasts).
CACHE = Path(os.environ.get("EARSHOT_BENCH_CACHE", Path(tempfile.gettempdir()) / "earshot-bench"))


def ingest_fingerprint(root: Path = REPO) -> str:
    """SHA-256 (hex) of what decides the ingest path's output: the engine's code and the shipped detector,
    segmentation and gazetteer files under ``root``, so that a cached transcript is never reused after either
    changes."""
    from models.records import sha256_file

    files = sorted((root / "engine").rglob("*.py"))
    for folder in ("detectors", "segmentation", "gazetteers"):
        files += sorted(f for f in (root / "models" / folder).rglob("*") if f.is_file())
    digest = hashlib.sha256()
    for f in files:
        digest.update(f"{f.relative_to(root).as_posix()} {sha256_file(f)}\n".encode())
    return digest.hexdigest()


@functools.cache
def ingest_cache_tag() -> str:
    """The first 12 hex digits of this checkout's :func:`ingest_fingerprint`, computed once a run: the part of a
    cached transcript's file name that ties it to the code and models that made it."""
    return ingest_fingerprint()[:12]


def machine() -> str:
    """``"x86_64, 2 cores, Python 3.11.2"``: the line each result records beside its figures."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def checkout_commit(root: Path = REPO) -> str:
    """The checkout's HEAD as 10 hex digits, with ``+changes`` when tracked files differ from it; ``unknown``
    outside a git checkout."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


def recorded() -> dict[str, str]:
    """When, at which commit and on what machine a result is measured: the ``recorded`` entry of every result
    file, which ``python -m bench.report`` prints above each docs table."""
    return {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": checkout_commit(), "machine": machine()}


def write_result(name: str, result: dict[str, Any], table: str, *, indent: int = 1, default: Any = None,
                 echo: bool = False) -> None:
    """Write ``bench/results/<name>.json`` (``result``, with a ``recorded`` entry: date, commit, machine) and
    ``<name>.md`` (``table``, markdown); with ``echo``, print the table too."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    result = {**result, "recorded": result.get("recorded") or recorded()}
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=indent, default=default) + "\n", encoding="utf-8")
    markdown = table if table.endswith("\n") else table + "\n"
    (RESULTS / f"{name}.md").write_text(markdown, encoding="utf-8")
    if echo:
        print(markdown)


def built_once(path: Path, what: str, build: Callable[[Path], object]) -> Path:
    """``path``, made by ``build(path)`` unless an earlier run left it in the cache; ``what`` names it in the log."""
    if not path.exists():
        print(f"building {what}: {path}", flush=True)
        build(path)
    return path


def use_bench_folders(name: str) -> None:
    """Point the user data and cache folders into the bench cache (unless already set), so a
    benchmark never writes into the user's own library."""
    os.environ.setdefault("EARSHOT_DATA_DIR", str(CACHE / f"{name}-data"))
    os.environ.setdefault("EARSHOT_CACHE_DIR", str(CACHE / f"{name}-cache"))


def bench_parser(doc: str, quick_help: str) -> argparse.ArgumentParser:
    """The command line of a benchmark: its docstring's first paragraph as the description and a
    ``--quick`` flag (``quick_help`` says what it leaves out); the caller adds its own options."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    return parser


def cached_broadcast(prefix: str, minutes: float, seed: int, cache: Path = CACHE) -> tuple[Path, dict[str, Any]]:
    """A generated English broadcast with applause and laughter (tools/broadcast.py) and its truth,
    built once into ``cache`` as ``{prefix}-{minutes}min-s{seed}.wav``."""
    from tools.broadcast import build_broadcast

    out = cache / f"{prefix}-{minutes:g}min-s{seed}.wav"
    if not out.with_suffix(".json").exists():
        cache.mkdir(parents=True, exist_ok=True)
        build_broadcast(out, language="en", target_seconds=minutes * 60, seed=seed, applause=True, laughter=True)
    return out, json.loads(out.with_suffix(".json").read_text())
