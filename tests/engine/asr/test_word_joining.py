"""Whisper's sub-word pieces joined into written words; genuine repetition kept (no model needed)."""

from __future__ import annotations

import pytest

from engine.asr import Word
from engine.asr.whisper_engine import drop_loops, drop_repeats, join_pieces

# faster-whisper's word list for espeak-ng reading "The U.S. government paid $5,000 to a
# 26-year-old man." and "He said it was self-sustaining." with tiny.en (start, end, word, probability).
_PIECES = [(0.0, 0.22, " The", 0.14), (0.22, 0.32, " U", 0.18), (0.32, 0.68, ".S.", 0.99),
           (0.98, 0.98, " government", 0.88), (0.98, 1.54, " paid", 0.95), (1.54, 2.38, " $5", 0.75),
           (2.38, 2.8, ",000", 0.94), (2.8, 2.9, " to", 0.78), (2.9, 3.26, " a", 0.58), (3.26, 3.56, " 26", 0.56),
           (3.56, 4.1, "-year", 0.86), (4.1, 4.4, "-old", 0.92), (4.4, 4.78, " man.", 0.89),
           (5.0, 5.3, " He", 0.56), (5.3, 5.5, " said", 0.99), (5.5, 5.6, " it", 0.95), (5.6, 5.9, " was", 0.98),
           (5.9, 6.2, " self", 1.0), (6.2, 6.8, "-sustaining.", 0.75)]


def test_pieces_without_a_leading_space_join_the_word_before() -> None:
    from faster_whisper.transcribe import Word as Piece

    words = join_pieces([Piece(*p) for p in _PIECES])
    assert [w.display for w in words] == ["The", "U.S.", "government", "paid", "$5,000", "to", "a", "26-year-old",
                                          "man.", "He", "said", "it", "was", "self-sustaining."]
    assert [w.text for w in words][1:8] == ["u.s", "government", "paid", "5000", "to", "a", "26-year-old"]
    us, old = words[1], words[7]
    assert (us.start, us.end, us.conf) == (0.22, 0.68, pytest.approx((0.18 + 0.99) / 2))
    assert (old.start, old.end, old.conf) == (3.26, 4.4, pytest.approx((0.56 + 0.86 + 0.92) / 3))


def test_pieces_of_unspaced_scripts_stay_words() -> None:
    from faster_whisper.transcribe import Word as Piece

    words = join_pieces([Piece(0.0, 0.3, "東京", 0.9), Piece(0.3, 0.5, "に", 0.8), Piece(0.5, 0.9, "行く", 0.7)])
    assert [w.display for w in words] == ["東京", "に", "行く"]


def test_repetition_of_up_to_four_is_kept_and_loops_beyond_are_cut() -> None:
    def ws(text: str) -> list[Word]:
        return [Word(i, i + 0.5, 0.9, t) for i, t in enumerate(text.split())]

    assert [w.text for w in drop_repeats(ws("words words words words"))] == ["words"] * 4
    assert [w.text for w in drop_repeats(ws("very good very good very good very good"))] == ["very", "good"] * 4
    assert [w.text for w in drop_repeats(ws("no " * 9 + "more"))] == ["no"] * 4 + ["more"]
    assert len(drop_repeats(ws("a b c d " * 6))) == 16


def test_an_alternating_loop_is_cut_and_speech_with_few_words_is_kept() -> None:
    def ws(text: str) -> list[Word]:
        return [Word(i, i + 0.5, 0.9, t) for i, t in enumerate(text.split())]

    # the loop base wrote on an Asterisk prompt under white noise at 0 dB: no n-gram repeats exactly
    loop = "upper 10 40 5 40 6 right 3 4 3 4 3 4 " + "4 3 4 4 3 4 4 4 3 4 4 3 " * 5
    assert drop_repeats(ws(loop)) == ws(loop)
    assert [w.text for w in drop_loops(ws(loop + "number"))] == [
        "upper", "10", "40", "5", "40", "6", "right", "3", "4", "3", "4", "number"]
    kept = ws("a b c d " * 6 + "one two three one two three one two three one two three one two three")
    assert drop_loops(kept) == kept  # four words in turn; fifteen of three, shorter than a loop
    sentence = ws("the vote is on the bill and the bill is on the table and the vote is in")
    assert drop_loops(sentence) == sentence
    assert [w.text for w in drop_loops(ws("ha " * 20))] == ["ha"] * 4
