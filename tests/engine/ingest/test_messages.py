"""The messages between the ingest job and its workers cross a process boundary intact."""

from __future__ import annotations

import pickle

import pytest

from engine.audio.decode import AudioInfo
from engine.ingest.messages import Done, Failed, FailureReason, Fatal, Progress, Ready, Task
from engine.ingest.transcribe import Transcript

INFO = AudioInfo(path="/r/a.wav", duration=2.0, sample_rate=16000, channels=1, codec="pcm_s16le", container="wav",
                 size_bytes=64000)


@pytest.mark.parametrize(
    "message",
    [
        Task(3, INFO),
        Ready(1),
        Progress(3, 1.5, 2.0),
        Failed(3, FailureReason.WORKER_CRASHED, "the recogniser process stopped unexpectedly (exit code -9)"),
        Failed(3, FailureReason.RECOGNITION_FAILED, "/r/a.wav: recognition failed: boom", "Traceback ..."),
        Fatal(0, FailureReason.MODEL_NOT_LOADED, "tiny.en: cannot load the speech model: gone"),
    ],
    ids=lambda m: type(m).__name__,
)
def test_messages_pickle_to_equal_copies(message: object) -> None:
    assert pickle.loads(pickle.dumps(message)) == message


def test_a_transcript_travels_inside_done() -> None:
    done = Done(7, Transcript(words=[], segments=[], audio_seconds=2.0))
    back = pickle.loads(pickle.dumps(done))
    assert back.task_id == 7 and back.transcript.audio_seconds == 2.0


def test_reasons_are_told_apart_by_identity_not_wording() -> None:
    crash = Fatal(0, FailureReason.WORKER_DID_NOT_START, "x: the recogniser process could not start")
    told = Fatal(1, FailureReason.MODEL_NOT_LOADED, "x: could not start the model, the file is missing")
    assert crash.reason is FailureReason.WORKER_DID_NOT_START
    assert told.reason is not crash.reason
