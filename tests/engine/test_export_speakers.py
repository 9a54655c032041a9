"""Exports carry speakers: WebVTT voice spans, SRT and TXT name prefixes, JSON fields, RTTM."""

from __future__ import annotations

import json
from pathlib import Path

from engine.evaluate.der import diarization_error, read_rttm
from engine.export import export_transcript

RECORDING = {"id": 1, "name": "evening news.wav", "path": "/r/evening news.wav", "duration": 8.0}
WORDS = [
    {"idx": i, "start": s, "end": s + 0.4, "conf": 0.9, "text": t.lower().strip(".,"), "display": t, "speaker": k}
    for i, (s, t, k) in enumerate([
        (0.0, "Good", 1), (0.5, "evening.", 1), (1.0, "Welcome", 1), (1.5, "back.", 1),
        (3.0, "Thank", 2), (3.5, "you.", 2), (4.0, "Glad", 2), (4.5, "to", 2), (5.0, "be", 2), (5.5, "here.", 2),
        (6.5, "Indeed.", 1),
    ])
]
SEGMENTS = [{"start": 0.0, "end": 6.9, "text": "x", "first_word": 0, "last_word": 10}]
SPEAKERS = [{"label": 1, "name": "Ann <Host>", "seconds": 2.4}, {"label": 2, "name": "Bob Day", "seconds": 2.9}]
TURNS = [{"speaker": 1, "start": 0.0, "end": 1.9}, {"speaker": 2, "start": 3.0, "end": 5.9},
         {"speaker": 1, "start": 6.5, "end": 6.9}]


def export(fmt: str) -> str:
    return export_transcript(fmt, RECORDING, WORDS, SEGMENTS, speakers=SPEAKERS, turns=TURNS)


def test_webvtt_cues_are_voice_spans_of_one_speaker_each() -> None:
    cues = export("vtt").split("\n\n")[1:]
    firsts = [cue.splitlines()[1] for cue in cues if cue.strip()]
    assert firsts == ["<v Ann &lt;Host&gt;>Good evening.", "<v Ann &lt;Host&gt;>Welcome back.",
                      "<v Bob Day>Thank you.", "<v Bob Day>Glad to be here.", "<v Ann &lt;Host&gt;>Indeed."]


def test_srt_names_the_speaker_at_each_turn_only() -> None:
    text = export("srt")
    lines = [block.splitlines()[2] for block in text.strip().split("\n\n")]
    assert lines == ["Ann <Host>: Good evening.", "Welcome back.", "Bob Day: Thank you.", "Glad to be here.",
                     "Ann <Host>: Indeed."]


def test_txt_names_the_speaker_at_each_turn_only() -> None:
    assert export("txt") == ("Ann <Host>: Good evening.\nWelcome back.\nBob Day: Thank you.\nGlad to be here.\n"
                             "Ann <Host>: Indeed.\n")


def test_json_has_a_speaker_per_word_the_speakers_and_the_turns() -> None:
    doc = json.loads(export("json"))
    assert [w["speaker"] for w in doc["words"]][3:5] == ["Ann <Host>", "Bob Day"]
    assert doc["speakers"] == [{"label": "S1", "name": "Ann <Host>", "seconds": 2.4},
                               {"label": "S2", "name": "Bob Day", "seconds": 2.9}]
    assert doc["turns"][1] == {"speaker": "Bob Day", "label": "S2", "start": 3.0, "end": 5.9}


def test_without_speakers_exports_are_as_before() -> None:
    plain = [{k: v for k, v in w.items() if k != "speaker"} for w in WORDS]
    assert export_transcript("txt", RECORDING, plain, SEGMENTS).splitlines()[0] == "Good evening."
    assert "<v " not in export_transcript("vtt", RECORDING, plain, SEGMENTS)
    assert json.loads(export_transcript("json", RECORDING, plain, SEGMENTS))["words"][0]["speaker"] is None


def test_rttm_round_trips_through_the_der_scorer(tmp_path: Path) -> None:
    path = tmp_path / "hyp.rttm"
    path.write_text(export("rttm"), encoding="utf-8")
    turns = read_rttm(path)
    assert list(turns) == ["evening_news"]
    assert [(t.speaker, t.start, t.end) for t in turns["evening_news"]] == [
        ("Ann_<Host>", 0.0, 1.9), ("Bob_Day", 3.0, 5.9), ("Ann_<Host>", 6.5, 6.9)]
    assert diarization_error(turns["evening_news"], turns["evening_news"]).der == 0.0
