"""Stories do not depend on hundredths of a second: X-DURATION's floor and a real day with moved times."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace

import numpy as np
import pytest

from engine.research.segment.timing import TimingMove, moved_times, moved_transcript, starts_matched
from engine.segment import config
from engine.segment.features import FeatureInput, XDuration
from engine.segment.model import SegmentationModel
from engine.segment.stories import transcript_stories

#: Moves of a hundredth of a second, the issue's case (every end 0.01 s earlier) among them: the
#: stories must stay exactly the same.
HUNDREDTH = [TimingMove(f"{what} {d:+.2f} s", **{f"{what}_shift": d}) for what in ("start", "end") for d in (-0.01, 0.01)]
#: The largest moves tolerated, every start or end by 0.05 s and every time on its own by up to 0.05 s:
#: the stories must stay nearly the same (NEARLY_SAME_*).
FIVE_HUNDREDTHS = [*(TimingMove(f"{what} {d:+.2f} s", **{f"{what}_shift": d}) for what in ("start", "end")
                     for d in (-0.05, 0.05)), TimingMove("each time by up to 0.05 s", jitter=0.05, seed=0)]
#: "Nearly the same stories": at least this share of the story starts, either way, with one within 1 word ...
NEARLY_SAME_MATCHED = 0.95
#: ... and a number of stories within this share of the caption times' one.
NEARLY_SAME_COUNT = 0.05


def test_x_duration_below_its_floor_is_no_pause():
    times = np.array([0.0, 0.01, 0.133, config.X_DURATION_FLOOR_SECONDS, 0.26 + 1e-9, 4.0])
    data = FeatureInput(ids=np.zeros(6, dtype=np.int64), vocabulary_size=1, x_duration=times)
    np.testing.assert_array_equal(XDuration().values(data, {}), [0, 0, 0, 0, 0.26, 4.0])  # to the millisecond
    np.testing.assert_array_equal(XDuration(floor_seconds=0.0).values(data, {}), times)


def test_moved_times_keep_the_words_in_order(rng):
    starts = np.sort(rng.uniform(0, 60, 500))
    ends = starts + rng.uniform(0, 0.3, 500)
    for move in (TimingMove("jitter", jitter=0.05, seed=3), TimingMove("ends", end_shift=-0.05)):
        new_starts, new_ends = moved_times(starts, ends, move)
        assert np.all(np.diff(new_starts) >= 0) and np.all(new_ends >= new_starts)
        assert np.max(np.abs(new_starts - starts)) <= move.largest + 1e-12
    new_starts, new_ends = moved_times(starts, ends, TimingMove("ends", end_shift=0.05))
    np.testing.assert_array_equal(new_starts, starts)
    np.testing.assert_allclose(new_ends, ends + 0.05)


def test_starts_matched_counts_starts_within_the_tolerance():
    assert starts_matched(np.array([0, 10, 20]), np.array([0, 11, 25]), within=1) == pytest.approx(2 / 3)
    assert starts_matched(np.array([0, 10, 20]), np.array([0, 11, 25]), within=0) == pytest.approx(1 / 3)


def test_a_model_saved_before_the_floor_reads_x_duration_unfloored(tmp_path):
    """Old model files were trained on raw gaps: loading one must not floor them."""
    from engine.segment.loader import load_model
    from models.segmentation import PUNCTUATED_MODEL_NAME

    shipped = load_model(PUNCTUATED_MODEL_NAME)
    floored = replace(shipped, features=tuple(XDuration() if isinstance(f, XDuration) else f for f in shipped.features))
    path = floored.save(tmp_path / "m.npz")
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    header = json.loads(str(arrays["header"]))
    assert header["x_duration_floor_seconds"] == pytest.approx(config.X_DURATION_FLOOR_SECONDS)
    del header["x_duration_floor_seconds"]
    arrays["header"] = np.asarray(json.dumps(header))
    old = tmp_path / "old.npz"
    with old.open("wb") as fh:
        np.savez_compressed(fh, **arrays)
    assert zipfile.is_zipfile(old)
    floors = [f.floor_seconds for f in SegmentationModel.load(old).features if isinstance(f, XDuration)]
    assert floors == [0.0]


@pytest.mark.slow  # four broadcast days, twenty decodes: ~30 s of CPU
def test_stories_do_not_move_when_the_times_move_by_a_hundredth_of_a_second(newsscape_days):
    """The caption path of import gives the same story starts when every start or every end moves by
    0.01 s (captions put a row's words end to start, so such a move opens or closes a gap between every
    two words of a row and moves every gap between rows)."""
    for day in newsscape_days:
        expected = transcript_stories(day).story_starts
        assert expected.size > 10  # a broadcast day, not one story
        for move in HUNDREDTH:
            found = transcript_stories(moved_transcript(day, move)).story_starts
            np.testing.assert_array_equal(found, expected, err_msg=f"{day.name}: stories moved with {move.name}")


@pytest.mark.slow  # one broadcast day, six decodes: ~10 s of CPU
def test_stories_barely_move_when_the_times_move_by_five_hundredths(newsscape_days):
    """With every start or end moved by 0.05 s, or each time on its own by up to 0.05 s, the day keeps
    nearly its stories: a pause within 0.05 s of a bin edge may change its bin, no more."""
    day = newsscape_days[1]  # the day whose 71 stories fell to 22 when every end moved 0.01 s earlier
    expected = transcript_stories(day).story_starts
    for move in FIVE_HUNDREDTHS:
        found = transcript_stories(moved_transcript(day, move)).story_starts
        matched = min(starts_matched(expected, found, within=1), starts_matched(found, expected, within=1))
        assert matched >= NEARLY_SAME_MATCHED, f"{move.name}: {matched:.2f} of the starts kept"
        assert abs(found.size - expected.size) <= NEARLY_SAME_COUNT * expected.size, (
            f"{move.name}: {found.size} stories instead of {expected.size}")
