"""Stage 1: mark-up and transcript readers."""

from __future__ import annotations

import numpy as np
import pytest

from engine.entities.errors import MarkupError, TranscriptError
from engine.entities.spans import EntitySpan
from engine.evaluate.entities.markup import normalise_token, parse_marked_text
from engine.evaluate.entities.readers import detect_format, read_ctm, read_stm, read_transcript, read_trn, transcript_from_index


def test_muc_and_short_forms_read_alike():
    muc = parse_marked_text('At the <ENAMEX TYPE="LOCATION">New York</ENAMEX> desk, '
                            '<ENAMEX TYPE="PERSON">Philip Boroff</ENAMEX> reports.')
    short = parse_marked_text("AT THE <L>NEW YORK</L> DESK <p>PHILIP BOROFF</P> REPORTS")
    assert muc.words == short.words == ["AT", "THE", "NEW", "YORK", "DESK", "PHILIP", "BOROFF", "REPORTS"]
    assert [(e.type, e.first_word, e.last_word) for e in muc.entities] == [("LOCATION", 2, 3), ("PERSON", 5, 6)]
    assert muc.entities == short.entities


def test_timex_numex_and_full_type_tags():
    t = parse_marked_text('<TIMEX TYPE="DATE">Tuesday</TIMEX> <NUMEX TYPE="MONEY">$5 million</NUMEX> '
                          "<ORGANIZATION>NATO</ORGANIZATION>")
    assert [e.type for e in t.entities] == ["DATE", "MONEY", "ORGANIZATION"]
    assert t.words == ["TUESDAY", "5", "MILLION", "NATO"]


@pytest.mark.parametrize(("token", "lexemes"), [
    ("Gingrich's,", ["GINGRICH'S"]), ("forty-two", ["FORTY", "TWO"]), ("{breath}", []), ("[noise]", []),
    ("--", []), ("'quoted'", ["QUOTED"]), ("U.S.", ["U", "S"]),
], ids=["possessive", "hyphen", "breath", "noise", "dash", "quotes", "initials"])
def test_normalise_token(token, lexemes):
    assert normalise_token(token) == lexemes


def test_segment_times_spread_over_words():
    t = parse_marked_text('<Segment S_time="10.0" E_time="12.0">ab ab</Segment>\n<Sync Time="20"/> cd')
    assert np.allclose(t.starts, [10.0, 11.0, 20.0]) and np.allclose(t.ends[:2], [11.0, 12.0])
    assert t.segment_first == [0, 2]


@pytest.mark.parametrize(("text", "message"), [
    ("A <P>B <L>C</L></P>", "<text>:1:8: nested entity: <L> inside <P> opened at line 1, column 3"),
    ("A\n  <P>B C", "<text>:2:3: unclosed entity <P>"),
    ("A B</L>", "<text>:1:4: </L> closes no open entity"),
    ("<P>A</O>", "<text>:1:5: </O> does not close <P> opened at line 1, column 1"),
    ('X\n<ENAMEX TYPE="PERSN">A</ENAMEX>', "<text>:2:1: unknown entity type 'PERSN' in <ENAMEX TYPE=\"PERSN\"> "
                                           "(known: PERSON, LOCATION, ORGANIZATION)"),
    ('<TIMEX TYPE="PERSON">A</TIMEX>', "<text>:1:1: unknown entity type 'PERSON' in <TIMEX TYPE=\"PERSON\"> "
                                      "(known: DATE, TIME)"),
    ("<ENAMEX>A</ENAMEX>", "<text>:1:1: <ENAMEX> has no TYPE attribute"),
    ("A <X>B</X>", "<text>:1:3: unknown tag <X>"),
    ("<P></P> A", "<text>:1:1: entity <P> has no words"),
    ("A < B", "<text>:1:3: stray or unterminated angle bracket near '< B'"),
    ("<COMMENT> A", "<text>:1:1: unclosed <COMMENT>"),
    ('<Segment S_time="inf" E_time="inf">A</Segment>',
     '<text>:1:1: times in <Segment S_time="inf" E_time="inf"> are not finite numbers'),
    ('<Sync Time="nan"/> A', '<text>:1:1: times in <Sync Time="nan"/> are not finite numbers'),
], ids=["nested", "unclosed", "close-without-open", "mismatched-close", "unknown-type", "wrong-element",
        "no-type", "unknown-tag", "empty", "stray-bracket", "unclosed-comment", "infinite-time", "nan-time"])
def test_malformed_markup(text, message):
    with pytest.raises(MarkupError) as info:
        parse_marked_text(text)
    assert str(info.value) == message


def test_ctm_with_short_tags_and_confidence():
    t = read_ctm("rec 1 0.50 0.20 <P>NEWT 0.9\nrec 1 0.70 0.40 GINGRICH</P>\n;; comment\nrec 1 1.2 0.3 said\n")
    assert t.words == ["NEWT", "GINGRICH", "SAID"] and t.entities == [EntitySpan("PERSON", 0, 1, "NEWT GINGRICH")]
    assert np.allclose(t.starts, [0.5, 0.7, 1.2]) and np.allclose(t.ends, [0.7, 1.1, 1.5]) and t.timed


def test_bad_ctm_line():
    with pytest.raises(TranscriptError, match=r"x.ctm:2: not a CTM line"):
        read_ctm("rec 1 0.5 0.2 A\nrec 1 zero 0.2 B\n", "x.ctm")


def test_times_that_overflow_are_refused_with_their_line():
    with pytest.raises(TranscriptError, match=r"^x.ctm:2: times are not finite numbers: 'rec 1 1e999 0.2 B'$"):
        read_ctm("rec 1 0.5 0.2 A\nrec 1 1e999 0.2 B\n", "x.ctm")
    with pytest.raises(TranscriptError, match=r"^x.stm:1: times are not finite numbers: 'rec 1 spk 0 1e400 A'$"):
        read_stm("rec 1 spk 0 1e400 A\n", "x.stm")


def test_a_line_of_a_million_digits_is_refused_in_one_line():
    # Each number matches one way: a pattern that could split a run of digits anywhere took time
    # quadratic in its length (hours for this line) before it said no.
    digits = "1" * 1_000_000
    with pytest.raises(TranscriptError, match=r"^x.ctm:1: not a CTM line"):
        read_ctm(f"rec 1 {digits} x\n", "x.ctm")
    with pytest.raises(TranscriptError, match=r"^x.stm:1: not an STM line"):
        read_stm(f"rec 1 spk {digits}x 0 A\n", "x.stm")


def test_stm_segments_and_markup_errors_name_the_line():
    t = read_stm("rec 1 spk 0.0 2.0 <o,f0,male> THE <L>WHITE HOUSE</L>\nrec 1 spk 2.0 3.0 SAID\n")
    assert t.words == ["THE", "WHITE", "HOUSE", "SAID"] and t.entities[0].type == "LOCATION"
    assert np.isclose(t.starts[3], 2.0) and t.segment_first == [0, 3]
    with pytest.raises(MarkupError, match=r"^r.stm:2:\d+: unclosed entity <P>$"):
        read_stm("rec 1 spk 0 1 A\nrec 1 spk 1 2 <P>B\n", "r.stm")


def test_trn_units():
    t = read_trn("<P>NEWT GINGRICH</P> (spk-1)\nSAID IT (spk-2)\n")
    assert t.units == ["utt spk-1"] * 2 + ["utt spk-2"] * 2


def test_detect_format(tmp_path):
    assert detect_format(tmp_path / "a.ctm", "") == "ctm"
    assert detect_format(tmp_path / "a", "rec 1 0.5 0.2 A\n") == "ctm"
    assert detect_format(tmp_path / "a", "A B (u1)\n") == "trn"
    assert detect_format(tmp_path / "a", "rec 1 spk 0.0 1.0 A B\n") == "stm"
    assert detect_format(tmp_path / "a", "<P>A</P>\n") == "sgml"
    with pytest.raises(TranscriptError, match="cannot read"):
        read_transcript(tmp_path / "missing.txt")


def test_transcript_from_index():
    words = [{"start": 0.0, "end": 0.4, "conf": 0.9, "text": "newt"}, (0.4, 0.6, 0.5, "[noise]"),
             {"start": 0.6, "end": 1.0, "conf": 0.8, "text": "gingrich's"}]
    t = transcript_from_index(words, [{"type": "PERSON", "first_word": 0, "last_word": 2, "score": 0.7}])
    assert t.words == ["NEWT", "GINGRICH'S"] and t.entities == [EntitySpan("PERSON", 0, 1, "NEWT GINGRICH'S", 0.7)]
    assert np.allclose(t.starts, [0.0, 0.6])
    with pytest.raises(TranscriptError, match=r"entity PERSON over words 2\.\.5 lies outside the 3 words"):
        transcript_from_index(words, [{"type": "PERSON", "first_word": 2, "last_word": 5}])


def test_positions_match_counting_newlines_from_the_start(rng) -> None:
    from engine.evaluate.entities.markup import _Positions

    text = "".join(rng.choice(list("ab \n<>"), size=2000))
    where = _Positions(text, 3, 5)
    for index in rng.integers(0, len(text), size=200):
        newlines = text.count("\n", 0, index)
        naive = (3, 5 + index) if newlines == 0 else (3 + newlines, index - text.rfind("\n", 0, index))
        assert where(int(index)) == naive
