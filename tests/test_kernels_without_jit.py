"""The numba kernels' bodies run as plain Python (``NUMBA_DISABLE_JIT=1``) against their slow twins.

Compiled, a kernel's lines are invisible to coverage and to a Python traceback; with the JIT off
the same comparison tests walk every line of every kernel as Python. They run in a child pytest,
since numba reads the variable once, at import.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent

#: The tests that compare each kernel with its twin in ``tests/engine/<area>/naive.py``.
KERNEL_TESTS = (
    "tests/engine/detect/test_kernels.py",
    "tests/engine/evaluate/rasch/test_kernels.py",
    "tests/engine/segment/test_kernels.py",
    "tests/engine/evaluate/entities/test_align.py",
    "tests/engine/entities/test_tagger.py::test_viterbi_kernel_matches_brute_force",
    "tests/engine/entities/test_tagger.py::test_training_kernel_matches_its_slow_twin",
    "tests/engine/entities/test_tagger.py::test_training_kernel_on_one_token_learns_its_tag",
)


def _without_jit(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)


def test_kernels_are_plain_python_with_the_jit_off() -> None:
    probe = ("from engine.entities.tagger._kernels import _train; "
             "print(hasattr(_train, 'py_func'), type(_train).__name__)")
    done = _without_jit("-c", probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "function"]


def test_kernel_tests_pass_with_the_jit_off() -> None:
    done = _without_jit("-m", "pytest", "-q", "-p", "no:cacheprovider", *KERNEL_TESTS)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
