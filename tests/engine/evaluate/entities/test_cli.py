"""The ``entities`` command: score, tag, train, and its error messages."""

from __future__ import annotations

import json

import pytest

REF = "AT THE <L>NEW YORK</L> DESK I'M <P>PHILIP BOROFF</P>\n"
HYP_CTM = ("rec 1 0.0 0.2 AT\nrec 1 0.2 0.2 THE\nrec 1 0.4 0.5 <L>NEWARK</L>\nrec 1 0.9 0.3 BASK\n"
           "rec 1 1.2 0.2 ON\nrec 1 1.4 0.3 <P>FILM\nrec 1 1.7 0.4 FORUM</P>\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ref.txt").write_text(REF)
    (tmp_path / "hyp.ctm").write_text(HYP_CTM)
    return tmp_path


def test_score_prints_table_and_aligned_view(cli, files, capsys):
    assert cli(["entities", "score", "--ref", str(files / "ref.txt"), "--hyp", str(files / "hyp.ctm")]) == 0
    out = capsys.readouterr().out
    assert "alignment phonetic, extent tolerance 1, mapping optimal" in out
    assert "LOCATION ~ LOCATION: type ok; extent ok; content WRONG" in out
    assert "[NEW YORK]" in out and "[NEWARK]" in out


def test_score_json_sclite_muc(cli, files, capsys):
    argv = ["entities", "score", "--ref", str(files / "ref.txt"), "--hyp", str(files / "hyp.ctm"), "--align", "sclite",
            "--muc", "--json"]
    assert cli(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["settings"]["align"] == "sclite" and set(result["components"]) == {"type", "text"}
    assert result["entities"] == {"reference": 2, "hypothesis": 2, "mapped": 2}


def test_untagged_ctm_is_tagged(cli, files, capsys):
    (files / "plain.ctm").write_text("rec 1 0 1 senator\nrec 1 1 1 john\nrec 1 2 1 mccain\n")
    (files / "ref2.txt").write_text("SENATOR <P>JOHN MCCAIN</P>")
    assert cli(["entities", "score", "--ref", str(files / "ref2.txt"), "--hyp", str(files / "plain.ctm"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["f"] == 1.0


def test_malformed_reference_is_one_line_error(cli, files, capsys):
    (files / "bad.txt").write_text("A <P>B\n<L>C</L>\n")
    assert cli(["entities", "score", "--ref", str(files / "bad.txt"), "--hyp", str(files / "hyp.ctm")]) == 1
    assert capsys.readouterr().err == f"earshot: error: {files / 'bad.txt'}:2:1: nested entity: <L> inside <P> " \
                                      "opened at line 1, column 3\n"


def test_missing_hypothesis(cli, files, capsys):
    assert cli(["entities", "score", "--ref", str(files / "ref.txt"), "--hyp", "nothing-here"]) == 1
    assert "nothing-here: neither a file nor a recording in the index" in capsys.readouterr().err


def test_tag(cli, tmp_path, capsys):
    (tmp_path / "t.txt").write_text("president bill clinton visited new york\n")
    assert cli(["entities", "tag", str(tmp_path / "t.txt")]) == 0
    assert capsys.readouterr().out.strip() == ('president <ENAMEX TYPE="PERSON">bill clinton</ENAMEX> visited '
                                               '<ENAMEX TYPE="LOCATION">new york</ENAMEX>')


def _conll_folder(tmp_path, sentence: str):
    """A CoNLL folder whose sentences are ``sentence`` filled with two made-up names and places."""
    conll = tmp_path / "conll"
    conll.mkdir()
    block = "-DOCSTART- -X- -X- O\n\n" + "".join(
        sentence.format(f=f, s=s, c=c) for f, s, c in [("Zorb", "Vantrell", "Brackton"), ("Quill", "Okafor", "Wemby")] * 10)
    (conll / "train.txt").write_text(block * 3)
    (conll / "test.txt").write_text(block)
    return conll


def test_train_and_tag_with_model(cli, tmp_path, capsys):
    conll = _conll_folder(tmp_path, "Mr NNP O O\n{f} NNP B-NP B-PER\n{s} NNP I-NP I-PER\nvisited VBD O O\n"
                                    "{c} NNP B-NP B-LOC\n. . O O\n\n")
    assert cli(["entities", "train", str(conll), "--out", "tiny", "--epochs", "2"]) == 0
    out = capsys.readouterr().out
    assert "trained on" in out and "test.txt: F 1.000" in out
    (tmp_path / "t.txt").write_text("mr zorb vantrell visited wemby")
    assert cli(["entities", "tag", str(tmp_path / "t.txt"), "--model", "tiny", "--json"]) == 0
    assert [s["text"] for s in json.loads(capsys.readouterr().out)] == ["zorb vantrell", "wemby"]


def test_train_cased_keeps_the_words_as_shown(cli, tmp_path, capsys):
    conll = _conll_folder(tmp_path, "Then RB O O\n{f} NNP B-NP B-PER\n{s} NNP I-NP I-PER\n, , O O\nin IN O O\n"
                                    "{c} NNP B-NP B-LOC\n. . O O\n\n")
    assert cli(["entities", "train", str(conll), "--out", "tiny", "--epochs", "6", "--cased"]) == 0
    assert "test.txt: F 1.000" in capsys.readouterr().out
    (tmp_path / "t.txt").write_text("Then Zorb Vantrell, in Wemby.")
    assert cli(["entities", "tag", str(tmp_path / "t.txt"), "--model", "tiny", "--json"]) == 0
    assert [s["text"] for s in json.loads(capsys.readouterr().out)] == ["Zorb Vantrell,", "Wemby."]


def test_tag_picks_the_cased_model_for_cased_text(cli, tmp_path, capsys):
    (tmp_path / "t.txt").write_text("Mayor Maria Ruiz of Chicago spoke on Tuesday.\n")
    assert cli(["entities", "tag", str(tmp_path / "t.txt"), "--json"]) == 0
    found = {(s["type"], s["text"]) for s in json.loads(capsys.readouterr().out)}
    assert ("PERSON", "Maria Ruiz") in found and ("LOCATION", "Chicago") in found


@pytest.mark.parametrize(
    ("ref_name", "ref", "hyp_name", "hyp", "names"),
    [
        ("ref.trn", "at the new york desk (a1)\n", "hyp.trn", "at the newark desk (b1)\n",
         "'utt b1', ...) is in the reference ('utt a1'"),
        ("ref.stm", "show 1 spk 0.0 2.0 at the new york desk\n", "hyp.ctm",
         "show.wav 1 0.0 0.5 at\nshow.wav 1 0.5 0.5 the\nshow.wav 1 1.0 1.0 newark\n",
         "'show.wav 1', ...) is in the reference ('show 1'"),
    ],
    ids=["trn-utterance-ids", "ctm-vs-stm-file-names"],
)
def test_names_that_never_match_are_reported(cli, tmp_path, capsys, ref_name, ref, hyp_name, hyp, names):
    (tmp_path / ref_name).write_text(ref)
    (tmp_path / hyp_name).write_text(hyp)
    assert cli(["entities", "score", "--ref", str(tmp_path / ref_name), "--hyp", str(tmp_path / hyp_name)]) == 0
    err = capsys.readouterr().err
    assert f"note: no utterance or file name of the hypothesis ({names}, ...); the whole texts were aligned" in err, err


@pytest.mark.parametrize("side", ["hyp", "ref"])
def test_a_word_too_long_to_be_a_word_is_refused_with_its_place(cli, files, capsys, side):
    giant = files / "giant.ctm"
    giant.write_text("rec 1 0.0 0.2 AT\nrec 1 0.2 0.5 " + "X" * 2000 + "\n")
    ref, hyp = (files / "ref.txt", giant) if side == "hyp" else (giant, files / "hyp.ctm")
    assert cli(["entities", "score", "--ref", str(ref), "--hyp", str(hyp)]) == 1
    assert capsys.readouterr().err == (f"earshot: error: {giant}:2:15: a word of 2000 characters, more than 100;"
                                       " is this a transcript?\n")


def test_a_word_of_the_longest_allowed_length_is_scored(cli, files, capsys):
    longest = files / "longest.ctm"
    longest.write_text("rec 1 0.0 0.2 AT\nrec 1 0.2 0.5 " + "X" * 100 + "\n")
    assert cli(["entities", "score", "--ref", str(files / "ref.txt"), "--hyp", str(longest), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["words"]["hyp_words"] == 2


def test_an_empty_reference_is_refused_not_scored(cli, files, capsys):
    empty = files / "empty.txt"
    empty.write_text("")
    assert cli(["entities", "score", "--ref", str(empty), "--hyp", str(files / "hyp.ctm")]) == 1
    assert capsys.readouterr().err == (f"earshot: error: {empty}: the reference has no words;"
                                       " there is nothing to score against\n")
