"""Bad input and faults: each gets one line naming the thing and the reason, and the index is left as it was."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from engine.cli.main import main
from tests.fixtures.permissions import undone_after

SRT = "1\n00:00:01,000 --> 00:00:04,000\nThe minister announced a new railway line.\n\n" \
      "2\n00:00:05,000 --> 00:00:08,000\nFans welcomed the team at the airport.\n"


def earshot(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    """Run one command in this process: (exit code, standard output, standard error)."""
    code = main(["--db", str(db), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """An index holding one imported transcript (no audio)."""
    srt = tmp_path / "news.srt"
    srt.write_text(SRT, encoding="utf-8")
    db = tmp_path / "lib.sqlite"
    code, _, err = earshot(capsys, db, "import", "--no-audio", str(srt))
    assert code == 0, err
    return db


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("earshot: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        pytest.param("index", "is the index itself", id="the-open-index"),
        pytest.param("folder", "is a folder", id="a-folder"),
        pytest.param("fifo", "is not a regular file", id="a-named-pipe"),
        pytest.param("device", "is not a regular file", id="a-device"),
    ],
)
def test_export_never_replaces_the_index_a_folder_or_a_non_regular_file(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, reason: str
) -> None:
    paths = {"index": index, "folder": tmp_path / "out", "fifo": tmp_path / "pipe", "device": tmp_path / "null"}
    out = paths[target]
    if target == "folder":
        out.mkdir()
    if target == "fifo":
        os.mkfifo(out)
    if target == "device":  # a private node like /dev/null: a failing run must not replace the real one
        os.mknod(out, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    mode = out.stat().st_mode
    before = index.read_bytes()
    code, _, err = earshot(capsys, index, "export", "1", "-o", str(out))
    assert code == 1
    assert _one_line(err).startswith(f"earshot: error: {out}: {reason}")
    assert out.stat().st_mode == mode  # still the same kind of thing
    assert index.read_bytes() == before
    assert not list(out.parent.glob("*.part")) and not list(out.parent.glob(".*.part"))
    code, out_text, _ = earshot(capsys, index, "list")
    assert code == 0 and "news.srt" in out_text


def test_export_over_a_symlink_to_the_index_is_refused(index: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "transcript.srt"
    link.symlink_to(index)
    code, _, err = earshot(capsys, index, "export", "1", "-o", str(link))
    assert code == 1 and "is the index itself" in _one_line(err)
    assert sqlite3.connect(index).execute("SELECT count(*) FROM recordings").fetchone()[0] == 1


def test_export_with_a_long_name_writes_it_or_says_why(index: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    fits = tmp_path / ("n" * 251 + ".srt")  # 255 bytes: allowed, though name + ".part" is not
    code, _, err = earshot(capsys, index, "export", "1", "-o", str(fits))
    assert code == 0, err
    assert "railway" in fits.read_text(encoding="utf-8")
    too_long = tmp_path / ("n" * 300 + ".srt")
    code, _, err = earshot(capsys, index, "export", "1", "-o", str(too_long))
    assert code == 1
    assert _one_line(err) == f"earshot: error: {too_long}: cannot write: File name too long"


def test_export_onto_read_only_media_says_so(index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    media = tmp_path / "media"
    media.mkdir()
    with undone_after(["mount", "--bind", "-o", "ro", str(media), str(media)], ["umount", "-l", str(media)],
                      refused="cannot make a read-only bind mount here"):
        code, _, err = earshot(capsys, index, "export", "1", "-o", str(media / "out.srt"))
    assert code == 1
    assert _one_line(err) == f"earshot: error: {media / 'out.srt'}: cannot write: Read-only file system"


def _browser_history(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT, title TEXT)")
        conn.execute("INSERT INTO moz_places (url, title) VALUES ('https://example.org/', 'Example')")
    conn.close()
    return path


@pytest.mark.parametrize("command", [["list"], ["search", "railway"], ["import", "--no-audio", "NEWS"], ["remove", "1"]],
                         ids=["list", "search", "import", "remove"])
def test_a_database_of_another_program_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    db = _browser_history(tmp_path / "places.sqlite")
    (tmp_path / "news.srt").write_text(SRT, encoding="utf-8")
    before = db.read_bytes()
    code, _, err = earshot(capsys, db, *[str(tmp_path / "news.srt") if a == "NEWS" else a for a in command])
    assert code == 1
    assert _one_line(err).startswith(f"earshot: error: {db}: not an Earshot index")
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["news.srt", "places.sqlite"]  # no WAL or journal left


def test_a_new_index_carries_earshots_application_id_and_schema_version(index: Path) -> None:
    from engine.storage.store import APPLICATION_ID, SCHEMA_VERSION

    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def _from_a_newer_earshot(index: Path) -> None:
    conn = sqlite3.connect(index)
    conn.execute("INSERT INTO migrations (name, applied_at) VALUES ('9001_from_the_future', 0)")
    conn.execute("PRAGMA user_version = 9001")
    conn.commit()
    conn.close()


def test_an_index_from_a_newer_earshot_is_read_but_never_changed(index: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _from_a_newer_earshot(index)
    (tmp_path / "more.srt").write_text(SRT, encoding="utf-8")
    for command in (["remove", "1"], ["import", "--no-audio", str(tmp_path / "more.srt")]):
        code, _, err = earshot(capsys, index, *command)
        assert code == 1, command
        assert _one_line(err).startswith(f"earshot: error: {index}: written by a newer version of Earshot"), err
    conn = sqlite3.connect(index)
    assert conn.execute("SELECT count(*) FROM recordings").fetchone()[0] == 1
    conn.close()
    code, out, _ = earshot(capsys, index, "list")
    assert code == 0 and "news.srt" in out


def test_an_index_made_before_the_stamp_still_opens_and_gets_it(index: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from engine.storage.store import APPLICATION_ID

    conn = sqlite3.connect(index)
    conn.execute("PRAGMA application_id = 0")
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    code, out, err = earshot(capsys, index, "list")
    assert code == 0 and "news.srt" in out, err
    code, _, err = earshot(capsys, index, "remove", "1")
    assert code == 0, err
    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


def test_control_characters_in_file_names_are_escaped_in_output(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    srt = tmp_path / "news\x1b[2J\x1b]0;pwned\x07\n.srt"  # clear the screen, retitle the window, a newline
    srt.write_text(SRT, encoding="utf-8")
    db = tmp_path / "lib.sqlite"
    code, out, err = earshot(capsys, db, "import", "--no-audio", str(srt))
    assert code == 0, err
    escaped = "news\\x1b[2J\\x1b]0;pwned\\x07\\x0a.srt"
    assert escaped in out and out.count("\n") == 1
    for command in (["list"], ["show", "1"], ["remove", "1"]):
        code, out, err = earshot(capsys, db, *command)
        assert code == 0, err
        assert escaped in out and "\x1b" not in out and "\x07" not in out, command
    bad = tmp_path / "bad\x1b[31m.doc"
    bad.write_text("x")
    code, _, err = earshot(capsys, db, "import", str(bad))
    assert code == 1
    assert _one_line(err) == (f"earshot: error: {tmp_path}/bad\\x1b[31m.doc: unknown transcript format '.doc';"
                              " expected one of .srt, .vtt, .txt, .txt3")


def test_ingest_lines_escape_control_characters_in_file_names(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli.ingest_cmd import _Reporter
    from engine.ingest.job import FileOutcome
    from engine.jobs import JobState

    reporter = _Reporter(quiet=False)
    path = "/r/talk\x1b[2J.wav"
    reporter.state(FileOutcome(path, JobState.RUNNING, duration=3.0))
    reporter.state(FileOutcome(path, JobState.FAILED, f"{path}: corrupt audio data"))
    reporter.state(FileOutcome(path, JobState.CANCELLED, "cancelled"))
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err
    assert err.splitlines() == ["  started  /r/talk\\x1b[2J.wav (3.0 s)", "FAILED   /r/talk\\x1b[2J.wav: corrupt audio data",
                                "cancelled /r/talk\\x1b[2J.wav: cancelled"]


def test_export_to_dash_writes_standard_output_not_a_file_named_dash(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, plain, _ = earshot(capsys, index, "export", "1", "--format", "srt")
    assert code == 0 and plain.startswith("1\n")
    code, dashed, _ = earshot(capsys, index, "export", "1", "--format", "srt", "-o", "-")
    assert code == 0 and dashed == plain
    assert not (tmp_path / "-").exists()


def test_a_file_name_past_the_systems_limit_is_one_line_not_a_traceback(tmp_path: Path, capsys) -> None:
    name = str(tmp_path / ("a" * 5000))
    assert main(["--db", str(tmp_path / "i.sqlite"), "segment", "run", name]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"earshot: error: {str(tmp_path)[:20]}") and err.count("\n") == 1, err
    assert "File name too long" in err and "…" in err


@pytest.mark.parametrize("name", ["", "/"], ids=["empty", "root"])
def test_import_of_a_name_with_no_file_name_is_one_line(name: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "i.sqlite"
    assert main(["--db", str(db), "import", name]) == 1
    err = capsys.readouterr().err
    assert err == f"earshot: error: {name or '.'}: unknown transcript format '(no suffix)'; expected one of .srt, .vtt," \
                  " .txt, .txt3\n"


def test_ingest_of_an_empty_name_is_refused_not_taken_for_the_current_folder(tmp_path: Path, capsys,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    db = tmp_path / "i.sqlite"
    assert main(["--db", str(db), "ingest", str(tmp_path), ""]) == 1
    assert capsys.readouterr().err == ("earshot: error: PATH: an empty name (an unset shell variable?); give a file or"
                                       " a folder, '.' for this one\n")
    assert not db.exists()


def test_eval_run_of_topics_that_are_not_utf8_is_one_line(tmp_path: Path, capsys) -> None:
    topics = tmp_path / "topics.txt"
    topics.write_bytes(b"1\tcaf\xe9\n")
    assert main(["--db", str(tmp_path / "i.sqlite"), "eval", "run", str(topics), "-o", str(tmp_path / "run.txt")]) == 1
    assert capsys.readouterr().err == f"earshot: error: {topics}: not UTF-8 text (byte 0xe9 at offset 5)\n"
    assert not (tmp_path / "run.txt").exists()


def test_entities_tag_with_an_empty_model_file_is_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty.npz").write_bytes(b"")
    text = tmp_path / "t.txt"
    text.write_text("John Smith went to Paris\n")
    assert main(["entities", "tag", str(text), "--model", str(tmp_path / "empty.npz")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"earshot: error: {tmp_path / 'empty.npz'}: not an entity tagger model (") and err.count("\n") == 1


def test_rasch_simulate_with_a_negative_seed_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["rasch", "simulate", "--seed", "-1", "--out", str(tmp_path / "m.csv")]) == 2
    assert capsys.readouterr().err == "earshot: error: rasch simulate: argument --seed: must be 0 or more, got -1\n"
    assert not (tmp_path / "m.csv").exists()


def test_a_process_whose_shutdown_hangs_still_ends_with_its_code(tmp_path: Path) -> None:
    # A library's exit handler that never returns (a cluster's, after Ctrl+C) must not keep a finished
    # command alive: past the grace period the process ends, with its code and its output flushed.
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    script = (
        "import atexit, sys, threading, time\n"
        f"sys.path.insert(0, {str(repo)!r})\n"
        "import main\n"
        "main.EXIT_GRACE_SECONDS = 1.0\n"
        "atexit.register(lambda: threading.Event().wait())\n"
        "print('words written', end='')\n"
        "main.exit_bounded(7)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (7, "words written"), proc.stderr
