"""Recognition hears only detected speech: the spans, the silencing, and real broadcasts through ingest."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.asr import ModelSpec, load_transcriber
from engine.audio.decode import probe
from engine.detect.events import Event
from engine.ingest.speech_gate import gate_blocks, span_gain, speech_spans
from engine.ingest.transcribe import transcribe_file
from tools.broadcast import build_broadcast
from tools.sound_clips import ClipsUnavailable

STORIES = [
    "Heavy rain closed the Harbour Bridge in Riverton last night. Mayor Linda Okafor thanked the volunteers.",
    "Farmers in the eastern valleys expect a record apple harvest after a mild winter and a wet summer.",
    "The national orchestra will tour six cities this spring, with free concerts for schools.",
]
SOUNDS = ("music", "applause", "laughter")


def _event(kind: str, start: float, end: float) -> Event:
    return Event(kind, start, end, 1.0, 0.0)


def test_speech_is_padded_merged_and_cut_around_sounds() -> None:
    speech = [_event("speech", 1.0, 2.0), _event("speech", 2.4, 5.0), _event("speech", 9.0, 9.95)]
    sounds = [_event("music", 3.0, 4.0), _event("applause", 6.0, 8.9), _event("fast", 1.0, 2.0)]
    # 1-2 and 2.4-5 merge once padded; the music is cut out; the applause clips the last span's pad
    assert speech_spans(sounds, speech, pad=0.3, duration=10.0) == [(0.7, 3.0), (4.0, 5.3), (8.9, 10.0)]
    assert speech_spans([], [], pad=0.3) == []
    # speech wholly inside a sound is not heard at all
    assert speech_spans([_event("noise", 0.0, 3.0)], [_event("speech", 1.0, 2.0)], pad=0.3) == []


def test_gain_is_one_inside_zero_outside_and_ramps_at_the_edges() -> None:
    gain = span_gain([(0.01, 0.02)], first=0, n=400, sr=10_000, fade=0.002)  # span = samples 100..200
    assert gain[:100].max() == 0 and gain[200:].max() == 0
    assert np.all(gain[120:180] == 1)
    assert np.all(np.diff(gain[100:121]) >= 0) and np.all(np.diff(gain[180:201]) <= 0)
    assert 0 < gain[100] < 0.1 and 0 < gain[199] < 0.1


@pytest.mark.parametrize("block", [1, 7, 160, 16_000], ids=["1-sample", "7-samples", "10-ms", "1-s"])
def test_gating_keeps_block_lengths_and_times_whatever_the_block_size(block: int, rng: np.random.Generator) -> None:
    audio = rng.integers(-20_000, 20_000, size=32_000).astype(np.int16)
    spans = [(0.2, 0.5), (0.5, 0.6), (1.5, 3.0)]
    blocks = [audio[i : i + block] for i in range(0, audio.size, block)]
    out = list(gate_blocks(iter(blocks), spans, sr=16_000))
    assert [b.size for b in out] == [b.size for b in blocks] and all(b.dtype == np.int16 for b in out)
    gated = np.concatenate(out)
    whole = np.rint(audio * span_gain(spans, first=0, n=audio.size, sr=16_000)).astype(np.int16)
    assert np.array_equal(gated, whole)
    assert not gated[: int(0.2 * 16_000)].any() and not gated[int(0.6 * 16_000) + 1 : int(1.5 * 16_000)].any()
    assert np.array_equal(gated[int(1.6 * 16_000) : int(2.9 * 16_000)], audio[int(1.6 * 16_000) : int(2.9 * 16_000)])


@pytest.fixture(scope="module")
def sound_broadcast(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[tuple[float, float]]]]:
    """Three stories with music beds, noise bursts, real applause and laughter; truth spans by type."""
    out = tmp_path_factory.mktemp("gate") / "broadcast.wav"
    try:
        truth = build_broadcast(out, stories=STORIES, seed=31, applause=True, laughter=True)
    except ClipsUnavailable as exc:
        pytest.skip(f"real applause/laughter clips unavailable here: {exc}")
    spans: dict[str, list[tuple[float, float]]] = {}
    for e in truth.events:
        spans.setdefault(e.type, []).append((e.start, e.end))
    assert all(spans.get(kind) for kind in SOUNDS), spans.keys()
    return out, spans


@pytest.mark.slow  # starts a recogniser
@pytest.mark.parametrize("engine", ["whisper", "vosk"])
def test_no_word_inside_music_applause_or_laughter(
    engine: str, request: pytest.FixtureRequest, sound_broadcast: tuple[Path, dict[str, list[tuple[float, float]]]],
) -> None:  # fmt: skip
    """Through the ingest path: the recogniser never heard the sounds, so it placed no word in them."""
    spec: ModelSpec = request.getfixturevalue("whisper_model" if engine == "whisper" else "ko_model")
    if engine == "vosk":  # the Korean model on English speech, told nothing of its language: not refused
        spec = replace(spec, language="und")
    wav, spans = sound_broadcast
    transcript = transcribe_file(probe(wav), load_transcriber(spec))
    assert len(transcript.words) >= 10  # the speech was heard
    margin = 0.1  # a truth span's edge is a fade, not a wall
    inside = [(w.shown, w.start, kind) for w in transcript.words for kind in SOUNDS for a, b in spans[kind]
              if a + margin < (w.start + w.end) / 2 < b - margin]  # fmt: skip
    assert inside == []
    heard = {e.type for e in transcript.analysis.events}
    assert "speech" in heard and heard & {"music", "applause", "laughter"}  # detections of the first pass are stored


def test_speech_wholly_inside_music_stays_audible_but_not_inside_other_sounds() -> None:
    """The detectors report speech heard under a music bed as speech events inside the music event."""
    speech = [_event("speech", 0.0, 2.0), _event("speech", 4.0, 6.0), _event("speech", 12.0, 13.0)]
    sounds = [_event("music", 2.0, 9.0), _event("applause", 11.0, 14.0)]
    # 4-6 lies inside the music: heard (without pad: the music around it stays silent); 12-13 inside applause: not
    assert speech_spans(sounds, speech, pad=0.3, duration=20.0) == [(0.0, 2.0), (4.0, 6.0)]
    # speech only partly inside the music is cut as before
    assert speech_spans([_event("music", 3.0, 5.0)], [_event("speech", 2.0, 4.0)], pad=0.0) == [(2.0, 3.0)]


def test_ingest_first_pass_with_audioset_keeps_a_presenter_over_a_music_bed_audible(tmp_path: Path) -> None:
    """A real file through ingest's detector pass (sound model "audioset"): the music found around and
    after the speech is silenced, the speech over the bed is not."""
    import soundfile as sf

    from engine.detect.sensitivities import DetectorSettings
    from engine.errors import ModelError
    from engine.ingest.transcribe import StageTimes, detect_pass
    from engine.jobs import CancelToken
    from tools.synth import music_bed
    from tools.tts import SpeechSynthesisError, speak

    sr = 16000
    try:
        said = [speak(t, "en-us", 160, sample_rate=sr).audio for t in STORIES[:2]]
    except SpeechSynthesisError as exc:
        pytest.skip(f"espeak-ng is needed: {exc}")
    rng = np.random.default_rng(5)
    intro, outro = 6.0, 6.0  # music alone before and after the presenter
    bed = music_bed(intro + sum(len(s) for s in said) / sr + 0.5 + outro, sample_rate=sr, rng=rng)
    voice = np.zeros(len(bed), np.float32)
    at = int(intro * sr)
    for s in said:
        voice[at : at + len(s)] += s
        at += len(s) + sr // 2
    speech_end = (at - sr // 2) / sr
    level = np.sqrt(np.mean(np.concatenate(said) ** 2)) / np.sqrt(np.mean(bed**2)) * 10 ** (-14 / 20)
    wav = tmp_path / "bed.wav"
    sf.write(wav, np.clip(voice + bed * level, -1, 1), sr, subtype="PCM_16")
    try:
        features, (sounds, speech) = detect_pass(probe(wav), sr=sr, settings=DetectorSettings(sound_model="audioset"),
                                                 cancel=CancelToken(), on_progress=lambda d, t: None,
                                                 times=StageTimes())  # fmt: skip
    except ModelError as exc:
        pytest.skip(f"the AudioSet tagger is not installed here: {exc}")
    assert features.audioset is not None
    spans = speech_spans(sounds, speech, duration=features.duration)

    def heard(a: float, b: float) -> float:
        return sum(max(0.0, min(b, d) - max(a, c)) for c, d in spans) / (b - a)

    assert [e for e in sounds if e.type == "music"], sounds
    assert heard(intro + 0.5, speech_end - 0.5) > 0.8, (sounds, speech)
    assert heard(speech_end + 1.5, features.duration - 0.5) < 0.2, (sounds, speech)
