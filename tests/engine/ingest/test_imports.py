"""What each side of ingest imports: a recognition worker nothing of the job and, before its speech model
loads, none of the detectors; the ``ingest`` command nothing heavy before it has started its workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Each test starts a fresh interpreter that imports a good part of the engine: seconds of CPU.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]

#: The job's side: the job itself, the index writer's passage blocks and query side, the cluster client, the
#: terminal UI, the app.
NOT_IN_A_WORKER = ("engine.ingest.job", "engine.ingest.cluster", "engine.search.passage_blocks", "engine.search.query",
                   "dask", "distributed", "rich", "PySide6")  # fmt: skip
#: What a file's pass brings (detectors, diarizer, segmenter), imported on a thread beside the model's load.
NOT_BEFORE_THE_MODEL = ("engine.ingest.transcribe", "engine.detect.analyzer", "engine.speakers.diarize",
                        "engine.segment", "scipy", "numba")  # fmt: skip
#: What the recogniser and the detectors bring, which the command imports only once its workers are started.
NOT_BEFORE_THE_WORKERS = ("engine.ingest.job", "engine.ingest.transcribe", "engine.detect.analyzer", "scipy", "numba",
                          "faster_whisper", "ctranslate2", "dask")  # fmt: skip


def _modules_after(code: str) -> list[str]:
    """Names in ``sys.modules`` of a fresh interpreter after running ``code``."""
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_worker_imports_nothing_of_the_job_and_no_detector_before_its_model() -> None:
    # A spawned worker unpickles engine.ingest.pool._worker_main, which imports engine.ingest.worker.
    loaded = _modules_after("import engine.ingest.pool\nimport engine.ingest.worker")
    assert "engine.ingest.worker" in loaded  # the check can fail: the worker's own module is there
    assert [m for m in NOT_IN_A_WORKER + NOT_BEFORE_THE_MODEL if m in loaded] == []


def test_a_file_s_pass_imports_nothing_of_the_job() -> None:
    # What the worker's warm-up thread imports beside the model's load, and the detectors' feature extractor
    # it builds: without librosa.util, whose numba ufuncs compile on import (0.7 s of CPU).
    loaded = _modules_after(
        "import engine.ingest.worker\nimport engine.ingest.transcribe\nfrom engine.detect.analyzer import feature_extractor\n"
        "from engine.detect.sensitivities import DetectorSettings\nfeature_extractor(sr=16000, settings=DetectorSettings())"
    )
    assert "engine.detect.analyzer" in loaded  # the check can fail: the detectors are there
    assert [m for m in (*NOT_IN_A_WORKER, "librosa.util.utils") if m in loaded] == []


def test_the_ingest_command_starts_workers_before_its_heavy_imports() -> None:
    # What engine.cli.ingest_cmd.run has imported when it calls _early_pool.
    loaded = _modules_after("import engine.cli.main\nimport engine.cli.ingest_cmd\nimport engine.ingest.pool")
    assert "engine.ingest.pool" in loaded
    assert [m for m in NOT_BEFORE_THE_WORKERS if m in loaded] == []


def test_the_job_s_process_imports_none_of_a_file_s_pass() -> None:
    # The job as the command and the app run it, and a worker's result unpickled in the job's process.
    loaded = _modules_after(
        "import pickle\nfrom engine.ingest.job import IngestJob\nfrom engine.ingest.messages import Done\n"
        "from engine.ingest.results import Transcript\npickle.loads(pickle.dumps(Done(0, Transcript([], [], 0.0))))"
    )
    assert "engine.search.passage_blocks" in loaded  # the check can fail: the job's own side is there
    assert [m for m in (*NOT_BEFORE_THE_MODEL, "engine.ingest.cluster", "faster_whisper", "dask") if m in loaded] == []
