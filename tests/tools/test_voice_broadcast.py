"""Broadcasts of real voices: reference turns match the audio, the build is repeatable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.evaluate.der import read_rttm
from tools.voice_broadcast import SR, build, write
from tools.voices import VoiceUnavailable


@pytest.mark.slow
def test_turns_lie_on_loud_audio_and_the_build_repeats(tmp_path: Path) -> None:
    try:
        show = build(("librivox", "carlo"), minutes=0.5, seed=3)
    except VoiceUnavailable as error:
        pytest.skip(str(error))
    assert {t.speaker for t in show.turns} == {"librivox", "carlo"}
    for turn in show.turns:
        part = show.samples[int(turn.start * SR) : int(turn.end * SR)]
        assert np.sqrt(np.mean(part**2)) > 0.01
    assert np.array_equal(build(("librivox", "carlo"), minutes=0.5, seed=3).samples, show.samples)
    rttm = write(show, tmp_path / "show.wav")
    read = read_rttm(rttm)["show"]
    assert [t.speaker for t in read] == [t.speaker for t in show.turns]
    assert all(abs(a.start - b.start) < 1e-3 for a, b in zip(read, show.turns, strict=True))


def test_an_unknown_voice_is_refused_by_name() -> None:
    with pytest.raises(ParameterError, match=r"unknown voices \['nobody'\]"):
        build(("nobody",), minutes=1, seed=1)
