"""What the ingest job and its recognition workers say to each other.

The job sends a :class:`Task` to a worker's inbox (and ends an idle worker with SIGTERM); workers answer on one
shared queue with a :data:`WorkerMessage`. Every message is a frozen dataclass that pickles
across the process boundary; a failure carries a :class:`FailureReason`, so the job decides
what to do from the reason, never from the wording of the message.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.audio.decode import AudioInfo
from engine.ingest.results import Transcript


class FailureReason(enum.Enum):
    """Why a worker or one of its files failed."""

    #: The worker could not load its speech model and said why.
    MODEL_NOT_LOADED = "model not loaded"
    #: The worker process ended before it was ready, without a word (a native crash while loading).
    WORKER_DID_NOT_START = "worker did not start"
    #: Recognition of one file raised an error.
    RECOGNITION_FAILED = "recognition failed"
    #: The worker process died while it worked on a file.
    WORKER_CRASHED = "worker crashed"
    #: A cluster worker could not see the file and its bytes could not be sent to it.
    AUDIO_NOT_SENT = "audio not sent"
    #: The connection to the Dask scheduler is gone.
    CLUSTER_LOST = "cluster lost"


@dataclass(frozen=True)
class Task:
    """Job to worker: recognise this file."""

    task_id: int
    info: AudioInfo


@dataclass(frozen=True)
class Ready:
    """Worker ``wid`` has loaded its model and takes files."""

    wid: int


@dataclass(frozen=True)
class Progress:
    """How far recognition of a task has got, in seconds of audio."""

    task_id: int
    seconds_done: float
    seconds_total: float


@dataclass(frozen=True)
class Done:
    """A task's transcript."""

    task_id: int
    transcript: Transcript


@dataclass(frozen=True)
class Failed:
    """A task that produced no transcript; ``message`` is for the user, ``detail`` (a traceback) for the log."""

    task_id: int
    reason: FailureReason
    message: str
    detail: str = ""


@dataclass(frozen=True)
class Fatal:
    """Worker ``wid`` is gone for good and takes no files."""

    wid: int
    reason: FailureReason
    message: str


WorkerMessage = Ready | Progress | Done | Failed | Fatal
