"""The body of one recognition worker process: load the model once, then recognise files one at a time.

:mod:`engine.ingest.pool` starts the process and imports this module only there, so the job's process
can start its workers before it imports the recogniser and the detectors itself. This module imports
what recognition needs and nothing of the job (storage's writer, the passage index, the cluster client).
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
import traceback
from functools import partial
from typing import Any

from engine.asr.base import ModelSpec
from engine.asr.loader import load_transcriber
from engine.detect.sensitivities import DetectorSettings
from engine.errors import EarshotError
from engine.heap import limit_arenas
from engine.ingest.child import exit_with_parent, ignore_sigint
from engine.ingest.messages import Done, Failed, FailureReason, Fatal, Progress, Ready, Task

log = logging.getLogger("earshot.ingest")

#: Seconds between progress messages from one worker.
PROGRESS_INTERVAL = 0.25


def _no_process_locks() -> None:
    """Give tqdm (faster-whisper draws a hidden progress bar per chunk) a thread lock before it makes its
    default one, a named semaphore registered with multiprocessing's resource tracker: the pool ends an
    idle worker with SIGTERM, and the tracker would report the semaphore leaked."""
    import tqdm

    tqdm.tqdm.set_lock(threading.RLock())


def _warm_up(settings: DetectorSettings | None, spec: ModelSpec) -> None:
    """Import the recogniser's side of a file's pass and run its :func:`~engine.ingest.transcribe.warm_up`;
    a failure of the warm-up is left for the first file to report."""
    # Imported here, beside the speech model's load: the detectors' imports (SciPy, numba: two seconds
    # of CPU) no longer come before it.
    from engine.ingest.transcribe import warm_up

    try:
        warm_up(settings, engine=spec.engine, language=spec.language.split("-")[0].lower())
    except Exception:  # the same load fails again on the first file, which reports it
        log.debug("warm-up failed", exc_info=True)


def serve(wid: int, spec: ModelSpec, inbox: Any, outbox: Any, settings: DetectorSettings | None = None,
          side: Any = None, scratch: str | None = None) -> None:
    """Load ``spec``'s model once, say :class:`Ready`, then answer each :class:`Task` from ``inbox`` on
    ``outbox`` until the pool ends the process. ``side``: this worker's end of the pipe to its side
    process (:mod:`engine.ingest.side_work`), or None to hear every file in this process; ``scratch``: the
    folder (the pool's) the two pass a file's features through."""

    ignore_sigint()
    limit_arenas()  # before this process starts its threads
    # the pool removes the scratch folder when it ends this process; killed with it, this process must
    exit_with_parent(None if scratch is None else partial(shutil.rmtree, scratch, ignore_errors=True))
    _no_process_locks()

    # the detectors' and analysers' first loads run beside the speech model's (native code, mostly)
    warming = threading.Thread(target=_warm_up, args=(settings, spec), name="earshot-warm-up", daemon=True)
    warming.start()
    try:
        transcriber = load_transcriber(spec)
    except EarshotError as exc:
        outbox.put(Fatal(wid, FailureReason.MODEL_NOT_LOADED, str(exc)))
        return
    except Exception as exc:  # a native library failing to load
        outbox.put(Fatal(wid, FailureReason.MODEL_NOT_LOADED, f"{spec.name}: cannot load the speech model: {exc}"))
        return
    warming.join()
    from engine.ingest.side_work import SideWork
    from engine.ingest.transcribe import transcribe_file  # imported by the warm-up: a lookup now

    side_work = SideWork(side, scratch) if side is not None else None

    outbox.put(Ready(wid))
    while True:
        task: Task = inbox.get()  # the pool ends an idle worker with SIGTERM: nothing else stops this loop
        task_id, info = task.task_id, task.info
        last = [0.0]

        def progress(done: float, total: float, task_id: int = task_id, last: list[float] = last) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_INTERVAL:
                last[0] = now
                outbox.put(Progress(task_id, done, total))

        try:
            result = transcribe_file(info, transcriber, on_progress=progress, detector_settings=settings,
                                     side=side_work)  # fmt: skip
        except EarshotError as exc:
            outbox.put(Failed(task_id, FailureReason.RECOGNITION_FAILED, str(exc)))
        except Exception as exc:
            outbox.put(Failed(task_id, FailureReason.RECOGNITION_FAILED, f"{info.path}: recognition failed: {exc}",
                              traceback.format_exc()))
        else:
            outbox.put(Done(task_id, result))
