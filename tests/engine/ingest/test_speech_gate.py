"""The speech gate: recognition hears the whole file, words the detectors and Whisper both doubt are dropped."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.asr import ModelSpec, load_transcriber
from engine.asr.base import Word
from engine.audio.decode import iter_pcm_blocks, probe
from engine.detect.events import Event
from engine.ingest.speech_gate import kept_words, speech_spans
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


def _word(start: float, conf: float, text: str = "w") -> Word:
    return Word(start, start + 0.2, conf, text)


def test_words_go_only_where_a_sound_is_detected_no_speech_is_and_the_recogniser_doubts() -> None:
    sounds = [_event("laughter", 1.0, 2.0), _event("music", 3.0, 5.0), _event("noise", 6.0, 7.0)]
    speech = [_event("speech", 1.5, 2.0)]
    words = [_word(0.2, 0.1, "a"), _word(1.1, 0.99, "ha"), _word(1.6, 0.2, "b"), _word(3.5, 0.3, "c"),
             _word(6.2, 0.1, "d")]  # fmt: skip
    drop = {"laughter": 1.01, "music": 0.5}
    # "ha": in laughter, sure or not; "b" in laughter but inside detected speech; "c" doubtful in music;
    # "d" in noise, which this table lets stand
    assert [w.text for w in kept_words(words, sounds, speech, drop_below=drop)] == ["a", "b", "d"]
    assert [w.text for w in kept_words(words, sounds, speech, drop_below={})] == ["a", "ha", "b", "c", "d"]
    assert kept_words([], sounds, speech) == []


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
    """Through the ingest path: the generated broadcast's music-alone, applause and laughter
    stretches end with no word in them (Whisper hears them; the gate drops what it wrote there)."""
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


def test_detectors_with_audioset_call_a_presenter_over_a_music_bed_speech(tmp_path: Path) -> None:
    """A real file through the detectors (sound model "audioset"): the presenter over the bed lies in
    the stretches they call speech, the music alone after it does not."""
    import soundfile as sf

    from engine.detect.analyzer import audio_events, feature_extractor
    from engine.detect.sensitivities import DetectorSettings
    from engine.errors import ModelError
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
    settings = DetectorSettings(sound_model="audioset")
    try:
        extractor = feature_extractor(sr=sr, settings=settings)
    except ModelError as exc:
        pytest.skip(f"the AudioSet tagger is not installed here: {exc}")
    for block in iter_pcm_blocks(wav, sr=sr):
        extractor.feed(block)
    features = extractor.finish()
    sounds, speech = audio_events(features, settings)
    assert features.audioset is not None
    spans = speech_spans(sounds, speech, duration=features.duration)

    def heard(a: float, b: float) -> float:
        return sum(max(0.0, min(b, d) - max(a, c)) for c, d in spans) / (b - a)

    assert [e for e in sounds if e.type == "music"], sounds
    assert heard(intro + 0.5, speech_end - 0.5) > 0.8, (sounds, speech)
    assert heard(speech_end + 1.5, features.duration - 0.5) < 0.2, (sounds, speech)


def _noisy_librivox(librivox: dict[Path, str], folder: Path, snr_db: float) -> Path:
    """The first LibriVox clip under white noise ``snr_db`` below its RMS (fixed seed), as a WAV."""
    import soundfile as sf

    clip = sorted(librivox)[0]
    audio, sr = sf.read(str(clip), dtype="float32")
    noise = np.random.default_rng(7).standard_normal(audio.size).astype(np.float32)
    gain = np.sqrt(np.mean(audio**2) / np.mean(noise**2)) * 10 ** (-snr_db / 20)
    mixed = audio + noise * gain
    out = folder / f"noisy-{snr_db:g}dB.wav"
    sf.write(out, mixed / max(1.0, float(np.abs(mixed).max()) / 0.95), sr, subtype="PCM_16")
    return out


@pytest.mark.slow  # starts a recogniser
@pytest.mark.parametrize("snr_db", [0, 5, 10], ids=["0dB", "5dB", "10dB"])
def test_speech_under_steady_noise_keeps_every_word_whisper_heard(
    snr_db: float, tmp_path: Path, librivox: dict[Path, str], whisper_model: ModelSpec
) -> None:
    """Read speech under generated white noise: ingest (detectors, gate) keeps the very words
    faster-whisper gives on the same file with the same decoding options (the clip is one chunk)."""
    from faster_whisper import WhisperModel

    wav = _noisy_librivox(librivox, tmp_path, snr_db)
    transcriber = load_transcriber(whisper_model)
    ours = [w.shown for w in transcribe_file(probe(wav), transcriber).words]
    direct = WhisperModel(str(whisper_model.path), device="cpu", compute_type="int8", local_files_only=True)
    segments, _ = direct.transcribe(str(wav), **transcriber.whole_file_options())  # type: ignore[attr-defined]
    theirs = [str(w.word).strip() for s in segments for w in (s.words or ())]
    assert len(theirs) >= 5  # Whisper hears the speech through the noise

    def letters(words: list[str]) -> str:  # however word pieces are joined or punctuation split off
        return "".join(c for c in "".join(words).lower() if c.isalnum())

    assert letters(ours) == letters(theirs)
