"""What the timeline shows on real sounds: music pieces a silence apart are two events, ambience is never
speech, real speech under steady noise is speech (not noise), and laughter the detector cannot tell from
applause is "audience". Music and prompts from Asterisk's packages, ambience from minetest-data,
pachi-data and chromium-bsu-data, rain from tuxpaint-plugins-default, laughter and applause from
scratch and lmms-common (Debian, fetched on first use), speech from pocketsphinx-testdata's LibriVox readings."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from engine import config as engine_config
from engine.detect import analyze_audio, frame_features
from engine.detect.analyzer import audio_events
from engine.detect.audioset import AudioSetModel
from engine.detect.events import EVENT_TYPES
from tools.detector_corpus import collect, default_cache, load_corpus_clip
from tools.sound_clips import ClipsUnavailable, fetch_clips, load_clip
from tools.train_detectors import SR

pytestmark = pytest.mark.slow  # the AudioSet tagger over a minute of audio, and Debian packages fetched on first use


def _clips(kind: str) -> list[np.ndarray]:
    try:
        return [load_clip(p, sample_rate=SR) for p in fetch_clips(kind)]
    except ClipsUnavailable as exc:
        pytest.skip(f"real {kind} clips unavailable here: {exc}")


@pytest.fixture(scope="module")
def hold_music() -> list[np.ndarray]:
    """Two music-on-hold tracks of asterisk-moh-opsound-wav (two artists), float32 at 16 kHz."""
    try:
        clips = collect(packages={"asterisk-moh-opsound-wav"})
    except ClipsUnavailable as exc:
        pytest.skip(f"Asterisk's music on hold cannot be fetched here: {exc}")
    music = [c for c in clips if c.kind == "music"]
    return [load_corpus_clip(c, default_cache(), sample_rate=SR) for c in (music[0], music[-1])]


def _music(audio: np.ndarray, tagger: AudioSetModel) -> list[tuple[float, float]]:
    sounds, _ = audio_events(frame_features(audio, sr=SR, audioset=tagger))
    return [(e.start, e.end) for e in sounds if e.type == "music"]


def test_two_music_pieces_three_seconds_of_digital_silence_apart_are_two_events(hold_music, tagger) -> None:
    a, b = (x[: 8 * SR] for x in hold_music)
    audio = np.concatenate([a, np.zeros(3 * SR, np.float32), b])
    found = _music(audio, tagger)
    assert len(found) == 2, f"music events {found} for pieces at 0-8 s and 11-19 s"
    (s1, e1), (s2, e2) = found
    assert s1 <= 1.0 and abs(e1 - 8.0) <= 1.0 and abs(s2 - 11.0) <= 1.0 and e2 >= 18.0, found


def test_a_bed_with_brief_dips_stays_one_event(hold_music, tagger) -> None:
    bed = hold_music[0][: 16 * SR].copy()
    for start in range(2 * SR, 15 * SR, 3 * SR):  # 0.3 s dips, 30 dB down, every 3 s
        bed[start : start + int(0.3 * SR)] *= 10 ** (-30 / 20)
    assert len(_music(bed, tagger)) == 1


def test_ambience_is_never_speech(tagger) -> None:
    rng = np.random.default_rng(5)
    parts = []
    for clip in _clips("ambience"):
        looped = np.tile(clip, int(np.ceil(8 * SR / len(clip))))[: 8 * SR]
        parts += [looped * 10 ** (rng.uniform(-12, 0) / 20), np.zeros(SR // 2, np.float32)]
    audio = np.concatenate(parts).astype(np.float32)
    audio += (10 ** (-70 / 20) * rng.standard_normal(len(audio))).astype(np.float32)
    _, speech = audio_events(frame_features(audio, sr=SR, audioset=tagger))
    assert not speech, f"ambience labelled speech: {[(e.start, e.end) for e in speech]}"


def test_rain_is_noise_not_applause_or_speech(tagger) -> None:
    [clip] = _clips("rain")
    audio = np.tile(clip, int(np.ceil(20 * SR / len(clip))))[: 20 * SR].astype(np.float32)
    sounds, speech = audio_events(frame_features(audio, sr=SR, audioset=tagger))
    kinds = {e.type for e in sounds}
    assert not speech, f"rain labelled speech: {[(e.start, e.end) for e in speech]}"
    assert not kinds & {"applause", "laughter", "audience", "music"}, f"rain labelled {kinds}"
    assert sum(e.end - e.start for e in sounds if e.type == "noise") >= 15.0, sounds


@pytest.mark.parametrize("snr_db", [10, 5, 0])
def test_real_speech_under_steady_noise_is_speech_not_noise(librivox, tagger, snr_db: int) -> None:
    rng = np.random.default_rng(snr_db)
    speech_seconds = total = 0.0
    for wav in sorted(librivox)[:3]:
        x, sr = sf.read(wav, dtype="float32")
        hiss = rng.standard_normal(len(x)).astype(np.float32)
        audio = x + hiss * np.sqrt(np.mean(x**2) / np.mean(hiss**2)) * 10 ** (-snr_db / 20)
        sounds, speech = audio_events(frame_features(audio, sr=sr, audioset=tagger))
        assert not [e for e in sounds if e.type == "noise"], f"{wav.name} at {snr_db} dB SNR: {sounds}"
        speech_seconds += sum(e.duration for e in speech)
        total += len(x) / sr
    assert speech_seconds >= 0.9 * total


def test_laughter_over_applause_is_not_called_applause(tagger) -> None:
    applause = _clips("applause")[0]
    calls = []
    for laugh in _clips("laughter"):
        n = 4 * SR
        a, lg = np.tile(applause, 3)[:n], np.tile(laugh, int(np.ceil(n / len(laugh))))[:n]
        mix = 0.05 * (lg / np.sqrt(np.mean(lg**2)) + 10 ** (-10 / 20) * a / np.sqrt(np.mean(a**2)))
        audio = np.concatenate([np.zeros(SR), mix, np.zeros(SR)]).astype(np.float32)
        events = [e for e in analyze_audio(audio, sr=SR).events if e.type in ("applause", "laughter", "audience")]
        calls.append({e.type for e in events})
        for e in events:
            if e.type == "audience":
                assert 0.0 < e.score <= 1.0 and 0.0 <= e.value <= 1.0, e  # the score shown, laughter's share
    # laughter 10 dB over applause: the laugh is heard (as laughter or audience) in most mixtures
    assert sum(1 for c in calls if c & {"laughter", "audience"}) >= len(calls) / 2, calls


def test_audience_is_an_event_type_the_speech_gate_silences() -> None:
    assert "audience" in EVENT_TYPES
    assert "audience" in engine_config.NON_SPEECH_EVENT_TYPES


def test_the_classes_ingest_keeps_give_the_events_of_all_521(hold_music, tagger) -> None:
    """The extractor ingest uses keeps only the AudioSet classes the detectors read: on music, silence, rain and
    speech over music every event is the one all 521 classes give, and a class it did not keep is refused."""
    from engine.detect.analyzer import audioset_classes_read, feature_extractor
    from engine.detect.descriptors import audioset_logits_per_segment
    from engine.detect.sensitivities import DetectorSettings
    from engine.errors import ParameterError

    [rain] = _clips("rain")
    audio = np.concatenate([hold_music[0][: 6 * SR], np.zeros(2 * SR, np.float32), rain[: 6 * SR],
                            hold_music[1][: 6 * SR] * 0.2]).astype(np.float32)  # fmt: skip
    extractor = feature_extractor(sr=SR, settings=DetectorSettings(sound_model="audioset"))
    for at in range(0, len(audio), SR // 2):
        extractor.feed(audio[at : at + SR // 2])
    kept = extractor.finish()
    full = frame_features(audio, sr=SR, audioset=tagger)
    assert kept.audioset_classes == audioset_classes_read(tagger.class_names)
    assert kept.audioset.shape == (len(full.audioset), len(kept.audioset_classes)) and len(kept.audioset_classes) < 150
    settings = DetectorSettings(sound_model="audioset")
    found = audio_events(full, settings)
    assert "music" in {e.type for e in found[0]}, found  # the music and ambience rules had work to do
    assert audio_events(kept, settings) == found
    with pytest.raises(ParameterError, match=r"keep the scores of \d+ AudioSet classes, not of 'Whistling'"):
        audioset_logits_per_segment(kept, ("Whistling",))
