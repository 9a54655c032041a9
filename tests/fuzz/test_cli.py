"""Every CLI command, given thousands of random argument lists built from its own options: real and
bogus values, and paths to hostile files (empty, binary, huge lines, Latin-1 names, folders,
/dev/null, links to /dev/zero, missing, read-only).

The checks, for each case: no traceback (anything ``main`` lets out, or "Traceback" in its output);
a non-zero exit says why on stderr (or prints the usage); on a non-zero exit the index (the one
``--db`` names and the default one) is byte for byte what it was; and nothing is written anywhere
but the paths the arguments name as output. The CLI runs in-process through ``main(argv)`` for
speed; a sample run as real processes gives the same exit codes and messages.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import io
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from engine.cli import common
from tests.fuzz.hostile import hostile_files
from tests.fuzz.lane import CLI_FUZZ, SEED

pytestmark = pytest.mark.fuzz
REPO = Path(__file__).resolve().parents[2]
cli_main = importlib.import_module("engine.cli.main")  # the package exports main(), hiding the module

#: Suffixes of every format a command reads.
SUFFIXES = (".srt", ".vtt", ".txt", ".txt3", ".csv", ".tsv", ".json", ".stm", ".ctm", ".trn", ".sgml", ".npz", ".wav")
#: Values of a text argument that is not a path: empty, dashes, terminal escapes, format strings,
#: a huge one, and cluster addresses that are not (unicode digits, a digit run past int()'s limit).
TEXTS = ["", "-", "--", "1", "2", "0", "-1", "x", "café", "\x1b[31mred", "%s%n", "a" * 5000, "local:0", "local:²",
         "local:" + "9" * 5000, "tcp://", "local:x", "whisper-no-such", "PERSON", "2024-13-45", "applause", "*", "\t"]
#: Values of a whole-number option: real small ones and bogus ones (no big real ones: a billion systems
#: to simulate is a long run, not a fault).
INTS = ["0", "1", "2", "3", "-1", "x", "", "1.5", "²", "٣", "40"]
#: Values of a real-number option.
FLOATS = ["0", "0.5", "1", "2", "-1", "nan", "inf", "-inf", "1e309", "x", "", "1e-300", "٣"]
#: Options that name what a command writes, as (command words, option dest).
OUTPUTS = {"out", "output"}
OUTPUT_OPTIONS = {(("rasch", "simulate"), "truth")}
#: Real options that reach the network or start a cluster: left out (a download from the
#: catalogue, a real scheduler address) or given only values that cannot reach out.
NO_NETWORK = {(("models", "download"), "url")}


@dataclass(frozen=True)
class Command:
    """One runnable command of the parser: its words and its actions."""

    words: tuple[str, ...]
    actions: tuple[argparse.Action, ...]


def _commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> Iterator[Command]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if words:
        yield Command(words, tuple(a for a in parser._actions
                                   if not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)))
    for sub in subs:
        for name, child in sub.choices.items():
            yield from _commands(child, (*words, name))


PARSER = cli_main.build_parser()
COMMANDS = [c for c in _commands(PARSER)]
TOP = sorted({c.words[0] for c in COMMANDS})


@dataclass
class Sandbox:
    folder: Path
    files: list[str]
    db: Path
    default_db: Path
    data: Path
    out: Path
    index_bytes: bytes
    index_stamp: tuple[int, int] = (0, 0)
    out_stamp: dict[str, tuple[int, int]] | None = None


def _run(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process, with standard streams captured (an empty standard input)."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO("")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main.main(argv)
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    folder = tmp_path_factory.mktemp("fuzz-cli")
    files = hostile_files(folder / "files", SUFFIXES)
    srt = folder / "files" / "news.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:03,000\nThe minister opened the railway\n\n"
                   "2\n00:00:04,000 --> 00:00:06,000\nto the northern coast\n", encoding="utf-8")
    files.append(str(srt))
    db = folder / "index.sqlite"
    code, _, err = _run(["--db", str(db), "import", "--no-audio", str(srt)])
    assert code == 0, err
    data = folder / "data"
    data.mkdir()
    box = Sandbox(folder / "files", files, db, data / "library.sqlite", data, folder / "out", db.read_bytes())
    box.index_stamp = _stamp(db)
    return box


def _parser_per_command(build: Callable[..., argparse.ArgumentParser]) -> Callable[..., argparse.ArgumentParser]:
    """``build`` made once per command: a command line naming a known command gets that command's
    parser, any other line the parser of every command (as ``build_parser`` itself decides)."""
    names = {name for names in cli_main.COMMAND_MODULES.values() for name in names}
    made: dict[str | None, argparse.ArgumentParser] = {}

    def cached(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
        named = cli_main.named_command(argv) if argv is not None else None
        key = named if named in names else None
        if key not in made:
            made[key] = build([key] if key else None)
        return made[key]

    return cached


@pytest.fixture
def cli_env(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The sandbox's data folder as the user's, its output folder as the current one; the parser
    built once (it is the same each time)."""
    monkeypatch.setenv("EARSHOT_DATA_DIR", str(sandbox.data))
    sandbox.out.mkdir(exist_ok=True)
    monkeypatch.chdir(sandbox.out)  # a relative name (or '') reaches nothing outside the sandbox
    monkeypatch.setattr(cli_main, "build_parser", _parser_per_command(cli_main.build_parser))
    monkeypatch.setattr(common, "default_db_path", lambda: sandbox.default_db)
    return sandbox


def _value(command: Command, action: argparse.Action, box: Sandbox) -> st.SearchStrategy[str]:
    """Values for one argument: from its choices, its type, or (most) the hostile files."""
    if (command.words, action.dest) in NO_NETWORK:
        return st.sampled_from(["", "x", *box.files[:3]])
    if action.dest in OUTPUTS or (command.words, action.dest) in OUTPUT_OPTIONS:
        names = ["new.csv", "new.txt", "new.srt", "new", "missing/x.csv", "read-only.txt", "."]
        return st.one_of(st.sampled_from(names).map(lambda n: str(box.out / n)),
                         st.sampled_from([os.devnull, "", str(box.db)]))
    if action.choices is not None:
        return st.sampled_from([*map(str, action.choices), "", "bogus"])
    kind = getattr(action.type, "__name__", "")
    if kind in ("positive_int", "non_negative_int", "int"):
        return st.sampled_from(INTS)
    if kind == "float":
        return st.sampled_from(FLOATS)
    return st.one_of(st.sampled_from(box.files), st.sampled_from(TEXTS), st.sampled_from(["1", "news.srt", str(box.db)]))


@st.composite
def argument_lists(draw: st.DrawFn, top: str, box: Sandbox) -> list[str]:
    """A random argument list for one of the commands under ``top``."""
    command = draw(st.sampled_from([c for c in COMMANDS if c.words[0] == top]))
    groups: list[list[str]] = []
    for action in command.actions:
        if not action.option_strings:  # positional: mostly given, sometimes missing or doubled
            count = {None: 1, "?": draw(st.integers(0, 1)), "+": draw(st.integers(1, 3))}.get(action.nargs, 1)
            if draw(st.integers(0, 9)) == 0:
                count = draw(st.integers(0, 2))
            groups += [[draw(_value(command, action, box))] for _ in range(count)]
        elif draw(st.booleans()):
            flag = draw(st.sampled_from(action.option_strings))
            takes = action.nargs != 0
            if takes and draw(st.integers(0, 19)) == 0:
                groups.append([flag])  # its value missing
            else:
                groups.append([flag, draw(_value(command, action, box))] if takes else [flag])
    if draw(st.integers(0, 9)) == 0:
        groups.append([draw(st.sampled_from(["--bogus", "-z", "--db", "--", "-", "--help"]))])
    if command.words == ("segment", "eval") and not any("--corpus" in g for g in groups):
        groups.append(["--corpus", str(box.folder / "junk-folder")])  # the default is the whole shared corpus
    ordered = draw(st.permutations(groups))
    head = ["--db", str(box.db)] if draw(st.integers(0, 4)) else []
    return [*head, *command.words, *(token for group in ordered for token in group)]


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folder`` (links not followed) with its size and modification time."""
    found = {}
    for root, dirs, names in os.walk(folder):
        for name in (*dirs, *names):
            path = os.path.join(root, name)
            st_ = os.lstat(path)
            found[path] = (st_.st_size, st_.st_mtime_ns)
    return found


#: Tables a command may write even when it exits non-zero: ingest logs every batch it runs, the
#: one whose files all failed too (its recordings, words and the rest stay as they were).
JOB_LOG = {"ingest": ("jobs",)}


def _digest(path: Path, *, log_tables: tuple[str, ...] = ()) -> str:
    """The index file and its WAL, hashed together; with ``log_tables``, every other table's rows."""
    h = hashlib.sha256()
    if log_tables:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            for line in conn.iterdump():
                if not any(line.startswith(f'INSERT INTO "{t}"') for t in log_tables):
                    h.update(line.encode())
        return h.hexdigest()
    for part in (path, Path(f"{path}-wal")):
        h.update(part.read_bytes() if part.exists() else b"-")
    return h.hexdigest()


def _reset(box: Sandbox) -> None:
    """Each case starts from the same index, default index, output folder and user data
    (each put back only when the case before changed it: most cases change nothing)."""
    if not box.out.is_dir() or _tree(box.out) != box.out_stamp:
        box.out.mkdir(exist_ok=True)
        for child in box.out.iterdir():  # the folder itself stays: it is the current folder
            child.chmod(0o755)
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        shutil.rmtree(box.data, ignore_errors=True)
        box.data.mkdir()
        (box.out / "read-only.txt").write_text("keep\n")
        (box.out / "read-only.txt").chmod(0o444)
        box.out_stamp = _tree(box.out)
    if sorted(p.name for p in box.data.iterdir()) not in ([box.default_db.name], [box.default_db.name, "logs"]):
        shutil.rmtree(box.data, ignore_errors=True)
        box.data.mkdir()
    for db in (box.db, box.default_db):
        extra = [p for p in (Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]
        if extra or not db.exists() or _stamp(db) != box.index_stamp:
            for part in extra:
                part.unlink()
            db.write_bytes(box.index_bytes)
            os.utime(db, ns=(box.index_stamp[1], box.index_stamp[1]))


def _stamp(path: Path) -> tuple[int, int]:
    st_ = path.stat()
    return st_.st_size, st_.st_mtime_ns


def _named_outputs(argv: list[str]) -> list[str]:
    """The paths an argument list names as output (each option's value)."""
    flags = {"-o", "--output", "--out", "--truth"}
    return [os.path.abspath(argv[k + 1]) for k, token in enumerate(argv[:-1]) if token in flags and argv[k + 1]]


def _brief(argv: list[str]) -> list[str]:
    """An argument list as a failure quotes it: long values cut short."""
    return [a if len(a) <= 80 else f"{a[:40]}…({len(a)} chars)" for a in argv]


def check_case(argv: list[str], box: Sandbox) -> tuple[int, str]:
    """Run one argument list and assert every check of the lane; return its exit code and stderr."""
    _reset(box)
    files_before = _tree(box.folder)
    out_before = _tree(box.out)
    log_tables = next((JOB_LOG[w] for w in argv if w in JOB_LOG), ())
    index_before = {db: _digest(db, log_tables=log_tables) for db in (box.db, box.default_db)}
    try:
        code, out, err = _run(argv)
    except BaseException as exc:  # what main lets out is a traceback the user sees
        raise AssertionError(f"main({_brief(argv)!r}) let out {type(exc).__name__}: {exc} (fuzz seed {SEED})") from exc
    assert "Traceback" not in err and "Traceback" not in out, (_brief(argv), err)
    if code != 0:
        assert err.strip() or out.startswith("usage:"), f"exit {code} with nothing said: {_brief(argv)!r}"
        for db, digest in index_before.items():
            assert _digest(db, log_tables=log_tables) == digest, \
                f"exit {code}, yet the index {db} changed: {_brief(argv)!r}\n{err}"
    assert _tree(box.folder) == files_before, f"the hostile files changed: {_brief(argv)!r}"
    named = _named_outputs(argv)
    after = _tree(box.out)
    for path, stamp in after.items():
        if out_before.get(path) != stamp:
            assert any(path == n or path.startswith(n.rstrip("/") + "/") for n in named), \
                f"wrote {path}, which no argument names as output: {_brief(argv)!r}"
    return code, err


@pytest.mark.parametrize("top", TOP)
def test_a_command_given_any_argument_list_exits_cleanly_and_writes_only_its_output(top: str, cli_env: Sandbox) -> None:
    @seed(SEED)
    @settings(CLI_FUZZ)
    @given(argv=argument_lists(top, cli_env))
    def check(argv: list[str]) -> None:
        check_case(argv, cli_env)

    check()


#: Argument lists (of any command) run both in-process and as a real process, to show the two agree.
SUBPROCESS_EXAMPLES = 8


def _error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(("earshot: error", "usage:"))]


def test_a_real_process_exits_and_refuses_as_main_does_in_process(cli_env: Sandbox) -> None:
    env = {**os.environ, "EARSHOT_DATA_DIR": str(cli_env.data)}

    @seed(SEED)
    @settings(CLI_FUZZ, max_examples=SUBPROCESS_EXAMPLES)
    @given(argv=st.sampled_from(TOP).flatmap(lambda top: argument_lists(top, cli_env)))
    def check(argv: list[str]) -> None:
        code, err = check_case(argv, cli_env)
        _reset(cli_env)
        run = subprocess.run([sys.executable, str(REPO / "main.py"), *argv], capture_output=True, env=env,
                             stdin=subprocess.DEVNULL, timeout=300)
        run_err = run.stderr.decode("utf-8", "replace")
        assert "Traceback" not in run_err, (_brief(argv), run_err)
        # A file name that is not UTF-8 reaches the terminal as its own bytes (surrogateescape): read both sides alike.
        same_err = err.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        assert (run.returncode, _error_lines(run_err)) == (code, _error_lines(same_err)), _brief(argv)

    check()
