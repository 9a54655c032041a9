"""Exports by sentence: subtitle cues and plain text."""

from __future__ import annotations

from typing import Any

import pytest

from engine import config
from engine.export import WrittenWord, export_transcript, split_sentences, subtitle_cues, written_words


def _rows(text: str, *, step: float = 0.4) -> list[dict[str, Any]]:
    """Words rows as the store returns them, one every ``step`` s, display as given."""
    return [{"idx": i, "start": i * step, "end": i * step + step * 0.8, "conf": 0.9,
             "text": t.lower().strip(".,!?"), "display": t} for i, t in enumerate(text.split())]


def test_legacy_pieces_are_one_written_word_from_first_start_to_last_end() -> None:
    words = written_words(_rows("a 26 -year -old man"))
    assert [w.text for w in words] == ["a", "26-year-old", "man"]
    assert (words[1].start, words[1].end) == (0.4, pytest.approx(1.52))


def test_sentences_end_at_full_stops_but_not_after_initials_or_titles() -> None:
    words = written_words(_rows("Mr. Lee left the U.S. Senate. Did he? Yes! “Quite.” Then silence"))
    assert [" ".join(w.text for w in s) for s in split_sentences(words)] == \
        ["Mr. Lee left the U.S. Senate.", "Did he?", "Yes!", "“Quite.”", "Then silence"]


def test_a_long_pause_ends_a_sentence_without_punctuation() -> None:
    later = 1.0 + config.SENTENCE_PAUSE_SECONDS
    words = [WrittenWord(0.0, 0.5, "so"), WrittenWord(0.6, 1.0, "then"), WrittenWord(later, later + 1, "next")]
    assert [[w.text for w in s] for s in split_sentences(words)] == [["so", "then"], ["next"]]


def test_cues_keep_to_two_lines_of_42_characters_seven_seconds_and_sentence_ends() -> None:
    text = ("The minister said, after a long and difficult meeting with the unions about pay and about pensions, "
            "that nothing had been agreed. Talks go on. " * 3)
    rows = _rows(text, step=0.45)
    cues = subtitle_cues(written_words(rows))
    assert all(1 <= len(c.lines) <= config.SUBTITLE_LINES for c in cues)
    assert all(len(line) <= config.SUBTITLE_LINE_CHARS for c in cues for line in c.lines)
    assert all(c.end - c.start <= config.SUBTITLE_MAX_SECONDS for c in cues)
    ends = [c.lines[-1].split()[-1] for c in cues]
    assert ends.count("agreed.") == 3 and ends.count("on.") == 3  # every sentence end closes a cue
    assert " ".join(" ".join(c.lines) for c in cues) == " ".join(text.split())  # nothing lost or doubled


def test_a_long_sentence_breaks_after_a_comma_in_the_second_half_of_a_cue() -> None:
    words = written_words(_rows("alpha beta, gamma delta epsilon."))
    assert [c.lines for c in subtitle_cues(words, line_chars=20, max_lines=1)] == \
        [("alpha beta,",), ("gamma delta epsilon.",)]
    words = written_words(_rows("alpha, beta gamma delta epsilon."))
    assert [c.lines for c in subtitle_cues(words, line_chars=20, max_lines=1)] == \
        [("alpha, beta gamma",), ("delta epsilon.",)]


def test_a_cue_is_cut_at_seven_seconds_even_when_the_text_would_fit() -> None:
    cues = subtitle_cues(written_words(_rows("so " * 10 + "slow.", step=1.5)))
    assert len(cues) > 1 and all(c.end - c.start <= config.SUBTITLE_MAX_SECONDS for c in cues)


def test_srt_vtt_and_txt_are_written_by_sentence() -> None:
    rows = _rows("The U .S. paid $5 ,000 to al -Qaeda? No. It paid a 26 -year -old man.")
    segments = [{"start": 0.0, "end": 3.0, "text": "x", "first_word": 0, "last_word": 8},
                {"start": 3.2, "end": 7.0, "text": "y", "first_word": 9, "last_word": 16}]
    assert export_transcript("txt", {}, rows, segments) == \
        "The U.S. paid $5,000 to al-Qaeda?\nNo.\nIt paid a 26-year-old man.\n"
    srt = export_transcript("srt", {}, rows, segments)
    assert srt.startswith("1\n00:00:00,000 --> 00:00:03,520\nThe U.S. paid $5,000 to al-Qaeda?\n\n2\n")
    assert export_transcript("vtt", {}, rows, segments).startswith("WEBVTT\n\n00:00:00.000 --> 00:00:03.520\nThe U.S.")
    assert '"text": "The U.S. paid $5,000 to al-Qaeda?"' in export_transcript("json", {}, rows, segments)


def test_a_transcript_without_words_exports_its_segments() -> None:
    segments = [{"start": 0.0, "end": 2.0, "text": "hello there"}]
    assert export_transcript("txt", {}, [], segments) == "hello there\n"
    assert export_transcript("srt", {}, [], segments) == "1\n00:00:00,000 --> 00:00:02,000\nhello there\n"
