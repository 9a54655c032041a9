"""The command line as a user runs it: real processes, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.storage.store import EventRow, NewRecording, Store, WordRow
from models.manager import ModelManager, embedded_default
from tests.fixtures.audio import espeak

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]


def earshot(*args: str, db: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, str(REPO / "main.py")]
    if db is not None:
        argv += ["--db", str(db)]
    return subprocess.run([*argv, *args], capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=300)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("rec")
    espeak("The minister announced a new railway line to the northern coast.", d / "rail.wav")
    espeak("Thousands of fans welcomed the football team at the airport.", d / "football.wav", voice="en-gb")
    (d / "broken.mp3").write_bytes(b"ID3" + os.urandom(2000))
    return d


def test_ingest_then_list_show_search_export(tmp_path: Path, recordings: Path) -> None:
    db = tmp_path / "lib.sqlite"
    run = earshot("ingest", "--workers", "2", str(recordings), db=db)
    assert run.returncode == 1, run.stderr  # one bad file in the folder
    failed = [line for line in run.stderr.splitlines() if line.startswith("FAILED")]
    assert failed == [f"FAILED   {recordings / 'broken.mp3'}: not a recognised audio or video file"]
    assert "Warning" not in run.stderr and "leaked" not in run.stderr, run.stderr  # workers end cleanly
    assert "2 transcribed, 0 unchanged, 1 failed" in run.stdout
    default = embedded_default(ModelManager().installed())
    assert default is not None and f"model {default.name}" in run.stdout  # the embedded default: no download, no note

    listing = json.loads(earshot("list", "--json", db=db).stdout)
    assert sorted(r["name"] for r in listing) == ["football.wav", "rail.wav"]

    show = earshot("show", "rail.wav", db=db)
    assert show.returncode == 0 and f"whisper/{default.name}, language en" in show.stdout
    assert re.search(r"The [Mm]inister announced", show.stdout), show.stdout  # shown as Whisper wrote it, cased
    words = earshot("show", "rail.wav", "--words", db=db).stdout.splitlines()[2:]
    assert len(words) >= 5 and all(len(line.split()) == 4 for line in words)

    # Search for the longest word recognised in rail.wav that football.wav lacks.
    rail = {line.split()[3] for line in words}
    football = {line.split()[3] for line in earshot("show", "football.wav", "--words", db=db).stdout.splitlines()[2:]}
    term = max(rail - football, key=len)
    hits = json.loads(earshot("search", term, "--json", db=db).stdout)
    assert [h["name"] for h in hits] == ["rail.wav"], (term, hits)
    assert f"[{term}]" in hits[0]["snippet"]

    # Story segmentation re-run from the index uses ingest's X-duration and transcribed flags: same stories.
    stories = json.loads(earshot("segment", "run", "rail.wav", "--json", db=db).stdout)["stories"]
    shown = earshot("show", "rail.wav", "--stories", db=db).stdout
    assert f"\n{len(stories)} stories:" in shown, (stories, shown)
    for story in stories:
        assert " ".join(story["preview"].split()[:4]) in shown.lower(), (story, shown)  # shown cased

    srt = earshot("export", "rail.wav", "--format", "srt", db=db).stdout
    assert srt.startswith("1\n00:00:0") and " --> " in srt
    out = tmp_path / "rail.json"
    assert earshot("export", "rail.wav", "--format", "json", "-o", str(out), db=db).returncode == 0
    doc = json.loads(out.read_text())
    assert doc["recording"]["engine"] == "whisper" and len(doc["words"]) >= 5

    again = earshot("ingest", str(recordings / "rail.wav"), db=db)
    assert again.returncode == 0 and "0 transcribed, 1 unchanged, 0 failed" in again.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param(["show", "nope.wav"], 1, "earshot: error: nope.wav: no such recording in the index", id="unknown-rec"),
        pytest.param(["export", "1", "--format", "doc"], 2, "argument --format: invalid choice: 'doc'", id="bad-format"),
        pytest.param(["ingest", "--workers", "0", "x.wav"], 2, "argument --workers: must be at least 1, got 0", id="workers-0"),
        pytest.param(["ingest", "--workers", "two", "x.wav"], 2, "expected a whole number, got 'two'", id="workers-text"),
        pytest.param(["frobnicate"], 2, "invalid choice: 'frobnicate'", id="unknown-command"),
        pytest.param(["ingest", "--model", "vosk-model-xx", "x.wav"], 1, "vosk-model-xx", id="unknown-model"),
        pytest.param(["models", "download", "no-such-model"], 1, "no-such-model", id="download-unknown"),
    ],
)
def test_bad_arguments_give_one_line_and_nonzero_exit(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    run = earshot(*args, db=tmp_path / "lib.sqlite")
    assert run.returncode == code, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("earshot: error: ") and message in lines[0], run.stderr


def test_a_bad_index_file(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("shopping list\n" * 500)
    run = earshot("list", db=bad)
    assert run.returncode == 1
    assert run.stderr.strip() == f"earshot: error: {bad}: cannot open the index: file is not a database"


def test_export_to_an_unwritable_place_leaves_nothing(tmp_path: Path, recordings: Path) -> None:
    db = tmp_path / "lib.sqlite"
    assert earshot("ingest", str(recordings / "rail.wav"), db=db).returncode == 0
    target = tmp_path / "missing-folder" / "out.srt"
    run = earshot("export", "rail.wav", "-o", str(target), db=db)
    assert run.returncode == 1
    assert run.stderr.strip().startswith(f"earshot: error: {target}: cannot write")
    assert not target.parent.exists()


def test_models_use_and_vosk_ingest(tmp_path: Path, ko_model, recordings: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "lib.sqlite"
    use = earshot("models", "use", ko_model.path, "--name", "korean-small")
    assert use.returncode == 0, use.stderr
    assert "korean-small" in earshot("models", "list").stdout
    wav = espeak("오늘 날씨가 좋습니다", tmp_path / "ko.wav", voice="ko", speed=175)
    run = earshot("ingest", str(wav), db=db)
    assert run.returncode == 0, run.stderr
    rec = Store(db).recording("ko.wav")
    assert (rec["engine"], rec["model"]) == ("vosk", "korean-small")
    assert earshot("models", "remove", "korean-small").returncode == 0
    assert Path(ko_model.path).exists()  # a linked folder is never deleted


def test_show_events_gives_speech_rate_in_words_per_minute(tmp_path: Path) -> None:


    db = tmp_path / "lib.sqlite"
    words = [WordRow(i * 0.5, i * 0.5 + 0.4, 0.9, f"w{i}") for i in range(12)]
    Store(db).save_recording(NewRecording(
        "/r/fast.wav", "fast.wav", "h", 100, 6.0, 16000, 1, "pcm_s16le", "wav", "vosk", "m", "en", words,
        [(0, 11)], events=[EventRow("fast", 1.0, 4.0, 1.4, 6.25)]))
    done = earshot("show", "fast", "--events", db=db)
    assert done.returncode == 0, done.stderr
    assert "0:01.00 - 0:04.00  fast        score 1.40  6.2 syllables/s, 120 words/min" in done.stdout
