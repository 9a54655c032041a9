"""The ``segment`` command: train, run, eval and explain on small files."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

# engine.cli re-exports the function main, which shadows the module of the same name.
cli_main = importlib.import_module("engine.cli.main")


@pytest.fixture
def cli(monkeypatch, tmp_path):
    monkeypatch.setenv("EARSHOT_DATA_DIR", str(tmp_path / "data"))
    return cli_main.main


@pytest.fixture
def corpus(tmp_path, lee_articles):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for i in range(3):
        (folder / f"doc{i}.txt").write_text("\n\n".join(lee_articles[i * 30 : (i + 1) * 30]), encoding="utf-8")
    return folder


@pytest.mark.slow  # over 2 s
def test_train_run_eval_explain(cli, corpus, tmp_path, capsys):
    assert cli(["segment", "train", "--corpus", str(corpus), "--out", "tiny", "--no-tune"]) == 0
    out = capsys.readouterr().out
    assert "trained on 3 transcripts" in out and (tmp_path / "data/models/segmentation/tiny.npz").is_file()

    doc = corpus / "doc0.txt"
    assert cli(["segment", "run", str(doc), "--model", "tiny", "--json"]) == 0
    stories = json.loads(capsys.readouterr().out)["stories"]
    assert stories[0]["start_word"] == 0 and all(0 <= s["confidence"] <= 1 for s in stories)

    assert cli(["segment", "eval", "--corpus", str(corpus), "--model", "tiny", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert set(scores) == {"doc0.txt", "doc1.txt", "doc2.txt", "ALL"}

    out_dir = tmp_path / "explain"
    assert cli(["segment", "explain", str(doc), "--truth", str(doc), "--out", str(out_dir), "--model", "tiny"]) == 0
    assert (out_dir / "explain.json").is_file()
    assert (out_dir / "length_histogram.png").stat().st_size > 0
    assert (out_dir / "likelihood_ratio_total.png").is_file()
    data = json.loads((out_dir / "explain.json").read_text())
    assert len(data["state_path"]["true"]) == data["n_words"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["segment", "run", "nowhere.txt3"], "nowhere.txt3: no such transcript file, nor a recording in the index"),
        (["segment", "train", "--corpus", "nowhere", "--out", "x"], "nowhere: not a folder"),
        (["segment", "run", "x.txt", "--model", "missing-model"], "no such"),
    ],
    ids=["missing-recording", "missing-corpus", "missing-model"],
)
def test_bad_input_is_one_line_error(cli, capsys, argv, message):
    assert cli(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("earshot: error: ") and message in err


def test_sentence_model_trains_and_refuses_unpunctuated_input(cli, corpus, tmp_path, capsys):
    assert cli(["segment", "train", "--corpus", str(corpus), "--out", "punct", "--no-tune", "--sentences"]) == 0
    capsys.readouterr()
    doc = corpus / "doc0.txt"
    assert cli(["segment", "run", str(doc), "--model", "punct", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stories"][0]["start_word"] == 0
    bare = tmp_path / "bare.txt"
    bare.write_text(doc.read_text().lower().replace(".", "").replace("?", "").replace("!", ""))
    assert cli(["segment", "run", str(bare), "--model", "punct"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("earshot: error: ") and "needs sentence punctuation" in err


def test_shipped_model_on_text_without_times_says_why_it_finds_little(cli, corpus, capsys):
    from models.segmentation import DEFAULT_MODEL_PATH

    if not DEFAULT_MODEL_PATH.is_file():
        pytest.skip("shipped segmentation models not built")
    assert cli(["segment", "run", str(corpus / "doc0.txt"), "--json"]) == 0
    captured = capsys.readouterr()
    stories = json.loads(captured.out)["stories"]
    if len(stories) <= 1:
        assert "note: the shipped models learnt from broadcast captions" in captured.err
        assert "segment train --corpus DIR --sentences" in captured.err
    else:
        assert captured.err == ""


@pytest.mark.parametrize("command", ["eval", "train"])
def test_file_without_story_markers_is_refused_by_name(cli, corpus, capsys, command):
    (corpus / "doc9.txt").write_text("one long paragraph with no blank line between stories at all\n")
    argv = ["segment", command, "--corpus", str(corpus)] + (["--out", "x", "--no-tune"] if command == "train" else [])
    assert cli(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("earshot: error: ") and err.count("\n") == 1
    assert f"{corpus / 'doc9.txt'}: no story markers" in err


def test_train_refuses_a_corpus_of_too_few_stories(cli, tmp_path, lee_articles, capsys):
    from engine.segment import config

    folder = tmp_path / "few"
    folder.mkdir()
    for i in range(2):
        (folder / f"d{i}.txt").write_text("\n\n".join(lee_articles[i * 5 : i * 5 + 5]), encoding="utf-8")
    assert cli(["segment", "train", "--corpus", str(folder), "--out", "few", "--no-tune"]) == 1
    err = capsys.readouterr().err
    assert f"{folder}: 10 stories in 2 transcripts; training needs at least {config.MIN_TRAINING_STORIES}" in err
    assert not (tmp_path / "data/models/segmentation/few.npz").exists()


def test_eval_on_text_without_times_says_why_it_finds_little(cli, corpus, capsys):
    assert cli(["segment", "eval", "--corpus", str(corpus)]) == 0
    err = capsys.readouterr().err
    assert "note: 3 of 3 transcripts have no word times" in err and "segment train" in err


NEWSSCAPE = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "newsscape"


@pytest.mark.slow  # a whole caption day, over 2 s
def test_eval_scores_the_stories_import_stores_unless_asked_for_the_plain_hmm(cli, tmp_path, capsys):
    from engine.research.segment.experiments import score
    from engine.segment.stories import transcript_stories
    from engine.segment.text import read_transcript

    days = sorted(NEWSSCAPE.glob("*.txt3"))[:1]
    if not days:
        pytest.skip(f"shared NewsScape captions absent ({NEWSSCAPE})")
    folder = tmp_path / "day"
    folder.mkdir()
    (folder / days[0].name).write_bytes(days[0].read_bytes())
    assert cli(["segment", "eval", "--corpus", str(folder), "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)["ALL"]
    assert cli(["segment", "eval", "--corpus", str(folder), "--json", "--plain-hmm"]) == 0
    plain = json.loads(capsys.readouterr().out)["ALL"]
    day = read_transcript(folder / days[0].name)
    assert stored == score([day], [transcript_stories(day).story_starts]).as_dict()
    assert stored["boundaries"] < plain["boundaries"]  # the stored path merges commercial spots and fragments


def test_explain_refuses_an_empty_out_folder_and_writes_nothing(cli, tmp_path, monkeypatch, capsys):
    """An empty --out would have written the figures into the current folder (found by the fuzz lane)."""
    text = tmp_path / "words.txt"
    text.write_text("one story here\n", encoding="utf-8")
    truth = tmp_path / "truth.json"
    truth.write_text("[0]", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir() if p.name != "data")  # the user data folder may be made
    assert cli(["segment", "explain", str(text), "--truth", str(truth), "--out", ""]) != 0
    assert capsys.readouterr().err.strip().endswith("the folder for the figures is an empty name; give one ('.' for this folder)")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "data") == before
