"""Index rows of a diarization: turns cut at music, applause and laughter, speakers renumbered, words assigned."""

from __future__ import annotations

import numpy as np

from engine.asr.base import Word
from engine.detect.events import Event
from engine.ingest.speaker_pass import speaker_turns
from engine.speakers.diarize import Diarization, SpeakerTurn
from engine.storage.store import TurnRow


def _words(*spans: tuple[float, float]) -> list[Word]:
    return [Word(a, b, 0.9, f"w{i}") for i, (a, b) in enumerate(spans)]


def test_words_in_music_applause_or_laughter_have_no_speaker() -> None:
    found = Diarization([SpeakerTurn(0.0, 10.0, 0), SpeakerTurn(10.0, 20.0, 1)], np.eye(2, 192, dtype=np.float32))
    words = _words((1.0, 1.5), (5.0, 5.5), (12.0, 12.5), (16.0, 16.5))
    sounds = [Event("music", 4.0, 6.0, 1.0, 0.0), Event("laughter", 15.0, 17.0, 1.0, 0.0),
              Event("noise", 11.0, 13.0, 1.0, 0.0)]  # noise alone does not silence a speaker
    rows = speaker_turns(found, words, sounds, [])
    assert rows.word_speakers == [1, None, 2, None]
    assert rows.turns == [TurnRow(1, 0.0, 4.0), TurnRow(1, 6.0, 10.0), TurnRow(2, 10.0, 15.0), TurnRow(2, 17.0, 20.0)]
    assert [(s.label, s.seconds) for s in rows.speakers] == [(1, 8.0), (2, 8.0)]
    assert rows.speakers[1].centroid == np.eye(2, 192, dtype="<f4")[1].tobytes()


def test_speech_under_a_music_bed_keeps_its_speaker() -> None:
    found = Diarization([SpeakerTurn(0.0, 10.0, 0)], np.ones((1, 192), dtype=np.float32))
    rows = speaker_turns(found, _words((5.0, 5.5)), [Event("music", 0.0, 10.0, 1.0, 0.0)],
                         [Event("speech", 4.0, 6.0, 1.0, 0.0)], given=1)
    assert rows.word_speakers == [1] and rows.turns == [TurnRow(1, 4.0, 6.0)] and rows.given == 1


def test_a_speaker_left_only_in_applause_is_gone_and_the_rest_renumbered() -> None:
    found = Diarization([SpeakerTurn(0.0, 3.0, 0), SpeakerTurn(3.0, 9.0, 1)], np.ones((2, 192), dtype=np.float32))
    rows = speaker_turns(found, _words((4.0, 4.5)), [Event("applause", 0.0, 3.0, 1.0, 0.0)], [])
    assert [s.label for s in rows.speakers] == [1]
    assert rows.turns == [TurnRow(1, 3.0, 9.0)] and rows.word_speakers == [1]
