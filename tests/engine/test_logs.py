"""The log file never puts its own faults in front of the user."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.logs import LogFile

REPO = Path(__file__).resolve().parents[2]


def test_a_full_disk_drops_log_lines_without_a_logging_error_block(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    log_path = tmp_path / "earshot.log"
    log_path.symlink_to("/dev/full")  # every write fails with "No space left on device"
    handler = LogFile(log_path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
    logger = logging.getLogger("earshot.test-full-disk")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        try:
            raise OSError(28, "No space left on device")
        except OSError:
            logger.error("command failed", exc_info=True)
    finally:
        logger.removeHandler(handler)
        handler.close()
    err = capsys.readouterr().err
    assert "Logging error" not in err and "Traceback" not in err, err
    assert err == ""


@pytest.mark.slow
def test_a_command_on_a_full_disk_gives_its_one_line_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True)
    (data / "logs" / "earshot.log").symlink_to("/dev/full")
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n" * 500)
    run = subprocess.run([sys.executable, str(REPO / "main.py"), "--db", str(notes), "list"], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "EARSHOT_DATA_DIR": str(data)})
    assert run.returncode == 1
    assert run.stderr == f"earshot: error: {notes}: cannot open the index: file is not a database\n"
