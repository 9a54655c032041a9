"""``speakers``, ``show`` and ``export`` with speakers, and ``eval der``, run in process on a real index file."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from engine.storage.store import Store
from tests.engine.storage.test_speakers import two_voices

# engine.cli re-exports the function main, which shadows the module of the same name.
cli_main = importlib.import_module("engine.cli.main")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "lib.sqlite"
    with Store(path) as store:
        store.save_recording(two_voices())
    return path


def run(db: Path, *args: str) -> int:
    return int(cli_main.main(["--db", str(db), *args]))


def test_speakers_lists_labels_names_talk_time_and_turns(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "speakers", "talk.wav") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "talk.wav: 2 speakers"
    assert out[2].split() == ["S1", "0:03", "60.0%", "1", "3", "Speaker", "1"]
    assert out[3].split()[0] == "S2" and out[3].endswith("Speaker 2")


def test_a_rename_shows_in_show_and_export(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "speakers", "rename", "talk.wav", "S2", "Ann Lee") == 0
    assert capsys.readouterr().out == "talk.wav: S2 is now Ann Lee\n"
    assert run(db, "show", "talk.wav") == 0
    lines = capsys.readouterr().out.splitlines()[2:]
    assert lines[0].endswith("Speaker 1: good evening everyone")
    assert lines[1].endswith("clap Ann Lee: thank you")
    assert run(db, "export", "talk.wav", "--format", "vtt") == 0
    assert "<v Ann Lee>thank you" in capsys.readouterr().out
    assert run(db, "export", "talk.wav", "--format", "rttm") == 0
    assert capsys.readouterr().out.splitlines()[1] == "SPEAKER talk 1 4.000 2.000 <NA> <NA> Ann_Lee <NA> <NA>"


def test_a_merge_leaves_one_speaker(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "speakers", "merge", "talk.wav", "1", "S2") == 0
    assert capsys.readouterr().out == "talk.wav: S2 merged into S1\n"
    assert run(db, "speakers", "talk.wav") == 0
    assert capsys.readouterr().out.splitlines()[0] == "talk.wav: 1 speaker"


@pytest.mark.parametrize(("args", "error"), [
    pytest.param(["rename", "talk.wav", "S7", "X"],
                 "S7: no such speaker in recording 1 (speakers: S1 (Speaker 1), S2 (Speaker 2))", id="unknown-label"),
    pytest.param(["rename", "talk.wav", "S1"], "speakers rename: give REC LABEL NAME (got 2 arguments)", id="no-name"),
    pytest.param(["rename", "talk.wav", "S1", " "], "a speaker's name cannot be empty", id="empty-name"),
    pytest.param(["merge", "talk.wav", "S1", "S1"], "S1: cannot merge a speaker with itself", id="merge-self"),
    pytest.param(["nosuch.wav"], "nosuch.wav: no such recording in the index (see 'earshot list')", id="unknown-recording"),
    pytest.param(["talk.wav", "--count", "2", "--estimate"], "speakers: give --count N or --estimate, not both",
                 id="count-and-estimate"),
    pytest.param(["talk.wav", "--count", "2"], "/r/talk.wav: file not found; speakers are found from the audio",
                 id="recount-without-the-file"),
])
def test_bad_speaker_commands_say_why_in_one_line(db: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                                  error: str) -> None:
    assert run(db, "speakers", *args) == 1
    assert capsys.readouterr().err == f"earshot: error: {error}\n"


def test_eval_der_prints_the_rate_and_its_components(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text("SPEAKER a 1 0.0 10.0 <NA> <NA> ann <NA> <NA>\nSPEAKER a 1 10.0 10.0 <NA> <NA> bob <NA> <NA>\n")
    hyp.write_text("SPEAKER a 1 0.0 15.0 <NA> <NA> x <NA> <NA>\nSPEAKER a 1 15.0 5.0 <NA> <NA> y <NA> <NA>\n")
    assert cli_main.main(["eval", "der", str(ref), str(hyp), "--collar", "0"]) == 0
    row = capsys.readouterr().out.splitlines()[1].split()
    assert row == ["a", "25.0%", "0.0%", "0.0%", "25.0%", "20.0"]


def test_eval_der_refuses_a_reference_without_turns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.rttm"
    empty.write_text("")
    assert cli_main.main(["eval", "der", str(empty), str(empty)]) == 1
    assert capsys.readouterr().err == f"earshot: error: {empty}: no SPEAKER lines; nothing to score against\n"


def test_ingest_refuses_a_speaker_count_with_speakers_off(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(db, "ingest", "x.wav", "--speakers", "2", "--no-speakers") == 1
    assert capsys.readouterr().err == "earshot: error: --speakers N and --no-speakers contradict each other; give one\n"
