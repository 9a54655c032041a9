"""The diarization pipeline: window tiling, clustering, cancel and progress, and real voices end to end."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import Cancelled, ParameterError
from engine.evaluate.der import Turn, diarization_error
from engine.jobs import JobReport
from engine.speakers import config
from engine.speakers.campplus import CamPlusPlus
from engine.speakers.diarize import SR, STEP, WINDOW, Diarizer, _by_first_appearance, _windows, cluster
from engine.speakers.segmentation import Segmentation


@pytest.mark.parametrize("seconds", [0.0, 3.0, 10.0, 12.0, 15.0, 17.5, 23.0, 60.0])
def test_windows_cover_the_stream_once_with_the_last_flagged(seconds: float) -> None:
    samples = np.arange(int(seconds * SR), dtype=np.float32)
    blocks = [samples[i : i + 7_000] for i in range(0, samples.size, 7_000)]
    windows = list(_windows(blocks))
    if samples.size == 0:
        assert windows == []
        return
    starts = [start for start, _, _ in windows]
    assert starts == [k * STEP for k in range(len(windows))]
    assert [last for _, _, last in windows] == [False] * (len(windows) - 1) + [True]
    assert starts[-1] + WINDOW >= samples.size > (starts[-2] + WINDOW if len(starts) > 1 else -1)
    for start, window, _ in windows:
        assert window.shape == (WINDOW,)
        real = samples[start : start + WINDOW]
        np.testing.assert_array_equal(window[: real.size], real)
        assert not window[real.size :].any()


def test_clustering_cuts_at_the_threshold_or_the_given_count(rng: np.random.Generator) -> None:
    centres = rng.standard_normal((3, 192))
    embeddings = np.repeat(centres, 5, axis=0) + 0.05 * rng.standard_normal((15, 192))
    weights = np.full(15, 2.0)
    labels = cluster(embeddings, weights, n_speakers=None, threshold=config.CLUSTER_THRESHOLD)
    assert labels.tolist() == [0] * 5 + [1] * 5 + [2] * 5
    assert len(set(cluster(embeddings, weights, n_speakers=2, threshold=0.0).tolist())) == 2


def test_a_cluster_with_too_little_speech_joins_the_nearest_large_one(rng: np.random.Generator) -> None:
    a, b = rng.standard_normal((2, 192))
    embeddings = np.stack([a, a, a, b])
    labels = cluster(embeddings, np.array([5.0, 5.0, 5.0, 0.5]), n_speakers=None, threshold=0.3)
    assert labels.tolist() == [0, 0, 0, 0]


def _voices(rng: np.random.Generator, n: int, speakers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` noisy embeddings of ``speakers`` voices in turns of 1-40 windows: (embeddings, weights, who)."""
    centres = rng.standard_normal((speakers, 192))
    who = np.concatenate([np.full(rng.integers(1, 40), rng.integers(speakers)) for _ in range(n)])[:n]
    return centres[who] + 0.9 * rng.standard_normal((n, 192)), rng.uniform(0.5, 5.0, n), who


@pytest.mark.parametrize("n_speakers", [None, 4])
def test_a_long_recording_clusters_in_blocks_as_it_would_at_once(rng: np.random.Generator, n_speakers: int | None) -> None:
    embeddings, weights, who = _voices(rng, 1_500, speakers=9)
    at_once = cluster(embeddings, weights, n_speakers=n_speakers, threshold=config.CLUSTER_THRESHOLD)
    in_blocks = cluster(embeddings, weights, n_speakers=n_speakers, threshold=config.CLUSTER_THRESHOLD, block=200)
    if n_speakers is None:  # the voices are far apart: both find them exactly
        assert len(set(at_once.tolist())) == 9
        np.testing.assert_array_equal(at_once, _by_first_appearance(who))
    np.testing.assert_array_equal(in_blocks, at_once)


def test_embeddings_no_cut_joins_are_clustered_at_once(rng: np.random.Generator) -> None:
    noise = rng.standard_normal((300, 192))
    labels = cluster(noise, np.ones(300), n_speakers=None, threshold=0.2, block=50)
    np.testing.assert_array_equal(labels, cluster(noise, np.ones(300), n_speakers=None, threshold=0.2))


@pytest.fixture(scope="module")
def diarizer(speaker_files) -> Diarizer:  # type: ignore[no-untyped-def]
    return Diarizer(Segmentation.load(speaker_files.segmentation), CamPlusPlus.load(speaker_files.embedding))


def test_cancel_stops_before_the_first_window_batch(diarizer: Diarizer) -> None:
    report = JobReport()
    report.cancel.cancel()
    with pytest.raises(Cancelled):
        diarizer([np.zeros(30 * SR, dtype=np.int16)], report=report)


@pytest.mark.slow
def test_silence_has_no_turns_and_progress_reaches_the_total(diarizer: Diarizer) -> None:
    seen: list[tuple[float, float]] = []
    turns = diarizer(
        [np.zeros(25 * SR, dtype=np.int16)], total_seconds=25.0, report=JobReport(progress=lambda d, t: seen.append((d, t)))
    )
    assert turns == []
    assert seen[-1] == (25.0, 25.0)


def test_a_speaker_count_below_one_is_refused(diarizer: Diarizer) -> None:
    with pytest.raises(ParameterError, match="n_speakers must be >= 1, got 0"):
        diarizer([], n_speakers=0)


@pytest.mark.slow
def test_a_broadcast_of_three_real_voices_is_diarized_within_fifteen_percent(diarizer: Diarizer) -> None:
    from tools.voice_broadcast import build
    from tools.voices import VoiceUnavailable

    try:
        show = build(("carlo", "menardi", "ivr-ru"), minutes=1.5, seed=7)
    except VoiceUnavailable as error:
        pytest.skip(str(error))
    turns = diarizer([show.samples], total_seconds=show.samples.size / SR)
    result = diarization_error(show.turns, [Turn(t.start, t.end, str(t.speaker)) for t in turns])
    assert result.der < 0.15
    assert len({t.speaker for t in turns}) == 3
