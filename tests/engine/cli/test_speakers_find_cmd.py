"""``speakers find``: a speaker's voice in the other recordings, run in process on a real index file."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from engine.storage.store import Store
from tests.engine.speakers.test_find import recording, unit

cli_main = importlib.import_module("engine.cli.main")


@pytest.fixture
def db(tmp_path: Path, rng: np.random.Generator) -> Path:
    a = unit(rng)
    path = tmp_path / "lib.sqlite"
    with Store(path) as store:
        store.save_recording(recording("/r/one.wav", [a, unit(rng)]))
        store.save_recording(recording("/r/two.wav", [unit(rng), unit(rng, 4 * a, noise=0.05), None]))
        store.rename_speaker(2, 2, "Ann Lee")
    return path


def run(db: Path, *args: str) -> int:
    return int(cli_main.main(["--db", str(db), *args]))


def test_find_prints_the_matches_most_similar_first(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "speakers", "find", "one.wav", "S1") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "one.wav S1 (Speaker 1): 1 speaker of other recordings, most similar voice first"
    assert out[2].split()[1:] == ["2", "S2", "0:20", "0:06", "two.wav:", "Ann", "Lee"]
    assert float(out[2].split()[0]) > 0.9


def test_find_all_lists_every_other_speaker_with_a_profile(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "speakers", "find", "two.wav", "Ann Lee", "--all") == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in out[2:]] == ["S1", "S2"]
    assert out[2].endswith("one.wav: Speaker 1")


def test_find_says_when_no_voice_is_alike(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "speakers", "find", "one.wav", "2", "--threshold", "0.99") == 0
    assert capsys.readouterr().out == "one.wav S2 (Speaker 2): no voice like it in the other recordings\n"


@pytest.mark.parametrize(("args", "error"), [
    pytest.param(["find", "nosuch.wav", "S1"], "nosuch.wav: no such recording in the index (see 'earshot list')",
                 id="unknown-recording"),
    pytest.param(["find", "one.wav", "S9"],
                 "S9: no such speaker in recording 1 (speakers: S1 (Speaker 1), S2 (Speaker 2))", id="unknown-label"),
    pytest.param(["find", "two.wav", "S3"], "S3 of recording 2 has no voice profile (its speakers were stored without "
                 "embeddings); find them again: 'earshot speakers REC --estimate'", id="no-centroid"),
    pytest.param(["find", "one.wav", "S1", "--threshold", "2"],
                 "--threshold must be a cosine similarity from -1 to 1, got 2.0", id="threshold-out-of-range"),
    pytest.param(["find", "one.wav"], "speakers find: give REC LABEL (got 1 arguments)", id="no-label"),
    pytest.param(["one.wav", "--all"], "speakers: --threshold and --all go with 'earshot speakers find REC LABEL'",
                 id="all-without-find"),
    pytest.param(["rename", "one.wav", "S1", "X", "--threshold", "0.5"],
                 "speakers rename: --threshold and --all go with 'earshot speakers find'", id="threshold-with-rename"),
])
def test_bad_find_commands_say_why_in_one_line(db: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                               error: str) -> None:
    before = db.read_bytes()
    assert run(db, "speakers", *args) == 1
    assert capsys.readouterr().err == f"earshot: error: {error}\n"
    assert db.read_bytes() == before
