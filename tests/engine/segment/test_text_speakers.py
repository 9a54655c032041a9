"""Speaker changes read from caption chevrons: a side channel beside the words, never words themselves."""

from __future__ import annotations

import numpy as np

from engine.segment.text import chevron_offsets, read_txt3

CAPTIONS = """TOP|20060613000000|test
20060613000002.000|20060613000004.000|SEG_00|Type=Story start
20060613000002.000|20060613000004.000|CC1|IT IS THE NEW YORK STYLE
20060613000004.000|20060613000006.000|CC1|>> NO ENEMY WE KNOW OF.
20060613000006.000|20060613000008.000|CC1|HE SAID SO. >>> IN OTHER NEWS
20060613000008.000|20060613000010.000|SEG_00|Type=Story start
20060613000008.000|20060613000010.000|CC1|>>REPORTER: THE RAIN FELL
"""


def test_chevron_offsets_count_the_words_before_each_mark():
    assert chevron_offsets(">> NO ENEMY") == [0]
    assert chevron_offsets("HE SAID SO. >>> IN OTHER NEWS >> YES") == [3, 6]
    assert chevron_offsets("NO MARK HERE") == []


def test_txt3_speaker_changes_treat_both_chevrons_alike_and_leave_the_words_clean(tmp_path):
    path = tmp_path / "day.txt3"
    path.write_text(CAPTIONS, encoding="utf-8")
    t = read_txt3(path)
    assert t.words[6:10] == ["no", "enemy", "we", "know"]
    assert ">>" not in " ".join(t.words) and "reporter" not in t.words
    np.testing.assert_array_equal(t.speaker_changes, [6, 14, 17])
    np.testing.assert_array_equal(t.story_starts, [0, 17])
    part = t.slice(10, len(t))
    np.testing.assert_array_equal(part.speaker_changes, [4, 7])


def test_captions_without_chevrons_say_nothing_about_speakers(tmp_path):
    path = tmp_path / "plain.txt3"
    path.write_text(CAPTIONS.replace(">", ""), encoding="utf-8")
    assert read_txt3(path).speaker_changes is None
