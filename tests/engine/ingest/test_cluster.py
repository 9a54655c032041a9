"""Ingest on a real Dask LocalCluster of worker processes, writing a real index file."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.asr.base import ModelSpec
from engine.audio.decode import content_hash
from engine.ingest import IngestJob
from engine.ingest.cluster import ClusterSpec, NeedsAudio, RemoteTask, recognise_remote
from engine.ingest.messages import Done, Failed
from engine.jobs import JobState
from engine.storage.store import Store
from tests.fixtures.audio import espeak, sox
from tests.fixtures.permissions import drop_file_mode_bypass

pytest.importorskip("distributed", reason="Dask (the cluster extra, requirements-cluster.lock) is not installed")
psutil = pytest.importorskip("psutil", reason="psutil (dev extra) is not installed")
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("clips")
    return {
        "council": espeak("The council approved the budget for the new hospital on Monday.", d / "council.wav"),
        "rain": espeak("Heavy rain flooded several streets in the harbour district.", d / "rain.wav", voice="en-gb"),
    }


@pytest.fixture(scope="module")
def minute_wav(tmp_path_factory: pytest.TempPathFactory, librivox: dict[Path, str]) -> Path:
    """About 75 s of real read speech: long enough to kill its worker half-way."""
    out = tmp_path_factory.mktemp("minute") / "minute.wav"
    sox(*[str(p) for p in librivox] * 3, str(out))
    return out


def _words(db: Path, name: str) -> list[tuple[float, float, str, str]]:
    store = Store(db)
    rec = store.recording(name)
    return [(w["start"], w["end"], w["text"], w["display"]) for w in store.words(rec["id"])]


# -- the worker's task, called directly ------------------------------------------------------


def test_the_task_reads_the_file_where_it_lies_or_asks_for_its_bytes(
    tmp_path: Path, clips: dict[str, Path], whisper_model: ModelSpec
) -> None:
    path = clips["council"]
    task = RemoteTask(7, str(path), path.stat().st_size, content_hash(path), whisper_model)
    from_path = recognise_remote(task)
    assert isinstance(from_path, Done) and from_path.task_id == 7
    assert "council" in [w.text for w in from_path.transcript.words]

    elsewhere = RemoteTask(8, str(tmp_path / "only-on-the-client.wav"), task.size_bytes, task.content_hash, whisper_model)
    assert recognise_remote(elsewhere) == NeedsAudio(8, "not on this worker's storage")
    other = RemoteTask(9, str(clips["rain"]), task.size_bytes, task.content_hash, whisper_model)
    assert isinstance(recognise_remote(other), NeedsAudio)  # same name would not do: the bytes differ

    sent = recognise_remote(elsewhere, path.read_bytes())
    assert isinstance(sent, Done)
    assert [(w.start, w.end, w.text) for w in sent.transcript.words] == [
        (w.start, w.end, w.text) for w in from_path.transcript.words
    ]
    flipped = bytearray(path.read_bytes())
    flipped[len(flipped) // 2] ^= 0xFF
    damaged = recognise_remote(elsewhere, bytes(flipped))
    assert isinstance(damaged, Failed)
    assert damaged.message == f"{elsewhere.path}: its bytes arrived damaged on the worker"


# -- a real LocalCluster ---------------------------------------------------------------------


def test_cluster_ingest_gives_the_words_of_local_ingest(
    tmp_path: Path, clips: dict[str, Path], whisper_model: ModelSpec
) -> None:
    files = [clips["council"], clips["rain"], tmp_path / "vanished.wav"]
    notes: list[str] = []
    cluster_db, local_db = tmp_path / "cluster.sqlite", tmp_path / "local.sqlite"
    out = IngestJob(files, db_path=cluster_db, spec=whisper_model, cluster=ClusterSpec(local_workers=2),
                    on_note=notes.append).run()
    states = {Path(o.path).name: (o.state, o.message) for o in out}
    assert states["council.wav"][0] is JobState.DONE and states["rain.wav"][0] is JobState.DONE
    assert states["vanished.wav"] == (JobState.FAILED, f"{tmp_path / 'vanished.wav'}: file not found (missing or removed)")
    assert notes[0].startswith("cluster local:2: 2 workers, 2 threads")
    IngestJob(files[:2], db_path=local_db, spec=whisper_model, workers=2).run()
    for name in ("council.wav", "rain.wav"):
        assert _words(cluster_db, name) == _words(local_db, name) != []
    store = Store(cluster_db)
    council = store.recording("council.wav")
    assert store.stories(council["id"]) and (council["engine"], council["model"]) == ("whisper", whisper_model.name)
    assert [j["status"] for j in store.jobs(status="done")] == ["done", "done"]

    # A re-run resumes: unchanged files are skipped by content hash, before any cluster starts.
    again = IngestJob(files[:2], db_path=cluster_db, spec=whisper_model, cluster=ClusterSpec(local_workers=1),
                      on_note=notes.append).run()
    assert [o.state for o in again] == [JobState.SKIPPED, JobState.SKIPPED]
    assert len(notes) == 1


def test_sent_bytes_give_the_same_words(tmp_path: Path, clips: dict[str, Path], whisper_model: ModelSpec) -> None:
    db = tmp_path / "sent.sqlite"
    out = IngestJob([clips["council"]], db_path=db, spec=whisper_model,
                    cluster=ClusterSpec(local_workers=1, send_audio="always")).run()
    assert out[0].state is JobState.DONE, out[0].message
    local = tmp_path / "local.sqlite"
    IngestJob([clips["council"]], db_path=local, spec=whisper_model).run()
    assert _words(db, "council.wav") == _words(local, "council.wav")


def _busiest_child() -> psutil.Process:
    """The child process using the most CPU over half a second (the worker recognising the file)."""
    children = psutil.Process().children(recursive=True)
    before = {p.pid: sum(p.cpu_times()[:2]) for p in children}
    time.sleep(0.5)
    used = {p: sum(p.cpu_times()[:2]) - before[p.pid] for p in children if p.is_running()}
    return max(used, key=lambda p: used[p])


def _start_watched(files: list[Path], db: Path, spec: ModelSpec, cluster: ClusterSpec,
                   ) -> tuple[IngestJob, threading.Thread, list, list[str]]:  # type: ignore[type-arg]
    started = threading.Event()
    notes: list[str] = []
    job = IngestJob(files, db_path=db, spec=spec, cluster=cluster, on_note=notes.append,
                    on_progress=lambda path, done, total: started.set() if done > 5 else None)
    result: list = []  # type: ignore[type-arg]
    thread = threading.Thread(target=lambda: result.extend(job.run()))
    thread.start()
    assert started.wait(120), "recognition never reported progress"
    return job, thread, result, notes


def test_a_killed_worker_has_its_file_sent_again(tmp_path: Path, minute_wav: Path, whisper_model: ModelSpec) -> None:
    db = tmp_path / "lib.sqlite"
    _job, thread, result, notes = _start_watched([minute_wav], db, whisper_model, ClusterSpec(local_workers=2))
    _busiest_child().kill()
    thread.join(300)
    assert not thread.is_alive()
    assert result[0].state is JobState.DONE, result[0].message
    assert any(n.startswith(f"retrying {minute_wav}: its worker stopped (attempt 2 of 3)") for n in notes), notes
    store = Store(db)
    assert store.counts()["recordings"] == 1 and store.recording("minute.wav")["word_count"] > 100


def test_a_file_whose_worker_dies_past_its_retries_is_reported(
    tmp_path: Path, minute_wav: Path, clips: dict[str, Path], whisper_model: ModelSpec
) -> None:
    db = tmp_path / "lib.sqlite"
    files = [minute_wav, clips["council"]]
    _job, thread, result, _notes = _start_watched(files, db, whisper_model, ClusterSpec(local_workers=1, retries=0))
    _busiest_child().kill()
    thread.join(300)
    assert not thread.is_alive()
    states = {Path(o.path).name: (o.state, o.message) for o in result}
    assert states["minute.wav"] == (JobState.FAILED, f"{minute_wav}: the worker running it stopped 1 time; not retried again")
    assert states["council.wav"][0] is JobState.DONE, states  # the batch went on, on the restarted worker
    store = Store(db)
    assert [r["name"] for r in store.recordings()] == ["council.wav"]
    assert store.jobs(status="failed")[0]["message"].endswith("not retried again")


def test_cancel_leaves_nothing_half_written(tmp_path: Path, minute_wav: Path, whisper_model: ModelSpec) -> None:
    db = tmp_path / "lib.sqlite"
    job, thread, result, _ = _start_watched([minute_wav], db, whisper_model, ClusterSpec(local_workers=1))
    job.cancel.cancel()
    thread.join(60)
    assert not thread.is_alive()
    assert result[0].state is JobState.CANCELLED
    store = Store(db)
    assert store.counts()["recordings"] == 0 and store.counts()["words"] == 0
    assert store.jobs()[0]["status"] == "cancelled"


def test_closing_ends_a_worker_that_does_not_stop_when_asked(
    minute_wav: Path, whisper_model: ModelSpec, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker that does not stop when asked (stuck, or inside native code that holds it) outlives Dask's
    # close, which runs out of time; the pool ends it itself.
    from engine import config
    from engine.audio.decode import probe
    from engine.ingest.cluster import ClusterPool
    from engine.ingest.messages import Progress

    pool = ClusterPool(whisper_model, ClusterSpec(local_workers=1))
    try:
        pool.submit(pool.idle_workers()[0], 0, probe(minute_wav), content_hash(minute_wav))
        deadline = time.monotonic() + 120
        while not any(isinstance(m, Progress) and m.seconds_done > 5 for m in pool.poll(0.5)):
            assert time.monotonic() < deadline, "recognition never reported progress"
        worker = _busiest_child()
        worker.suspend()  # SIGSTOP: it answers neither its nanny's stop message nor SIGTERM
        monkeypatch.setattr(config, "CLUSTER_CLOSE_SECONDS", 2.0)
    except BaseException:
        pool.close(kill=True)
        raise
    pool.close(kill=True)
    deadline = time.monotonic() + 5  # SIGKILL is delivered at once; its owner reaps it on its own thread
    while _runs(worker):
        assert time.monotonic() < deadline, "the worker outlived the pool"
        time.sleep(0.1)


def _runs(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _cli(*args: str, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(REPO / "main.py"), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, **kw)  # type: ignore[call-overload]


def test_ctrl_c_cancels_the_cluster_and_ends_every_worker(tmp_path: Path, minute_wav: Path) -> None:
    db = tmp_path / "lib.sqlite"
    # A terminal's Ctrl+C reaches the whole process group; a test run may hand SIGINT down ignored.
    proc = _cli("--db", str(db), "ingest", "--cluster", "local:2", str(minute_wav), start_new_session=True,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not (db.exists() and Store(db).jobs(status="running")):
        assert time.monotonic() < deadline and proc.poll() is None, "the ingest never started"
        time.sleep(0.2)
    time.sleep(2)  # recognising
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "earshot: interrupted" in err.splitlines() and "Traceback" not in err, err
    assert err.startswith("note: cluster local:2: 2 workers, 2 threads; dashboard http://127.0.0.1:"), err
    store = Store(db)
    assert store.counts()["recordings"] == 0 and store.counts()["words"] == 0
    assert [j["status"] for j in store.jobs()] == ["cancelled"]
    deadline = time.monotonic() + 20
    while True:  # nothing of the cluster outlives the command
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "worker processes outlived the command"
        time.sleep(0.2)


def test_cli_cluster_errors_are_one_line(tmp_path: Path, clips: dict[str, Path]) -> None:
    db = tmp_path / "lib.sqlite"
    cases = {
        ("--cluster", "local:1", "--workers", "2"): "earshot: error: --workers is for ingest on this machine; "
        "with --cluster, use local:N or start the cluster's workers with the processes you want",
        ("--cluster", "tcp://127.0.0.1:9"): "earshot: error: tcp://127.0.0.1:9: cannot reach the Dask scheduler: ",
        ("--cluster", "local:1", "--retries", "-1"): "earshot: error: ingest: argument --retries: must be 0 or more, got -1",
    }
    for args, start in cases.items():
        proc = _cli("--db", str(db), "ingest", *args, str(clips["council"]))
        out, err = proc.communicate(timeout=120)
        assert proc.returncode in (1, 2) and err.startswith(start) and err.count("\n") == 1, (args, err)
        assert out == ""
    assert not db.exists() or Store(db).counts()["recordings"] == 0


def test_without_dask_cluster_says_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "empty.wav").write_bytes(b"")  # said before any file is looked at, even one that fails
    code = (
        "import sys; sys.modules['dask'] = sys.modules['distributed'] = None\n"
        "from engine.cli.main import main\n"
        f"sys.exit(main(['--db', {str(tmp_path / 'lib.sqlite')!r}, 'ingest', '--cluster', 'local:1', "
        f"{str(tmp_path / 'empty.wav')!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == ("earshot: error: --cluster needs Dask, which is not installed; install it with: "
                           ".venv/bin/python -m pip install --require-hashes -r requirements-cluster.lock\n")
    assert not (tmp_path / "lib.sqlite").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _remote_cluster(tmp_path: Path, *, owner_only: bool = False) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A real scheduler (``dask scheduler``) and one worker (``dask worker``) on this machine. With
    ``owner_only`` the worker obeys file modes even as root (no CAP_DAC_OVERRIDE/READ_SEARCH), so a
    folder of another user's with mode 0700 is closed to it: a worker with no storage shared there.
    Yields the scheduler's address and process."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    scratch = Path(tempfile.mkdtemp(prefix="earshot-worker-"))
    worker_cmd = [str(bin_dir / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard",
                  "--local-directory", str(scratch)]
    with (tmp_path / "scheduler.log").open("w") as slog, (tmp_path / "worker.log").open("w") as wlog:
        scheduler = subprocess.Popen([str(bin_dir / "dask"), "scheduler", "--host", "127.0.0.1",
                                      "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
                                     env=env, cwd=tmp_path, stdout=slog, stderr=subprocess.STDOUT)
        worker = subprocess.Popen(worker_cmd, env=env, cwd=scratch, stdout=wlog, stderr=subprocess.STDOUT,
                                  preexec_fn=drop_file_mode_bypass if owner_only else None)
        try:
            yield address, scheduler
        finally:
            for proc in (worker, scheduler):
                proc.terminate()
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            shutil.rmtree(scratch, ignore_errors=True)


#: The owner of the folder a worker cannot see.
NOBODY = 65534


@pytest.fixture
def remote_cluster_without_the_files(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A scheduler and a worker that cannot see a folder of this machine: no storage shared with this process."""
    if os.geteuid() != 0:
        pytest.skip("a folder closed to the worker is made as root (the suite runs as root in CI)")
    hidden = tmp_path / "only-here"
    hidden.mkdir()
    os.chown(hidden, NOBODY, NOBODY)  # root's worker, without its file-mode bypass, is "other" here
    hidden.chmod(0o700)
    probe = subprocess.run([sys.executable, "-c", f"import os; raise SystemExit(os.access({str(hidden)!r}, os.X_OK))"],
                           preexec_fn=drop_file_mode_bypass, capture_output=True)
    if probe.returncode != 0:
        pytest.fail(f"the worker's side can enter {hidden}: {probe.stderr.decode().strip()}")
    with _remote_cluster(tmp_path, owner_only=True) as (address, _):
        yield address, hidden


def test_a_lost_scheduler_fails_the_files_it_held_and_writes_nothing(
    tmp_path: Path, minute_wav: Path, clips: dict[str, Path], whisper_model: ModelSpec
) -> None:
    db = tmp_path / "lib.sqlite"
    with _remote_cluster(tmp_path) as (address, scheduler):
        _, thread, result, _ = _start_watched([minute_wav, clips["council"]], db, whisper_model,
                                               ClusterSpec(address=address))
        scheduler.kill()
        thread.join(120)
    assert not thread.is_alive()
    lost = f"{address}: the connection to the Dask scheduler was lost"
    assert [(o.state, o.message) for o in result if o.state is not JobState.DONE] != []
    assert all(o.message == lost for o in result if o.state is JobState.FAILED), [o.message for o in result]
    assert Path(result[0].path) == minute_wav and result[0].state is JobState.FAILED
    store = Store(db)
    assert store.counts()["recordings"] == sum(o.state is JobState.DONE for o in result)
    assert not store.jobs(status="running")


def test_a_worker_without_shared_storage_gets_the_bytes(
    tmp_path: Path, clips: dict[str, Path], whisper_model: ModelSpec,
    remote_cluster_without_the_files: tuple[str, Path],
) -> None:
    address, hidden = remote_cluster_without_the_files
    wav = hidden / "council.wav"
    shutil.copy(clips["council"], wav)
    notes: list[str] = []
    never = IngestJob([wav], db_path=tmp_path / "never.sqlite", spec=whisper_model,
                      cluster=ClusterSpec(address=address, send_audio="never"), on_note=notes.append).run()
    assert (never[0].state, never[0].message) == (JobState.FAILED, f"{wav}: not on this worker's storage (--send-audio never)")
    assert notes[0].startswith(f"cluster {address}: 1 workers, 1 threads")
    sent = IngestJob([wav], db_path=tmp_path / "sent.sqlite", spec=whisper_model,
                     cluster=ClusterSpec(address=address)).run()
    assert sent[0].state is JobState.DONE, sent[0].message
    local = tmp_path / "local.sqlite"
    IngestJob([wav], db_path=local, spec=whisper_model).run()
    assert _words(tmp_path / "sent.sqlite", "council.wav") == _words(local, "council.wav")
