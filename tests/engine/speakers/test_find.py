"""Finding a speaker's voice in other recordings: ranking stored centroids, and real voices end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.errors import NotFoundError, ParameterError
from engine.evaluate.der import Turn, diarization_error, read_rttm
from engine.speakers import config
from engine.speakers.diarize import SR, Diarizer
from engine.speakers.find import centroid_vector, find_speaker, similarities
from engine.storage.store import NewRecording, SpeakerRow, SpeakerTurns, Store, TurnRow


def recording(path: str, centroids: list[np.ndarray | None], *, turns: SpeakerTurns | None = None) -> NewRecording:
    """A recording without words whose speakers 1, 2, ... have these centroids (None: stored without one)."""
    found = turns or SpeakerTurns(
        speakers=[SpeakerRow(k + 1, 10.0 * (k + 1), None if c is None else c.astype("<f4").tobytes())
                  for k, c in enumerate(centroids)],
        turns=[TurnRow(k + 1, 5.0 * k + 1.0, 5.0 * k + 4.0) for k in range(len(centroids))],
        word_speakers=[],
    )
    return NewRecording(path, Path(path).name, path, 100, 60.0, 16000, 1, "pcm_s16le", "wav", "whisper", "m", "en",
                        [], [], speakers=found)


def unit(rng: np.random.Generator, base: np.ndarray | None = None, noise: float = 1.0) -> np.ndarray:
    x = rng.normal(size=192) * noise + (0 if base is None else base)
    return x / np.linalg.norm(x)


@pytest.fixture
def library(tmp_path: Path, rng: np.random.Generator) -> tuple[Store, np.ndarray]:
    """Three recordings: voice A is S1 of the first, S2 of the second (a near copy); the rest are other voices."""
    a = unit(rng)
    store = Store(tmp_path / "lib.sqlite")
    store.save_recording(recording("/r/one.wav", [a, unit(rng)]))
    store.save_recording(recording("/r/two.wav", [unit(rng), unit(rng, 4 * a, noise=0.05), None]))
    store.save_recording(recording("/r/three.wav", [unit(rng)]))
    return store, a


def test_similarities_are_cosines_and_zero_for_a_zero_vector(rng: np.random.Generator) -> None:
    q, c = rng.normal(size=5), rng.normal(size=(4, 5))
    c[2] = 0.0
    expected = [float(q @ row / (np.linalg.norm(q) * np.linalg.norm(row))) if row.any() else 0.0 for row in c]
    assert np.allclose(similarities(q, c), expected)


def test_the_shared_voice_ranks_first_and_only_it_passes_the_threshold(library: tuple[Store, np.ndarray]) -> None:
    store, _ = library
    matches = find_speaker(store, 1, 1)
    assert [(m.recording_id, m.title, m.label, m.name) for m in matches] == [(2, "two.wav", 2, "Speaker 2")]
    assert matches[0].similarity > 0.9 and matches[0].seconds == 20.0 and matches[0].first == 6.0
    everyone = find_speaker(store, 1, 1, keep_all=True)
    assert (everyone[0].recording_id, everyone[0].label) == (2, 2)
    assert len(everyone) == 3  # two.wav S1 and S2, three.wav S1; S3 of two.wav has no centroid
    assert [m.similarity for m in everyone] == sorted((m.similarity for m in everyone), reverse=True)
    assert find_speaker(store, 1, 1, threshold=1.0) == []


@pytest.mark.parametrize(("label", "threshold", "error", "message"), [
    pytest.param(3, None, NotFoundError, "S3 of recording 2 has no voice profile", id="no-centroid"),
    pytest.param(1, 1.5, ParameterError, "--threshold must be a cosine similarity from -1 to 1, got 1.5", id="threshold"),
])
def test_refusals_name_the_reason(library: tuple[Store, np.ndarray], label: int, threshold: float | None,
                                  error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        find_speaker(library[0], 2, label, threshold=threshold)


def test_a_centroid_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ParameterError, match="192 float32 values, got 8 bytes"):
        centroid_vector(b"\0" * 8)


@pytest.fixture(scope="module")
def diarizer(speaker_files) -> Diarizer:  # type: ignore[no-untyped-def]
    from engine.speakers.campplus import CamPlusPlus
    from engine.speakers.segmentation import Segmentation

    return Diarizer(Segmentation.load(speaker_files.segmentation), CamPlusPlus.load(speaker_files.embedding))


@pytest.mark.slow
def test_real_voices_diarized_and_stored_as_ingest_does_find_the_shared_voice(tmp_path: Path, diarizer: Diarizer) -> None:
    from engine.ingest.speaker_pass import speaker_turns
    from tools.voice_broadcast import build
    from tools.voices import VoiceUnavailable

    store = Store(tmp_path / "lib.sqlite")
    labels = {}
    for name, voices, seed in (("a.wav", ("carlo", "menardi"), 41), ("b.wav", ("ivr-ru", "carlo"), 42),
                               ("c.wav", ("armelle", "es-co"), 43)):
        try:
            show = build(voices, minutes=0.75, seed=seed)
        except VoiceUnavailable as error:
            pytest.skip(str(error))
        stream = diarizer.stream(total_seconds=show.samples.size / SR)
        stream.feed(show.samples)
        rows = speaker_turns(stream.finish(), [], [], [])
        rid = store.save_recording(recording(f"/r/{name}", [], turns=rows))
        # the stored label whose turns overlap carlo's reference turns most
        overlap = {t["speaker"]: 0.0 for t in store.turns(rid)}
        for t in store.turns(rid):
            overlap[t["speaker"]] += sum(max(0.0, min(t["end"], r.end) - max(t["start"], r.start))
                                         for r in show.turns if r.speaker == "carlo")
        labels[name] = max(overlap, key=overlap.__getitem__)
    matches = find_speaker(store, 1, labels["a.wav"], keep_all=True)
    assert (matches[0].recording_id, matches[0].label) == (2, labels["b.wav"])
    assert matches[0].similarity >= config.FIND_THRESHOLD > matches[1].similarity


@pytest.mark.slow
def test_the_pyannote_sample_call_is_diarized_within_thirty_percent(diarizer: Diarizer) -> None:
    from engine.audio.decode import decode_all
    from tools.diarization_samples import SampleUnavailable, fetch_sample

    try:
        wav, rttm = fetch_sample("pyannote")
    except SampleUnavailable as error:
        pytest.skip(str(error))
    reference = read_rttm(rttm)["sample"]
    samples = decode_all(wav, sr=SR).astype(np.float32) / 32768.0
    turns = diarizer([samples], total_seconds=samples.size / SR)
    result = diarization_error(reference, [Turn(t.start, t.end, str(t.speaker)) for t in turns])
    assert result.der < 0.3
    assert len({t.speaker for t in turns}) == 2
