"""The test-broadcast generator: audio and ground truth agree, and the truth is true."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.errors import ParameterError
from tools import broadcast, sound_clips, tts
from tools.broadcast import EVENT_TYPES, SPEED_RANGE, build_broadcast, default_texts, load_truth

FRAME = 1024


def rms_dbfs(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(np.square(x))) + 1e-12))


def spectral_flatness(x: np.ndarray) -> float:
    """Mean over Hann-windowed frames of geometric / arithmetic mean of the power spectrum."""
    frames = np.lib.stride_tricks.sliding_window_view(x, FRAME)[:: FRAME // 2]
    power = np.abs(np.fft.rfft(frames * np.hanning(FRAME), axis=1)) ** 2 + 1e-20
    return float(np.mean(np.exp(np.mean(np.log(power), axis=1)) / np.mean(power, axis=1)))


def events_of(built, kind: str) -> list:
    return [e for e in built.truth.events if e.type == kind]


# --- the WAV and its JSON -------------------------------------------------------------


def test_wav_is_mono_16_bit_and_as_long_as_the_truth_says(short_broadcast):
    info = sf.info(short_broadcast.wav)
    truth = short_broadcast.truth
    assert (info.samplerate, info.channels, info.subtype, info.format) == (16000, 1, "PCM_16", "WAV")
    assert info.frames == truth.n_samples
    assert truth.duration == pytest.approx(info.frames / info.samplerate, abs=1e-6)


def test_json_beside_the_wav_holds_the_returned_truth(short_broadcast):
    path = short_broadcast.wav.with_suffix(".json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == broadcast.SCHEMA
    assert data["word_times_approximate"] is True
    assert load_truth(path) == short_broadcast.truth


def test_events_tile_the_whole_broadcast(short_broadcast):
    events = short_broadcast.truth.events
    assert events[0].start == 0.0
    assert events[-1].end == short_broadcast.truth.duration
    for a, b in itertools.pairwise(events):
        assert a.end == b.start
        assert not (a.type == b.type == "silence"), "adjacent silences are merged"
    assert all(e.end > e.start and e.type in EVENT_TYPES for e in events)
    assert {"speech", "music", "silence", "noise"} <= {e.type for e in events}


# --- stories, boundaries, words -------------------------------------------------------


def test_stories_are_read_in_order_without_overlap(short_broadcast, short_stories):
    stories = short_broadcast.truth.stories
    assert [s.text for s in stories] == short_stories
    assert [s.index for s in stories] == [0, 1, 2]
    for a, b in itertools.pairwise(stories):
        assert a.end < b.start
        assert a.voice != b.voice
    assert all(SPEED_RANGE[0] <= s.speed <= SPEED_RANGE[1] for s in stories)
    speech = events_of(short_broadcast, "speech")
    assert [(e.story, e.start, e.end) for e in speech] == [(s.index, s.start, s.end) for s in stories]


def test_boundaries_are_the_story_starts(short_broadcast):
    truth = short_broadcast.truth
    assert truth.boundary_words == [s.first_word for s in truth.stories[1:]]
    assert truth.boundary_seconds == [s.start for s in truth.stories[1:]]
    assert [truth.words[i].start for i in truth.boundary_words] == truth.boundary_seconds


def test_words_are_the_story_tokens_in_order(short_broadcast):
    truth = short_broadcast.truth
    assert [w.index for w in truth.words] == list(range(len(truth.words)))
    for story in truth.stories:
        words = truth.words[story.first_word : story.last_word + 1]
        assert [w.text for w in words] == story.text.split()
        assert story.n_words == len(words)
        assert {w.story for w in words} == {story.index}
    assert truth.words[1].norm == "rain"
    assert [w.norm for w in truth.words if w.text == "night."] == ["night"]


def test_word_times_increase_and_stay_inside_their_story(short_broadcast):
    truth = short_broadcast.truth
    for story in truth.stories:
        words = truth.words[story.first_word : story.last_word + 1]
        assert words[0].start == story.start
        for w, nxt in itertools.pairwise(words):
            assert w.start < w.end <= nxt.start
        assert words[-1].end <= story.end


def test_every_word_starts_on_speech(short_broadcast):
    # espeak-ng's word events mark where each word starts; a plosive's closure may delay its sound a little.
    for w in short_broadcast.truth.words:
        assert rms_dbfs(short_broadcast.span(w.start, w.start + 0.15)) > -40, w


# --- what each span sounds like -------------------------------------------------------


def test_music_beds_are_loud_and_tonal(short_broadcast):
    beds = events_of(short_broadcast, "music")
    assert len(beds) >= 3  # intro, at least one bed between stories, outro
    for e in beds:
        x = short_broadcast.span(e.start, e.end)
        assert rms_dbfs(x) > -30
        assert spectral_flatness(x) < 0.02
        spectrum = np.abs(np.fft.rfft(x)) ** 2
        top = np.sort(spectrum)[::-1][: len(spectrum) // 50]
        assert top.sum() / spectrum.sum() > 0.9, "energy sits in a few harmonic peaks"


def test_silences_are_silent(short_broadcast):
    for e in events_of(short_broadcast, "silence"):
        assert rms_dbfs(short_broadcast.span(e.start, e.end)) < -60, e


def test_noise_bursts_are_loud_and_flat(short_broadcast):
    bursts = events_of(short_broadcast, "noise")
    assert bursts
    for e in bursts:
        x = short_broadcast.span(e.start, e.end)
        assert rms_dbfs(x) > -35
        assert spectral_flatness(x) > 0.1


def test_speech_is_at_broadcast_level(short_broadcast):
    for e in events_of(short_broadcast, "speech"):
        assert -30 < rms_dbfs(short_broadcast.span(e.start, e.end)) < -15


# --- determinism, languages, lengths --------------------------------------------------


def test_same_seed_gives_the_same_bytes_with_a_cold_or_warm_cache(tmp_path, short_stories):
    cache = tmp_path / "cache"
    outs = [tmp_path / name for name in ("cold.wav", "warm.wav", "other.wav")]
    for out, seed in zip(outs, (5, 5, 6), strict=True):
        build_broadcast(out, stories=short_stories[:2], seed=seed, tts_cache_dir=cache)
    cold, warm, other = (p.read_bytes() for p in outs)
    assert cold == warm
    assert outs[0].with_suffix(".json").read_bytes() == outs[1].with_suffix(".json").read_bytes()
    assert cold != other


def test_korean_broadcast_reads_korean_news(tmp_path, tts_cache, build_to):
    built = build_to(tmp_path / "ko.wav", language="ko", n_stories=2, seed=1, tts_cache_dir=tts_cache)
    truth = built.truth
    assert truth.text_source == "resources/news/ko.txt"
    assert all(s.voice.startswith("ko") for s in truth.stories)
    assert all(any("\uac00" <= c <= "\ud7a3" for c in w.text) for w in truth.words)
    for story in truth.stories:
        assert [w.text for w in truth.words[story.first_word : story.last_word + 1]] == story.text.split()
        assert rms_dbfs(built.span(story.start, story.end)) > -30


def test_target_seconds_cycles_the_texts_until_long_enough(tmp_path, tts_cache, short_stories):
    truth = build_broadcast(tmp_path / "long.wav", stories=short_stories, target_seconds=45.0, seed=2, tts_cache_dir=tts_cache)
    assert truth.duration >= 45.0
    assert len(truth.stories) > len(short_stories)
    assert [s.text for s in truth.stories] == [short_stories[i % 3] for i in range(len(truth.stories))]
    assert truth.settings["target_seconds"] == 45.0


def test_default_texts_fall_back_to_the_repository_news(monkeypatch):
    monkeypatch.setattr(broadcast, "LEE_CORPUS", Path("/nonexistent/lee_background.cor"))
    texts, labels, name = default_texts("en")
    assert name == "resources/news/en.txt"
    assert len(texts) == 12 == len(labels)
    assert all(40 <= len(t.split()) <= 120 for t in texts)
    ko_texts, _, _ = default_texts("ko")
    assert len(ko_texts) == 8


def test_default_english_texts_are_the_lee_corpus_when_shared_is_there():
    if not broadcast.LEE_CORPUS.is_file():
        pytest.skip(f"the Lee corpus is not at {broadcast.LEE_CORPUS} (../shared is missing)")
    texts, labels, name = default_texts("en")
    assert name == "shared/data/lee/lee_background.cor"
    assert len(texts) > 100
    assert labels[0] == f"{name}:1"


# --- bad arguments --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"n_stories": 0}, "n_stories must be at least 1, got 0", id="no-stories"),
        pytest.param({"target_seconds": -5.0}, "target_seconds must be positive, got -5.0", id="negative-target"),
        pytest.param({"sample_rate": 4000}, "sample_rate must be between 8000 and 48000 Hz, got 4000", id="low-sample-rate"),
        pytest.param({"language": "xx"}, "no default voices for language 'xx'; pass voices=", id="language-without-voices"),
        pytest.param({"voices": []}, "voices must be a non-empty list of espeak-ng voice names, got []", id="no-voices"),
        pytest.param({"stories": []}, "stories must be a non-empty list of texts, got []", id="empty-story-list"),
        pytest.param({"stories": ["One story.", " -- "]}, "stories [1] have no words", id="story-without-words"),
    ],
)
def test_bad_arguments_are_refused(tmp_path, kwargs, message):
    with pytest.raises(ParameterError) as info:
        build_broadcast(tmp_path / "bad.wav", **kwargs)
    assert str(info.value) == message
    assert not (tmp_path / "bad.wav").exists()


def test_unknown_voice_is_refused_and_leaves_no_file(tmp_path):
    with pytest.raises(ParameterError) as info:
        build_broadcast(tmp_path / "bad.wav", stories=["Hello there."], voices=["zz-nope"], tts_cache_dir=tmp_path)
    assert str(info.value) == "espeak-ng has no voice 'zz-nope' (see `espeak-ng --voices`)"
    assert list(tmp_path.iterdir()) == []


# --- speech synthesis -----------------------------------------------------------------


def test_speak_without_word_events_shares_time_by_syllables(tmp_path, monkeypatch):
    monkeypatch.setattr(tts, "_render_with_library", lambda text, voice, speed: (None, 0, None))
    speech = tts.speak("Mayor Linda Okafor spoke today.", "en-us", 160, sample_rate=16000, cache_dir=tmp_path)
    assert speech.method == tts.METHOD_PROPORTIONAL
    spans = speech.word_spans
    assert spans[0, 0] == 0 and spans[-1, 1] == len(speech.audio)
    assert (spans[1:, 0] == spans[:-1, 1]).all()
    assert spans[1, 1] - spans[1, 0] > spans[0, 1] - spans[0, 0], "Linda has more syllables than Mayor"


def test_tokenize_keeps_words_and_drops_bare_punctuation():
    assert [t.text for t in tts.tokenize("The U.S. -- and 4:00pm, too.")] == ["The", "U.S.", "and", "4:00pm,", "too."]


# --- command line ---------------------------------------------------------------------


def test_command_line_builds_a_broadcast(tmp_path, capsys, monkeypatch, tts_cache, short_stories):
    monkeypatch.setenv("EARSHOT_TTS_CACHE", str(tts_cache))
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(short_stories[:2]) + "\n", encoding="utf-8")
    out = tmp_path / "cli.wav"
    args = [str(out), "--text-file", str(texts), "--seed", "4", "--no-music", "--no-noise"]
    assert broadcast.main(args) == 0
    truth = load_truth(out.with_suffix(".json"))
    assert len(truth.stories) == 2
    assert {e.type for e in truth.events} == {"speech", "silence"}
    assert "2 stories" in capsys.readouterr().out


def test_command_line_reports_bad_arguments_in_one_line(tmp_path, capsys):
    assert broadcast.main([str(tmp_path / "x.wav"), "--stories", "0"]) == 1
    assert capsys.readouterr().err == "error: n_stories must be at least 1, got 0\n"


# --- real applause and laughter -------------------------------------------------------


def test_fetch_clips_refuses_unknown_kinds():
    with pytest.raises(ParameterError) as info:
        sound_clips.fetch_clips("booing")
    assert str(info.value) == "unknown clip kind 'booing'; expected one of applause, laughter, crowd, ambience, music, rain"


def test_fetch_clips_says_why_when_apt_get_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(sound_clips.ClipsUnavailable) as info:
        sound_clips.fetch_clips("applause", cache_dir=tmp_path / "clips")
    assert str(info.value) == "cannot fetch Debian package lmms-common: apt-get is not installed here"


def test_clip_events_name_their_debian_source(clip_broadcast):
    expected = {"applause": "lmms-common", "laughter": "scratch"}
    for kind, package in expected.items():
        events = events_of(clip_broadcast, kind)
        assert events, f"no {kind} event"
        for e in events:
            assert e.source["package"] == package
            assert e.source["version"]
            assert e.source["member"].startswith("usr/share/")


def test_clip_events_are_where_the_clip_energy_is(clip_broadcast):
    sr = clip_broadcast.truth.sample_rate
    for e in events_of(clip_broadcast, "applause") + events_of(clip_broadcast, "laughter"):
        x = clip_broadcast.span(e.start, e.end)
        assert rms_dbfs(x) > -35, e
        assert rms_dbfs(clip_broadcast.span(e.start - 0.3, e.start)) < -60, "silence right before the clip"
        assert rms_dbfs(clip_broadcast.span(e.end, e.end + 0.3)) < -60, "silence right after the clip"
        # The span holds the packaged recording itself, sample-aligned (applause is looped: compare its first pass).
        path = sound_clips.default_cache_dir() / e.source["package"] / e.source["member"]
        clip = sound_clips.load_clip(path, sample_rate=sr).astype(np.float64)
        n = min(len(x), len(clip) - round(broadcast.CLIP_CROSSFADE_SECONDS * sr))
        correlation = np.dot(x[:n], clip[:n]) / (np.linalg.norm(x[:n]) * np.linalg.norm(clip[:n]))
        assert correlation > 0.99, e


@pytest.mark.slow
@pytest.mark.parametrize("script", ["broadcast.py", "demo.py", "train_detectors.py"])
def test_a_tool_runs_as_a_script_from_any_folder(script: str, tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "tools" / script), "--help"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage:"), run.stdout
