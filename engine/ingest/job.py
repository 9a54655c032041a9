"""The ingest job: files and folders in, transcripts in the index out.

One :class:`IngestJob` per run. It probes and hashes each file, skips the
unchanged ones, hands the rest to recognition worker processes, and writes
each finished transcript in one transaction. A file that fails is reported
with one line naming it and the reason; the others go on.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from engine import config
from engine.asr.base import ModelSpec
from engine.audio.decode import AudioInfo, content_hash, probe
from engine.detect.sensitivities import DetectorSettings
from engine.errors import AudioError, EarshotError, ParameterError, StorageError
from engine.ingest.messages import Done, Failed, FailureReason, Fatal, Progress
from engine.ingest.pool import WorkerPool
from engine.ingest.results import StageTimes, Transcript
from engine.jobs import CancelToken, JobState
from engine.search.passage_blocks import index_passages
from engine.storage.store import NewRecording, Store, WordRow

if TYPE_CHECKING:  # the Dask client's side, imported only for a run with a cluster
    from engine.ingest.cluster import ClusterPool, ClusterSpec

    #: What recognises the files: local worker processes, or a Dask cluster.
    RecognitionPool: TypeAlias = WorkerPool | ClusterPool

log = logging.getLogger("earshot.ingest")


@dataclass
class FileOutcome:
    """How one file of a run ended (or where it is while running)."""

    path: str
    state: JobState = JobState.QUEUED
    message: str = ""
    recording_id: int | None = None
    audio_seconds: float = 0.0
    duration: float = 0.0
    times: StageTimes = field(default_factory=StageTimes)
    info: AudioInfo | None = None
    content_hash: str = ""
    job_id: int | None = None
    started: float = 0.0
    finished: float = 0.0


FileStateFn = Callable[[FileOutcome], None]
FileProgressFn = Callable[[str, float, float], None]


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[FileOutcome]]:
    """Files named directly, plus audio files found recursively under folders.

    Returns the files (absolute, de-duplicated, in order) and a failed outcome
    for every argument that does not exist.
    """
    files: list[Path] = []
    missing: list[FileOutcome] = []
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw).absolute()
        if p.is_dir():
            found = sorted(
                q for q in p.rglob("*") if q.suffix.lower() in config.AUDIO_EXTENSIONS and q.is_file()
            )
            if not found:
                missing.append(FileOutcome(str(p), JobState.FAILED, f"{p}: a folder with no audio or video files in it"))
            candidates = found
        elif p.exists() or p.is_symlink():
            candidates = [p]
        else:
            missing.append(FileOutcome(str(p), JobState.FAILED, f"{p}: file not found (missing or removed)"))
            continue
        for q in candidates:
            if q not in seen:
                seen.add(q)
                files.append(q)
    return files, missing


class IngestJob:
    """Transcribe and index a batch of recordings.

    Parameters
    ----------
    paths : files and folders (folders are walked recursively).
    db_path : the index file; opened in the thread that calls :meth:`run`.
    spec : the speech model to use.
    detector_settings : sensitivities of the audio detectors (default settings if None).
    workers : recognition processes to run in parallel (>= 1).
    force : re-transcribe files whose content is unchanged.
    on_state : called whenever a file changes state.
    on_progress : ``(path, seconds_done, seconds_total)`` while a file is recognised.
    cancel : set it to stop the run; running files are killed, none is half-written.
    cluster : recognise on a Dask cluster instead of local worker processes (``workers`` is then unused).
    on_note : called with one line for the user (the cluster reached, a file sent again).
    pool : recognition workers already started with ``spec`` (the CLI starts them before it imports
        this module); the job uses and closes them instead of starting its own.
    """

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        *,
        db_path: str | os.PathLike[str],
        spec: ModelSpec,
        workers: int = 1,
        force: bool = False,
        on_state: FileStateFn | None = None,
        on_progress: FileProgressFn | None = None,
        cancel: CancelToken | None = None,
        detector_settings: DetectorSettings | None = None,
        cluster: ClusterSpec | None = None,
        on_note: Callable[[str], None] | None = None,
        pool: WorkerPool | None = None,
    ) -> None:
        if workers < 1:
            raise ParameterError(f"--workers must be at least 1, got {workers}")
        self.paths = list(paths)
        self.db_path = str(db_path)
        self.spec = spec
        self.workers = workers
        self.force = force
        self.detector_settings = detector_settings
        if cluster is not None:
            # Imported only here: it brings a file's whole pass (detectors, diarizer) for its Dask workers,
            # seconds of CPU a run on this machine's own worker processes does without.
            from engine.ingest.cluster import require_dask

            require_dask()  # said at once, not after every file was probed and hashed
        self.cluster = cluster
        self._started_pool: RecognitionPool | None = pool
        self.on_note = on_note or (lambda line: None)
        self.on_state = on_state or (lambda outcome: None)
        self.on_progress = on_progress or (lambda path, done, total: None)
        self.cancel = cancel or CancelToken()
        self.interrupted: list[dict[str, object]] = []
        self._cancel_requests: set[str] = set()
        self._cancel_lock = threading.Lock()  # cancel_file is called from other threads

    def cancel_file(self, path: str) -> None:
        """Stop one file (queued or running); the rest of the run goes on. Thread-safe."""
        with self._cancel_lock:
            self._cancel_requests.add(str(Path(path).absolute()))

    def _take_cancel_requests(self) -> set[str]:
        """The paths asked to stop since the last call (a request made meanwhile waits for the next)."""
        with self._cancel_lock:
            taken, self._cancel_requests = self._cancel_requests, set()
        return taken

    # -- the run ------------------------------------------------------------

    def run(self) -> list[FileOutcome]:
        """Do the whole batch; returns one outcome per file, in input order."""
        files, outcomes = expand_paths(self.paths)
        # A scheduler that cannot be reached is said before hours of hashing, not after.
        remote = self._open_pool(len(files)) if self.cluster is not None and self.cluster.address else None
        pool = self._started_pool or remote
        store = Store(self.db_path)
        try:
            self.interrupted = store.mark_interrupted_jobs()
            for o in outcomes:
                self._record_failure(store, o)
                self.on_state(o)
            todo: list[FileOutcome] = []
            for i, f in enumerate(files):
                outcome = self._prepare(store, f)
                outcomes.append(outcome)
                if outcome.state is JobState.QUEUED:
                    todo.append(outcome)
                    if pool is None:  # the workers load their models while the other files are hashed
                        pool = self._open_pool(len(files) - i)
                elif outcome.state is JobState.FAILED:
                    self._record_failure(store, outcome)
                self.on_state(outcome)
            if todo:
                self._recognise(store, todo, pool)
        except BaseException:
            if pool is not None:
                pool.close(kill=True)
            raise
        finally:
            if pool is not None:
                pool.close()
            store.close()
        return outcomes

    @staticmethod
    def _record_failure(store: Store, outcome: FileOutcome) -> None:
        """A file refused before recognition (missing, unreadable, not audio) still gets its job row,
        so the library lists the failure after a restart."""
        if outcome.state is JobState.FAILED and outcome.job_id is None:
            try:
                outcome.job_id = store.start_job("ingest", outcome.path)
                store.finish_job(outcome.job_id, JobState.FAILED.value, outcome.message)
            except StorageError as exc:  # e.g. a full disk: the line on screen is what remains
                log.warning("%s", exc)

    def _prepare(self, store: Store, path: Path) -> FileOutcome:
        """Probe and hash one file; decide whether it needs recognition."""
        outcome = FileOutcome(str(path))
        try:
            outcome.info = probe(path)
            outcome.duration = outcome.info.duration
            outcome.content_hash = content_hash(path)
        except AudioError as exc:
            outcome.state, outcome.message = JobState.FAILED, str(exc)
            return outcome
        old = store.recording_by_path(str(path))
        if self.force:
            return outcome
        if old is not None and old["content_hash"] == outcome.content_hash:
            outcome.state = JobState.SKIPPED
            outcome.recording_id = int(old["id"])
            outcome.message = f"{path}: unchanged since it was indexed (recording {old['id']})"
        elif old is None:
            self._recognise_by_content(store, outcome)
        return outcome

    @staticmethod
    def _recognise_by_content(store: Store, outcome: FileOutcome) -> None:
        """Same bytes under a new name: a copy is skipped, a moved file takes its recording along."""
        same = store.recording_by_hash(outcome.content_hash)
        if same is None:
            return
        outcome.state, outcome.recording_id = JobState.SKIPPED, int(same["id"])
        if os.path.exists(same["path"]):
            outcome.message = f"{outcome.path}: same content as {same['path']}, already indexed (recording {same['id']})"
            return
        try:
            store.move_recording(int(same["id"]), outcome.path)
        except StorageError as exc:
            outcome.state, outcome.message = JobState.FAILED, f"{outcome.path}: cannot store: {exc}"
            return
        outcome.message = f"{outcome.path}: moved from {same['path']}; the index now points here (recording {same['id']})"

    def _open_pool(self, files: int) -> RecognitionPool:
        if self.cluster is None:
            return WorkerPool(self.spec, min(self.workers, files), detector_settings=self.detector_settings)
        from engine.ingest.cluster import ClusterPool  # see __init__: only for a run with a cluster

        pool = ClusterPool(self.spec, self.cluster, detector_settings=self.detector_settings, on_note=self.on_note)
        info = pool.info
        self.on_note(f"cluster {info.label}: {info.workers} workers, {info.threads} threads"
                     + (f"; dashboard {info.dashboard}" if info.dashboard else ""))
        return pool

    def _recognise(self, store: Store, todo: list[FileOutcome], pool: RecognitionPool | None = None) -> None:
        by_task = dict(enumerate(todo))
        queued = list(by_task)
        running: set[int] = set()
        with pool or self._open_pool(len(todo)) as pool:
            try:
                self._drive(store, pool, by_task, queued, running)
            except BaseException:  # Ctrl+C or a fault: no job row may stay "running"
                self._cancel_all(store, pool, by_task, queued, running)
                raise

    def _drive(
        self, store: Store, pool: RecognitionPool, by_task: dict[int, FileOutcome], queued: list[int], running: set[int]
    ) -> None:
        """Hand files to idle workers and handle their messages until every file has ended."""
        fatal: Fatal | None = None
        while queued or running:
            if self.cancel.cancelled:
                self._cancel_all(store, pool, by_task, queued, running)
                return
            self._apply_file_cancels(store, pool, by_task, queued, running)
            for wid in pool.idle_workers():
                if not queued:
                    break
                task_id = queued.pop(0)
                outcome = by_task[task_id]
                assert outcome.info is not None  # probed before it was queued
                self._start(store, outcome)
                pool.submit(wid, task_id, outcome.info, outcome.content_hash)
                running.add(task_id)
            for msg in pool.poll(timeout=0.1):
                if isinstance(msg, Progress) and msg.task_id in running:
                    self.on_progress(by_task[msg.task_id].path, msg.seconds_done, msg.seconds_total)
                elif isinstance(msg, Done) and msg.task_id in running:
                    self._finish_ok(store, by_task[msg.task_id], msg.transcript)
                    running.discard(msg.task_id)
                elif isinstance(msg, Failed) and msg.task_id in running:
                    running.discard(msg.task_id)
                    path, line = by_task[msg.task_id].path, msg.message.splitlines()[0]
                    line = line if line.startswith(path) else f"{path}: {line}"  # a crash report names no file
                    self._finish(store, by_task[msg.task_id], JobState.FAILED, line)
                    log.info("%s", "\n".join(filter(None, (msg.message, msg.detail))))
                elif isinstance(msg, Fatal) and (fatal is None or fatal.reason is FailureReason.WORKER_DID_NOT_START):
                    fatal = msg  # a worker's own account of why its model would not load says most
            if pool.alive() == 0:
                message = fatal.message if fatal is not None else pool.why_gone()
                for task_id in [*queued, *running]:
                    self._finish(store, by_task[task_id], JobState.FAILED, message)
                return

    # -- state changes -------------------------------------------------------

    def _start(self, store: Store, outcome: FileOutcome) -> None:
        outcome.state = JobState.RUNNING
        outcome.started = time.monotonic()
        try:
            outcome.job_id = store.start_job("ingest", outcome.path)
        except StorageError as exc:
            log.warning("%s", exc)
        self.on_state(outcome)

    def _finish(self, store: Store, outcome: FileOutcome, state: JobState, message: str) -> None:
        outcome.state, outcome.message = state, message
        outcome.finished = time.monotonic()
        if outcome.job_id is not None:
            try:
                store.finish_job(outcome.job_id, state.value, message, outcome.recording_id)
            except StorageError as exc:
                log.warning("%s", exc)
        self.on_state(outcome)

    def _finish_ok(self, store: Store, outcome: FileOutcome, transcript: Transcript) -> None:
        info = outcome.info
        assert info is not None
        t0 = time.perf_counter()
        try:
            outcome.recording_id = store.save_recording(
                _as_new_recording(outcome, info, transcript, self.spec),
                then=lambda rec_id: index_passages(store, rec_id),
            )
        except EarshotError as exc:
            self._finish(store, outcome, JobState.FAILED, f"{outcome.path}: cannot store: {exc}")
            return
        transcript.times.store = time.perf_counter() - t0
        outcome.times = transcript.times
        outcome.audio_seconds = transcript.audio_seconds
        n = len(transcript.words)
        heard = f", language {transcript.language}" if transcript.language else ""
        note = f" ({transcript.language_note})" if transcript.language_note else ""
        message = f"{n} words in {transcript.audio_seconds:.1f} s of audio{heard}{note}"
        self._finish(store, outcome, JobState.DONE, message)

    def _apply_file_cancels(
        self, store: Store, pool: RecognitionPool, by_task: dict[int, FileOutcome], queued: list[int], running: set[int]
    ) -> None:
        requests = self._take_cancel_requests()
        if not requests:
            return
        for task_id, outcome in by_task.items():
            if outcome.path not in requests:
                continue
            if task_id in queued:
                queued.remove(task_id)
                self._finish(store, outcome, JobState.CANCELLED, "cancelled before it started")
            elif task_id in running:
                # A fresh worker only when files still wait for one (loading a model takes seconds).
                pool.cancel_task(task_id, respawn=bool(queued))
                running.discard(task_id)
                self._finish(store, outcome, JobState.CANCELLED, "cancelled")

    def _cancel_all(
        self, store: Store, pool: RecognitionPool, by_task: dict[int, FileOutcome], queued: list[int], running: set[int]
    ) -> None:
        pool.close(kill=True)
        for task_id in [*running, *queued]:
            if by_task[task_id].state in (JobState.QUEUED, JobState.RUNNING):
                self._finish(store, by_task[task_id], JobState.CANCELLED, "cancelled")
        queued.clear()
        running.clear()


def _as_new_recording(outcome: FileOutcome, info: AudioInfo, transcript: Transcript, spec: ModelSpec) -> NewRecording:
    return NewRecording(
        path=outcome.path,
        name=Path(outcome.path).name,
        content_hash=outcome.content_hash,
        size_bytes=info.size_bytes,
        duration=transcript.audio_seconds or info.duration,
        sample_rate=info.sample_rate,
        channels=info.channels,
        codec=info.codec,
        container=info.container,
        engine=spec.engine,
        model=spec.name,
        language=transcript.language or spec.language,
        words=[WordRow(w.start, w.end, w.conf, w.text, w.display) for w in transcript.words],
        segments=transcript.segments,
        ingest_seconds=transcript.times.total,
        x_duration=transcript.analysis.x_duration,
        transcribed=transcript.analysis.transcribed,
        events=transcript.analysis.events,
        stories=transcript.analysis.stories,
        entities=transcript.analysis.entities,
        speakers=transcript.analysis.speakers,
    )
