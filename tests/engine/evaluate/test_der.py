"""DER against pyannote.metrics (an independent implementation), textbook cases, and RTTM files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine.errors import ParameterError
from engine.evaluate.der import Turn, diarization_error, read_rttm, write_rttm

CASES = Path(__file__).with_name("der_pyannote.json")


def _turns(rows: list[list[object]]) -> list[Turn]:
    return [Turn(float(s), float(e), str(label)) for s, e, label in rows]  # type: ignore[arg-type]


def test_every_component_matches_pyannote_metrics() -> None:
    data = json.loads(CASES.read_text())
    assert len(data["cases"]) == 62
    for case in data["cases"]:
        got = diarization_error(_turns(case["ref"]), _turns(case["hyp"]), collar=case["collar"])
        want = case["pyannote"]
        assert got.miss == pytest.approx(want["missed detection"], abs=1e-6)
        assert got.false_alarm == pytest.approx(want["false alarm"], abs=1e-6)
        assert got.confusion == pytest.approx(want["confusion"], abs=1e-6)
        assert got.reference == pytest.approx(want["total"], abs=1e-6)


def test_a_relabelled_perfect_answer_scores_zero_and_maps_the_labels() -> None:
    ref = [Turn(0, 10, "A"), Turn(10, 20, "B"), Turn(15, 18, "A")]
    hyp = [Turn(0, 10, "x"), Turn(10, 20, "y"), Turn(15, 18, "x")]
    result = diarization_error(ref, hyp)
    assert result.der == 0.0
    assert result.mapping == {"x": "A", "y": "B"}


def test_one_speaker_for_two_scores_the_shorter_one_as_confusion() -> None:
    ref = [Turn(0, 30, "A"), Turn(30, 40, "B")]
    result = diarization_error(ref, [Turn(0, 40, "x")], collar=0.0)
    assert (result.miss, result.false_alarm, result.confusion, result.reference) == (0.0, 0.0, 10.0, 40.0)
    assert result.der == pytest.approx(0.25)


def test_the_collar_removes_a_quarter_second_each_side_of_each_reference_boundary() -> None:
    ref = [Turn(1, 11, "A")]
    hyp = [Turn(1.2, 10.8, "x")]  # errors only inside the collars
    assert diarization_error(ref, hyp).der == 0.0
    assert diarization_error(ref, hyp, collar=0.0).miss == pytest.approx(0.4)
    assert diarization_error(ref, hyp).reference == pytest.approx(9.5)


def test_overlap_is_scored_as_two_speakers() -> None:
    ref = [Turn(0, 10, "A"), Turn(5, 10, "B")]
    result = diarization_error(ref, [Turn(0, 10, "x")], collar=0.0)
    assert (result.miss, result.reference) == (5.0, 15.0)


def test_rttm_round_trip(tmp_path: Path) -> None:
    turns = [Turn(0.5, 2.25, "spk1"), Turn(2.0, 4.0, "spk2")]
    buffer = io.StringIO()
    write_rttm(turns, "show1", buffer)
    path = tmp_path / "show1.rttm"
    path.write_text(";; comment\n" + buffer.getvalue() + "SPKR-INFO show1 1 <NA> <NA> <NA> unknown spk1 <NA> <NA>\n")
    assert read_rttm(path) == {"show1": turns}


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        pytest.param("SPEAKER f 1 abc 1.0 <NA> <NA> A", "not an RTTM SPEAKER line", id="onset-not-a-number"),
        pytest.param("SPEAKER f 1 0.0", "not an RTTM SPEAKER line", id="too-few-fields"),
        pytest.param("SPEAKER f 1 -1.0 1.0 <NA> <NA> A", "onset and duration must be", id="negative-onset"),
    ],
)
def test_a_bad_rttm_line_is_named_by_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    path = tmp_path / "bad.rttm"
    path.write_text(f"SPEAKER f 1 0.0 1.0 <NA> <NA> A <NA> <NA>\n{line}\n")
    with pytest.raises(ParameterError, match=f"^{path}:2: {reason}"):
        read_rttm(path)


def test_a_turn_that_ends_before_it_starts_is_refused() -> None:
    with pytest.raises(ParameterError, match="hypothesis turn"):
        diarization_error([Turn(0, 1, "A")], [Turn(2, 1, "x")])


def test_an_rttm_file_in_latin1_is_read_and_a_device_refused(tmp_path) -> None:
    from engine.errors import ParameterError
    from engine.evaluate.der import read_rttm

    path = tmp_path / "café.rttm"
    path.write_bytes("SPEAKER réunion 1 0.00 2.50 <NA> <NA> José <NA> <NA>\n".encode("latin-1"))
    assert [t.speaker for t in read_rttm(path)["réunion"]] == ["José"]
    with pytest.raises(ParameterError, match="not a regular file"):
        read_rttm("/dev/zero")
