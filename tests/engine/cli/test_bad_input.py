"""Hostile input and a hostile machine: every fault gives one line, never a traceback or a lost batch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.storage.store import Store
from tests.fixtures.audio import espeak
from tests.fixtures.permissions import immutable, undone_after

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]


def earshot(*args: str | bytes, db: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv: list[str | bytes] = [sys.executable, str(REPO / "main.py")]
    if db is not None:
        argv += ["--db", str(db)]
    return subprocess.run([*argv, *args], capture_output=True, text=True, errors="replace", timeout=300)


def _no_traceback(run: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in run.stderr, run.stderr
    assert "Traceback" not in run.stdout, run.stdout


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("clips")
    espeak("The minister announced a new railway line to the northern coast.", d / "rail.wav")
    espeak("Thousands of fans welcomed the football team at the airport.", d / "football.wav", voice="en-gb")
    return d


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, clips: Path) -> Path:
    """An index holding the two clips (copy it before changing it)."""
    db = tmp_path_factory.mktemp("indexed") / "lib.sqlite"
    run = earshot("ingest", "--workers", "1", str(clips), db=db)
    assert run.returncode == 0, run.stderr
    with Store(db) as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def _copy_index(indexed: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "lib.sqlite").write_bytes(indexed.read_bytes())
    return dest / "lib.sqlite"


def test_a_file_name_that_is_not_utf8_is_indexed_with_the_rest(tmp_path: Path, clips: Path) -> None:
    d = tmp_path / "batch"
    d.mkdir()
    (d / "rail.wav").write_bytes((clips / "rail.wav").read_bytes())
    with open(os.fsencode(d) + b"/b\xe9.wav", "wb") as f:
        f.write((clips / "football.wav").read_bytes())
    run = earshot("ingest", "--workers", "1", str(d), db=tmp_path / "lib.sqlite")
    _no_traceback(run)
    assert run.returncode == 0, run.stderr
    assert "2 transcribed" in run.stdout
    assert f"done     {d}/b\\xe9.wav: " in run.stdout and f"started  {d}/b\\xe9.wav" in run.stderr  # as `list` spells it
    listing = earshot("list", db=tmp_path / "lib.sqlite")
    _no_traceback(listing)
    assert listing.returncode == 0 and "rail.wav" in listing.stdout and "b\\xe9.wav" in listing.stdout
    again = earshot("ingest", "--workers", "1", str(d), db=tmp_path / "lib.sqlite")
    assert "0 transcribed, 2 unchanged" in again.stdout, again.stdout + again.stderr


def test_a_folder_without_recordings_gets_a_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    run = earshot("ingest", str(tmp_path / "empty"), db=tmp_path / "lib.sqlite")
    _no_traceback(run)
    assert run.returncode == 1
    assert f"{tmp_path / 'empty'}: a folder with no audio or video files in it" in run.stderr


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs, unmounted afterwards."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    with undone_after(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)], ["umount", "-l", str(mnt)],
                      refused="cannot mount a small tmpfs here"):
        yield mnt


def _fill(disk: Path, leave: int = 0) -> None:
    """Fill the disk, then give back ``leave`` bytes."""
    with open(disk / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    os.truncate(disk / "filler", max(0, (disk / "filler").stat().st_size - leave))


def test_a_full_disk_fails_each_file_with_a_line_and_reading_still_works(
    small_disk: Path, indexed: Path, clips: Path
) -> None:
    db = _copy_index(indexed, small_disk)
    _fill(small_disk, leave=80_000)  # room to open the index and start, not to save a transcript
    run = earshot("ingest", "--force", "--workers", "1", str(clips), db=db)
    _no_traceback(run)
    assert run.returncode == 1
    failures = [line for line in run.stderr.splitlines() if "FAILED" in line]
    assert len(failures) == 2, run.stderr  # the batch went on past the first failure
    assert all("disk holding the index is full" in line for line in failures), failures
    for args in (["list"], ["search", "railway"], ["show", "rail.wav"]):
        read = earshot(*args, db=db)
        _no_traceback(read)
        assert read.returncode == 0, (args, read.stderr)
    assert "rail.wav" in earshot("list", db=db).stdout
    _fill(small_disk)
    run = earshot("ingest", "--force", str(clips / "rail.wav"), db=db)
    _no_traceback(run)
    assert run.returncode == 1 and "disk holding the index is full" in run.stderr, run.stderr
    for args in (["list"], ["search", "railway"]):
        read = earshot(*args, db=db)
        _no_traceback(read)
        assert read.returncode == 0, (args, read.stderr)


@pytest.fixture
def immutable_index(tmp_path: Path, indexed: Path) -> Iterator[Path]:
    with immutable(_copy_index(indexed, tmp_path / "ro")) as db:
        yield db


def test_an_immutable_index_refuses_ingest_with_a_line_and_can_be_read(immutable_index: Path, clips: Path) -> None:
    run = earshot("ingest", "--force", str(clips / "rail.wav"), db=immutable_index)
    _no_traceback(run)
    assert run.returncode == 1
    assert "read-only" in run.stderr, run.stderr
    for args in (["list"], ["search", "railway"], ["show", "rail.wav"]):
        read = earshot(*args, db=immutable_index)
        _no_traceback(read)
        assert read.returncode == 0, (args, read.stderr)


def test_an_index_on_read_only_media_can_be_read(tmp_path: Path, indexed: Path) -> None:
    src = tmp_path / "src"
    _copy_index(indexed, src)
    mnt = tmp_path / "media"
    mnt.mkdir()
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(src), str(mnt)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make a read-only bind mount here: {done.stderr.decode().strip()}")
    try:
        for args in (["list"], ["search", "railway"], ["show", "rail.wav"]):
            read = earshot(*args, db=mnt / "lib.sqlite")
            _no_traceback(read)
            assert read.returncode == 0, (args, read.stderr)
        assert "rail.wav" in earshot("list", db=mnt / "lib.sqlite").stdout
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_corrupt_index_is_refused_with_what_to_do(tmp_path: Path, indexed: Path, clips: Path) -> None:
    db = _copy_index(indexed, tmp_path)
    data = bytearray(db.read_bytes())
    assert len(data) > 16 * 4096
    data[4 * 4096 : 12 * 4096] = os.urandom(8 * 4096)
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    for args in (["show", "rail.wav"], ["list"], ["search", "railway"]):
        run = earshot(*args, db=db)
        _no_traceback(run)
        assert run.returncode == 1, (args, run.stdout)
        assert "damaged" in run.stderr and "earshot" in run.stderr, run.stderr
    run = earshot("ingest", "--force", str(clips / "rail.wav"), db=db)
    _no_traceback(run)
    assert run.returncode == 1 and "damaged" in run.stderr
    assert db.read_bytes() == before  # nothing was written into the damaged file


@pytest.mark.parametrize("args", [["--help"], ["list"], ["show", "1", "--words"], ["rasch", "--help"]],
                         ids=["help", "list", "show", "subcommand-help"])
def test_output_piped_into_a_closed_reader_ends_quietly(tmp_path: Path, indexed: Path, args: list[str]) -> None:
    db = _copy_index(indexed, tmp_path)
    r, w = os.pipe()
    os.close(r)  # like `| head` that has already exited
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--db", str(db), *args], stdout=w,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.stderr == ""


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_marks_the_running_file_cancelled_and_keeps_its_old_transcript(
    tmp_path: Path, clips: Path, librivox: dict[Path, str]
) -> None:
    db = tmp_path / "lib.sqlite"
    rec = tmp_path / "talk.wav"
    rec.write_bytes((clips / "rail.wav").read_bytes())
    assert earshot("ingest", str(rec), db=db).returncode == 0
    parts = [str(p) for p in librivox] * 6
    subprocess.run(["sox", *parts, str(rec)], check=True)  # the file changed: a long re-transcription
    # A command started from a terminal gets Ctrl+C's SIGINT; one started in the background by a shell without job
    # control (a test run under nohup, say) inherits SIGINT ignored, and Python then installs no handler for it.
    # The child is given the terminal's default so the test means the same wherever pytest runs.
    proc = subprocess.Popen([sys.executable, str(REPO / "main.py"), "--db", str(db), "ingest", "--workers", "1",
                             str(rec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_sigint)  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not Store(db).jobs(status="running"):
            time.sleep(0.2)
        time.sleep(1.0)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl+C in a terminal does
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # never leave a running ingest behind for the tests after this one
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err, err
    assert proc.returncode == 130
    store = Store(db)
    assert store.jobs()[0]["status"] == "cancelled"
    assert store.recording("talk.wav")["word_count"] > 0  # the old transcript is still there
    listing = earshot("list", db=db)
    assert "interrupted" not in listing.stderr, listing.stderr


def _workers(pid: int) -> list[int]:
    """The recognition workers ``pid`` started (spawned children; multiprocessing's resource tracker, which
    tidies up after its parent has gone, is not one)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"spawn_main" in command:
            kids.append(int(stat.parent.name))
    return kids


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # ended, unreaped
    except OSError:
        return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_during_ingest_is_treated_like_ctrl_c(tmp_path: Path, librivox: dict[Path, str],
                                                           signum: int) -> None:
    db = tmp_path / "lib.sqlite"
    rec = tmp_path / "talk.wav"
    subprocess.run(["sox", *[str(p) for p in librivox] * 6, str(rec)], check=True)
    proc = subprocess.Popen([sys.executable, str(REPO / "main.py"), "--db", str(db), "ingest", "--workers", "1",
                             str(rec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (db.exists() and Store(db).jobs(status="running")):
            time.sleep(0.2)
        workers = _workers(proc.pid)
        assert workers, "the ingest started no worker"
        proc.send_signal(signum)  # a service manager's stop, or the terminal closing
        _out, err = proc.communicate(timeout=60)
        left = [pid for pid in workers if not _gone(pid)]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert "Traceback" not in err, err
    assert proc.returncode == 128 + signum, err
    assert err.strip().splitlines()[-1] == "earshot: interrupted"
    assert left == []  # the workers ended with the command
    assert [j["status"] for j in Store(db).jobs()] == ["cancelled"]


def test_an_unknown_option_is_a_usage_error_not_the_desktop_app() -> None:
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--bogus"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "earshot: error: unrecognized arguments: --bogus"


def test_no_display_gives_a_line_instead_of_qts_abort() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, str(REPO / "main.py")], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("earshot: no display to open the desktop app on")
    assert len(proc.stderr.strip().splitlines()) == 1
