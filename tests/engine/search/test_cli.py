"""The ``search`` and ``eval`` commands on a real index file."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.search import transcript_text
from engine.storage.store import Store

from .conftest import add_recording

# engine.cli re-exports the function main, which shadows the module of the same name.
cli_main = importlib.import_module("engine.cli.main")

STORY = "Fishermen protested against the new quota in the northern harbour port on Monday morning."
FILLER = "market shares bank minister court judge election vote police fire " * 12


@pytest.fixture
def cli():
    return cli_main.main


def transcript_text_of(db) -> str:
    with Store(db) as store:
        return transcript_text(store, 1)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "lib.sqlite"
    with Store(path) as store:
        rid = add_recording(store, "2006-06-13_harbour.wav", FILLER + STORY + " " + FILLER)
        add_recording(store, "2006-06-14_court.wav", FILLER + FILLER)
        text = transcript_text(store, rid)
    start = text.index("Fishermen")
    (tmp_path / "qrels").write_text(f"T1 2006-06-13_harbour.wav {start} {len(STORY)}\n")
    (tmp_path / "topics").write_text("T1\tfishermen quota\n# a comment\n")
    return path


def test_search_prints_time_score_and_marked_snippet(cli, db, capsys):
    assert cli(["--db", str(db), "search", "fishermen quota", "--limit", "3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("2006-06-13_harbour.wav  ") and "[Fishermen]" in first and "[quota]" in first


@pytest.mark.parametrize("model", ["mm", "tfidf", "ql", "rmp", "rmd", "qwd"])
def test_search_json_for_every_model(cli, db, capsys, model):
    assert cli(["--db", str(db), "search", "fishermen quota harbour", "--model", model, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["name"] == "2006-06-13_harbour.wav" and hits[0]["model"] == model
    assert {"start", "end", "score", "snippet", "char_start", "char_end", "events", "features"} <= set(hits[0])


def test_search_filters_and_no_match(cli, db, capsys):
    assert cli(["--db", str(db), "search", "court judge", "--recording", "2006-06-14_court.wav", "--json"]) == 0
    assert {h["name"] for h in json.loads(capsys.readouterr().out)} == {"2006-06-14_court.wav"}
    assert cli(["--db", str(db), "search", "court judge", "--from", "2006-06-14", "--to", "2006-06-14", "--json"]) == 0
    assert {h["name"] for h in json.loads(capsys.readouterr().out)} == {"2006-06-14_court.wav"}
    assert cli(["--db", str(db), "search", "zebra"]) == 0
    assert "no matches for 'zebra'" in capsys.readouterr().out


def test_eval_run_passages_and_compare(cli, db, tmp_path, capsys):
    for model in ("mm", "ql"):
        assert cli(["--db", str(db), "eval", "run", str(tmp_path / "topics"), "-o", str(tmp_path / model),
                    "--model", model]) == 0
    assert "for 1 topics" in capsys.readouterr().out
    assert cli(["eval", "passages", str(tmp_path / "mm"), str(tmp_path / "qrels"), "--per-topic"]) == 0
    out = capsys.readouterr().out
    assert "1 judged topics" in out and "rprec" in out and "T1\t" in out
    assert cli(["eval", "passages", str(tmp_path / "mm"), str(tmp_path / "qrels"), "--json"]) == 0
    means = json.loads(capsys.readouterr().out)["means"]
    assert set(means) == {"psg_rprec", "prec@12000", "bpref@12000", "rprec", "bpref@R", "cap"}
    # The story (R = 89 characters) lies inside the first hit, after `before` others.
    _, _, offset, length, *_ = (tmp_path / "mm").read_text().split("\n")[0].split()
    story_at = transcript_text_of(db).index("Fishermen")
    before = story_at - int(offset)
    assert before > 0 and before + 89 <= int(length)
    assert means["psg_rprec"] == pytest.approx(89 / int(length)) and means["rprec"] == 0.0
    assert means["cap"] == pytest.approx(sum(i / (before + i) for i in range(1, 90)) / 89)
    assert cli(["eval", "compare", str(tmp_path / "mm"), str(tmp_path / "ql"), "--qrels", str(tmp_path / "qrels")]) == 0
    out = capsys.readouterr().out
    assert "two-tailed paired t-tests" in out and "| run | cap |" in out
    assert cli(["--db", str(db), "eval", "run", str(tmp_path / "topics"), "-o", str(tmp_path / "sec"),
                "--units", "seconds"]) == 0
    capsys.readouterr()
    assert cli(["eval", "passages", str(tmp_path / "sec"), str(tmp_path / "qrels"), "--units", "seconds", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["units"] == "seconds"


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["search", "x", "--model", "bm25"], 2, "invalid choice"),
        (["eval", "passages", "absent-run", "absent-qrels"], 1, "absent-run: cannot read run"),
        (["eval", "compare", "r1", "--qrels", "q"], 1, "q: cannot read judgement"),
        (["search", "x", "--from", "June"], 1, "dates are YYYY-MM-DD"),
        (["search", "x", "--recording", "nope.wav"], 1, "nope.wav: no such recording"),
    ],
    ids=["unknown-model", "missing-run", "missing-run-in-compare", "bad-date", "unknown-recording"],
)
def test_bad_usage_is_one_line(cli, db, capsys, argv, code, message):
    assert cli(["--db", str(db), *argv]) == code
    assert message in capsys.readouterr().err


def test_search_json_gives_matched_word_times_and_explains_misses(cli, db, capsys):
    assert cli(["--db", str(db), "search", "quota", "--json"]) == 0
    hit = json.loads(capsys.readouterr().out)[0]
    assert [m["text"] for m in hit["matches"]] == ["quota"]
    assert hit["play_from"] == pytest.approx(max(hit["start"], hit["matches"][0]["start"] - 1.0))
    assert cli(["--db", str(db), "search", "the fishermn"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "ignored “the” (too common to search for); “fishermn” is not in any transcript" \
                     " — did you mean “fishermen”?"
    assert out[1] == "no matches for 'the fishermn'"


#: What a command-line search must not load: recognisers, detectors, the JIT and SciPy cost it a second of CPU;
#: Qt, sqlite-utils (the index's writes and migrations) and multiprocessing (a bundled app's workers) a tenth more.
NOT_FOR_SEARCH = ("scipy", "numba", "faster_whisper", "ctranslate2", "onnxruntime", "engine.detect", "engine.asr",
                  "sklearn", "rich", "PySide6", "sqlite_utils", "multiprocessing", "engine.search.passage_blocks")


def test_a_command_line_search_loads_no_recogniser_detector_scipy_or_writer(db):
    """``main.py search`` run as a script, as a shell runs it: what is loaded when the command returns."""
    probe = ("import runpy, sys; "
             f"sys.argv = ['main.py', '--db', {str(db)!r}, 'search', 'budget']\n"
             "try:\n    runpy.run_path('main.py', run_name='__main__')\n"
             "except SystemExit as stop:\n"
             f"    print(stop.code, [m for m in {NOT_FOR_SEARCH!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[3])
    assert done.stdout.splitlines()[-1] == "0 []"
