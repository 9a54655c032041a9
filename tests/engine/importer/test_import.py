"""``import``: SRT, WebVTT, timed text and NewsScape captions become searchable recordings."""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from pathlib import Path

import pytest

from engine.errors import ParameterError
from engine.importer import import_transcript, read_captions
from engine.importer.save import caption_words
from engine.search import search, transcript_text
from engine.storage.store import Store
from engine.timefmt import timestamp
from tests.fixtures.audio import espeak

cli_main = importlib.import_module("engine.cli.main")
NEWSSCAPE = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "newsscape"

SRT = """1
00:00:01,000 --> 00:00:04,250
Floods closed the bridge in Yorkshire.

2
00:00:05,000 --> 00:00:09,500
Engineers say the river Ouse will fall by Friday.

3
00:01:02,125 --> 00:01:03,000
Now the weather.
"""

VTT = """WEBVTT

NOTE written by hand

intro
00:01.000 --> 00:04.250 align:start
<v Anna>Floods closed the bridge</v>
in <c.loud>Yorkshire</c>.

00:00:05.000 --> 00:00:09.500
Engineers say the river Ouse will fall by Friday.
"""

TIMED = """[00:00:01] Floods closed the bridge in Yorkshire.
[00:00:05.5] Engineers say the river Ouse will fall by Friday.
1:02 Now the weather.
"""


#: How the refusal of a file whose every row is unreadable ends.
LEFT = "; no readable timed text is left"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_srt_round_trips_through_import_and_export(tmp_path, capsys):
    src = _write(tmp_path, "bulletin.srt", SRT)
    db = tmp_path / "lib.sqlite"
    assert cli_main.main(["--db", str(db), "import", str(src)]) == 0
    assert "imported" in capsys.readouterr().out
    out = tmp_path / "back.srt"
    assert cli_main.main(["--db", str(db), "export", "bulletin.srt", "--format", "srt", "-o", str(out)]) == 0
    # the same cues and times; a line over 42 characters is wrapped as subtitles are, in two balanced lines
    assert out.read_text(encoding="utf-8") == SRT.replace("river Ouse", "river\nOuse")


def test_imported_words_are_searchable_and_land_on_the_word(tmp_path):
    with Store(tmp_path / "lib.sqlite") as store:
        import_transcript(store, _write(tmp_path, "bulletin.srt", SRT))
        hit = search(store, "yorkshire")[0]
        word = hit.matches[0]
        assert word.text == "Yorkshire."
        # the sixth of six equal shares of the first cue, 1.0 to 4.25 s
        assert (word.start, word.end) == (pytest.approx(1.0 + 5 * 3.25 / 6), pytest.approx(4.25))
        river = search(store, '"river ouse"')[0].matches[0]
        assert river.text == "river"
        assert (river.start, river.end) == (pytest.approx(6.5), pytest.approx(7.0))  # fourth of nine in 5.0-9.5 s


def test_a_cue_time_is_shared_equally_among_its_words(tmp_path):
    words, segments, _ = caption_words(read_captions(_write(tmp_path, "bulletin.srt", SRT)))
    assert segments == [(0, 5), (6, 14), (15, 17)]
    for (first, last), (start, end) in zip(segments, [(1.0, 4.25), (5.0, 9.5), (62.125, 63.0)], strict=True):
        share = (end - start) / (last - first + 1)
        assert [(w.start, w.end) for w in words[first : last + 1]] == [
            (pytest.approx(start + i * share), pytest.approx(start + (i + 1) * share)) for i in range(last - first + 1)]


@pytest.mark.parametrize(("name", "text"), [("a.vtt", VTT), ("a.txt", TIMED)], ids=["webvtt", "timed-text"])
def test_webvtt_and_timed_text_give_the_same_words(tmp_path, name, text):
    caps = read_captions(_write(tmp_path, name, text))
    assert caps.cues[0].start == 1.0
    assert caps.cues[0].text == "Floods closed the bridge in Yorkshire."
    assert caps.cues[1].text == "Engineers say the river Ouse will fall by Friday."


def test_timed_text_line_lasts_until_the_next(tmp_path):
    caps = read_captions(_write(tmp_path, "a.txt", TIMED))
    assert [(c.start, c.end) for c in caps.cues[:2]] == [(1.0, 5.5), (5.5, 62.0)]


def test_txt3_story_markers_become_stories(tmp_path):
    text = ("TOP|20060613000000|demo\n"
            "20060613000002.000|20060613000004.000|SEG_00|Type=Story start\n"
            "20060613000002.000|20060613000004.000|CC1|FLOODS IN YORKSHIRE.\n"
            "20060613000005.000|20060613000006.000|CC1|>> THE RIVER IS HIGH.\n"
            "20060613000010.000|20060613000040.000|SEG_00|Type=Commercial\n"
            "20060613000010.000|20060613000012.000|CC1|BUY NOW.\n"
            "20060613000041.000|20060613000042.000|SEG_00|Type=Story start\n"
            "20060613000041.000|20060613000044.000|CC1|IN SPORT TONIGHT.\n")
    with Store(tmp_path / "lib.sqlite") as store:
        rid = import_transcript(store, _write(tmp_path, "demo.txt3", text))
        stories = store.stories(rid)
        assert [(s["first_word"], s["last_word"]) for s in stories] == [(0, 6), (7, 8), (9, 11)]
        assert stories[0]["start"] == 2.0  # seconds from the TOP line, the recording's start
        assert [s["kind"] for s in stories] == ["story", "commercial", "story"]
        assert search(store, "sport")[0].story_idx == 2
        assert search(store, "buy") == []  # an advertisement is never a hit
        assert "BUY NOW." in transcript_text(store, rid)  # though its words stay in the transcript


@pytest.mark.slow  # over 2 s
def test_a_newsscape_day_imports_with_its_stories(tmp_path):
    files = sorted(NEWSSCAPE.glob("*.txt3"))
    if not files:
        pytest.skip(f"shared NewsScape captions absent ({NEWSSCAPE})")
    with Store(tmp_path / "lib.sqlite") as store:
        rid = import_transcript(store, files[0])
        assert len(store.stories(rid)) > 10
        assert search(store, "weather")


def test_with_audio_the_hit_plays_the_recording(tmp_path, capsys):
    wav = espeak("Floods closed the bridge in Yorkshire.", tmp_path / "bulletin.wav")
    src = _write(tmp_path, "bulletin.srt", SRT)
    db = tmp_path / "lib.sqlite"
    assert cli_main.main(["--db", str(db), "import", str(src)]) == 0  # finds bulletin.wav next to it
    with Store(db) as store:
        events = len(store.events(1))
    assert events and f"{events} audio event" in capsys.readouterr().out  # the detectors ran over it
    with Store(db) as store:
        hit = search(store, "yorkshire")[0]
        assert hit.path == str(wav.resolve()) and hit.name == "bulletin.wav"


@pytest.mark.parametrize(("name", "text", "error"), [
    ("a.doc", "x", "a.doc: unknown transcript format '.doc'; expected one of .srt, .vtt, .txt, .txt3"),
    ("a.srt", "1\n00:00:05,000 --> 00:00:01,000\nhello\n", "a.srt: lines 1-3 skipped: the cue ends (00:00:01,000)"
                                                          " before it starts (00:00:05,000)" + LEFT),
    ("a.srt", "1\n00:00:0x --> 00:00:01,000\nhello\n", "a.srt: lines 1-3 skipped: cannot read the cue times"
                                                      " '00:00:0x --> 00:00:01,000'" + LEFT),
    ("a.vtt", "WEBVTT\n\n", "a.vtt: no timed text found"),
    ("a.txt", "hello there\n", "a.txt: line 1 skipped: expected a line like '[00:01:02.5] text', got"
                            " 'hello there'" + LEFT),
    ("a.srt", "1\n" + "9" * 5000 + ":00:01,000 --> 00:00:02,000\nhello\n",
     "a.srt: lines 1-3 skipped: cannot read the cue times '" + "9" * 40 + "…': a time past 10000 hours" + LEFT),
    ("a.srt", "1\n99999999999:00:01,000 --> 99999999999:00:02,000\nhello\n",
     "a.srt: lines 1-3 skipped: cannot read the cue times '99999999999:00:01,000 --> 99999999999:00…': a time past"
     " 10000 hours" + LEFT),
    ("a.vtt", "WEBVTT\n\n" + "1" * 400 + ":00:01.000 --> 00:02.000\nhello\n",
     "a.vtt: lines 3-4 skipped: cannot read the cue times '" + "1" * 40 + "…': a time past 10000 hours" + LEFT),
    ("a.txt", "[" + "7" * 5000 + ":00:01] hello\n", "a.txt: line 1 skipped: cannot read the time '" + "7" * 40 + "…':"
                                                     " a time past 10000 hours" + LEFT),
    ("a.txt", "[10000:00:01] hello\n", "a.txt: line 1 skipped: cannot read the time '10000:00:01': a time past 10000 hours"
                              + LEFT),
    ("a.srt", "1\n00:00:01,000 --> 00:00:04,000\n" + "word " * 5001 + "\n",
     "a.srt: the cue at 0:01 holds 5001 words, more than 5000; has the file lost its line breaks?"),
    ("a.srt", "1\n00:00:0x --> 00:00:01,000\nhi\n\nstray text\n\n2\n00:00:05,000 --> 00:00:01,000\nhello\n",
     "a.srt: lines 1-3 skipped: cannot read the cue times '00:00:0x --> 00:00:01,000' (and 1 more range skipped)"
     + LEFT),
], ids=["unknown-suffix", "backwards-cue", "bad-time", "empty-vtt", "untimed-text", "srt-digit-run", "srt-huge-hours",
        "vtt-digit-run", "timed-text-digit-run", "timed-text-past-the-limit", "a-giant-cue",
        "two-bad-ranges"])
def test_bad_files_say_why_and_leave_the_index_alone(tmp_path, capsys, name, text, error):
    db = tmp_path / "lib.sqlite"
    good = _write(tmp_path, "good.srt", SRT)
    assert cli_main.main(["--db", str(db), "import", str(good)]) == 0
    bad = _write(tmp_path, name, text)
    with pytest.raises(ParameterError) as exc:
        read_captions(bad)
    assert str(exc.value) == f"{tmp_path}/{error}"
    capsys.readouterr()
    assert cli_main.main(["--db", str(db), "import", str(bad)]) == 1
    assert capsys.readouterr().err.strip() == f"earshot: error: {tmp_path}/{error}"
    with Store(db) as store:
        assert [r["name"] for r in store.recordings()] == ["good.srt"]


def test_a_link_to_a_device_or_pipe_is_refused_without_reading_it(tmp_path, capsys):
    """A link to /dev/zero read for ever; a pipe stands in for it (a failing run then imports, never hangs)."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    link = tmp_path / "news.srt"
    link.symlink_to(pipe)
    stop = threading.Event()

    def feed() -> None:  # a failing run reads the file twice (text, then its hash): keep feeding until told
        while not stop.is_set():
            with contextlib.suppress(OSError):
                pipe.write_text(SRT, encoding="utf-8")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    db = tmp_path / "lib.sqlite"
    try:
        code = cli_main.main(["--db", str(db), "import", "--no-audio", str(link)])
        err = capsys.readouterr().err.strip()
    finally:
        stop.set()
        with open(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK), "rb") as drain:  # lets a writer waiting to open through
            writer.join()
            drain.read()
    assert code == 1
    assert err == (f"earshot: error: {link}: not a regular file (a device, pipe or socket); give a caption file")
    with Store(db) as store:
        assert store.recordings() == []


COUNCIL = """1
00:00:01,000 --> 00:00:06,000
Good evening. The city council in Leeds voted on Tuesday to close the old library.

2
00:00:06,500 --> 00:00:12,000
Mayor Ruiz said the building on Park Road would be sold to pay for repairs.
"""


def test_imported_captions_get_named_entities_as_ingest_tags_them(tmp_path, capsys):
    srt = _write(tmp_path, "council.srt", COUNCIL)
    db = tmp_path / "lib.sqlite"
    assert cli_main.main(["--db", str(db), "import", str(srt)]) == 0
    assert "30 words, 1 story, no audio" in capsys.readouterr().out
    with Store(db) as store:
        found = {(e["type"], e["text"]) for e in store.entities(1)}
    assert {("PERSON", "Ruiz"), ("LOCATION", "Park Road"), ("DATE", "Tuesday")} <= found


@pytest.mark.slow  # the segmenter over a whole day, over 2 s
def test_captions_without_story_markers_are_cut_into_stories_by_the_segmenter(tmp_path):
    files = sorted(NEWSSCAPE.glob("*.txt3"))
    if not files:
        pytest.skip(f"shared NewsScape captions absent ({NEWSSCAPE})")
    cues = read_captions(files[0]).cues
    srt = "\n".join(f"{k}\n{timestamp(c.start)} --> {timestamp(max(c.end, c.start + 0.01))}\n{c.text}\n"
                    for k, c in enumerate(cues, 1))
    with Store(tmp_path / "lib.sqlite") as store:
        rid = import_transcript(store, _write(tmp_path, "day.srt", srt))
        stories = store.stories(rid)
        assert len(stories) > 10  # the day's own markers (gone from the SRT) hold 100 or more
        assert stories[0]["first_word"] == 0
        assert store.entities(rid)


DAMAGED_SRT = SRT.replace("00:00:05,000 --> 00:00:09,500", "00:00:05,000 --> 00:00:0x,500") + """
4
00:01:10,000 --> 00:01:05,000
Backwards.

5
00:01:20,000 --> 00:01:22,000
Sport next.
"""
DAMAGED_TXT3 = """TOP|20240102120000|2024-01-02_1200_US_Channel
20240102120001.000|20240102120004.000|CC1|FLOODS CLOSED THE BRIDGE.
2024010212xx05.000|20240102120006.000|CC1|GARBLED ROW.
20240102120007.000|20240102120009.000|CC1|THE RIVER WILL FALL BY FRIDAY.
"""


@pytest.mark.parametrize(("name", "text", "kept", "skipped"), [
    ("news.srt", DAMAGED_SRT, "Floods closed the bridge in Yorkshire. Now the weather. Sport next.",
     ["lines 5-7 skipped: cannot read the cue times '00:00:05,000 --> 00:00:0x,500'",
      "lines 13-15 skipped: the cue ends (00:01:05,000) before it starts (00:01:10,000)"]),
    ("news.vtt", "WEBVTT\n\n00:01.000 --> 00:04.000\nFloods closed the bridge.\n\n00:0x.000 --> 00:06.000\nLost.\n\n"
     "00:09.000 --> 00:07.000\nBackwards.\n\n00:10.000 --> 00:12.000\nThe river falls.\n",
     "Floods closed the bridge. The river falls.",
     ["lines 6-10 skipped: cannot read the cue times '00:0x.000 --> 00:06.000'"]),
    ("news.txt", "Transcript of the bulletin\n[00:01] Floods closed the bridge.\n[00:0x] lost\n[00:05] The river falls.\n",
     "Floods closed the bridge. The river falls.",
     ["line 1 skipped: expected a line like '[00:01:02.5] text', got 'Transcript of the bulletin'",
      "line 3 skipped: expected a line like '[00:01:02.5] text', got '[00:0x] lost'"]),
    ("news.txt3", DAMAGED_TXT3, "FLOODS CLOSED THE BRIDGE. THE RIVER WILL FALL BY FRIDAY.",
     ["line 3 skipped: cannot read the times '2024010212xx05.000', '20240102120006.000'"]),
], ids=["srt", "vtt", "timed-text", "txt3"])
def test_a_partly_damaged_file_is_imported_with_its_good_rows(tmp_path, capsys, name, text, kept, skipped):
    """Each run of unreadable rows is one line on stderr; the good rows are indexed."""
    src = _write(tmp_path, name, text)
    db = tmp_path / "lib.sqlite"
    assert cli_main.main(["--db", str(db), "import", "--no-audio", str(src)]) == 0
    out = capsys.readouterr()
    assert out.err.splitlines() == [f"{src}: {line}" for line in skipped]
    assert f"imported {src}: {len(kept.split())} words" in out.out
    with Store(db) as store:
        assert " ".join(w["display"] or w["text"] for w in store.words(1)) == kept
