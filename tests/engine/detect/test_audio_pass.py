"""FeedingBlocks with the detectors on a thread beside the consumer: the same features as inline,
every block in order, errors handed to the consumer, nothing left running when a stream is dropped."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import numpy as np
import pytest

from engine.audio.decode import iter_pcm_blocks
from engine.detect.analyzer import feature_extractor
from engine.detect.audio_pass import FeedingBlocks
from engine.detect.sensitivities import DetectorSettings
from engine.jobs import CancelToken


class Heard:
    """A listener that keeps what it heard (and fails at block ``fail_at``, if given)."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.blocks: list[np.ndarray] = []
        self.fail_at = fail_at
        self.ended: int | None = None  # blocks heard when the stream's end was told

    def feed(self, block: np.ndarray) -> None:
        if self.fail_at is not None and len(self.blocks) == self.fail_at:
            raise ValueError(f"listener failed at block {self.fail_at}")
        self.blocks.append(block.copy())

    def end(self) -> None:
        self.ended = len(self.blocks)


def _feeding(path: Path, *, beside: bool, listener: Heard, extractor=None) -> FeedingBlocks:  # type: ignore[no-untyped-def]
    return FeedingBlocks(iter_pcm_blocks(path), sr=16000, total_seconds=40.0, on_progress=lambda d, t: None,
                         cancel=CancelToken(), extractor=extractor, listener=listener, beside=beside)  # fmt: skip


def _side_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "earshot-detectors"]


def test_beside_the_consumer_the_detectors_hear_what_they_hear_inline(librivox: dict[Path, str]) -> None:
    path = sorted(librivox)[0]
    runs = {}
    for beside in (False, True):
        listener = Heard()
        extractor = feature_extractor(sr=16000, settings=DetectorSettings())
        feeding = _feeding(path, beside=beside, listener=listener, extractor=extractor)
        taken = [block.copy() for block in feeding]
        feeding.finish_beside()
        runs[beside] = (taken, listener.blocks, extractor.finish(), feeding)
        assert listener.ended == (len(taken) if beside else None)  # told beside, after every block
    (taken0, heard0, features0, _), (taken1, heard1, features1, side) = runs[False], runs[True]
    assert len(taken1) == len(heard1) == len(taken0) == len(heard0) > 10
    assert all(np.array_equal(a, b) for a, b in zip(heard1, taken1, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(heard0, taken0, strict=True))
    for field in dataclasses.fields(features0):
        a, b = getattr(features0, field.name), getattr(features1, field.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=field.name)
    assert side.detect_seconds > 0 and 0 <= side.overlapped_seconds <= side.detect_seconds + side.listener_seconds
    assert not _side_threads()


def test_an_error_beside_reaches_the_consumer(librivox: dict[Path, str]) -> None:
    n_blocks = sum(1 for _ in iter_pcm_blocks(sorted(librivox)[0]))
    for fail_at in (3, n_blocks - 1):  # midway: raised while the stream runs; the last block: at the end
        feeding = _feeding(sorted(librivox)[0], beside=True, listener=Heard(fail_at=fail_at))
        with pytest.raises(ValueError, match=f"listener failed at block {fail_at}"):
            for _ in feeding:
                pass
            feeding.finish_beside()
        assert not _side_threads()


def test_a_stream_dropped_midway_leaves_no_thread(librivox: dict[Path, str]) -> None:
    listener = Heard()
    feeding = iter(_feeding(sorted(librivox)[0], beside=True, listener=listener))
    for _ in range(4):
        next(feeding)
    feeding.close()  # type: ignore[attr-defined]
    assert not _side_threads()
    assert len(listener.blocks) <= 4
