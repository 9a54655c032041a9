"""Streaming decode of every supported container, and every kind of bad file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.audio.decode import content_hash, decode_all, decode_range, iter_pcm_blocks, probe
from engine.errors import AudioError, ParameterError
from tests.fixtures.audio import espeak, ffmpeg, sox
from tests.fixtures.permissions import run_as_owner_only

TEXT = "The council met on Tuesday to discuss the new bridge across the river."


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stereo 44.1 kHz WAV made from espeak-ng speech."""
    d = tmp_path_factory.mktemp("speech")
    mono = espeak(TEXT, d / "mono.wav")
    sox(str(mono), "-r", "44100", "-c", "2", str(d / "stereo44.wav"))
    return d / "stereo44.wav"


@pytest.fixture(scope="module")
def reference(speech: Path) -> np.ndarray:
    return decode_all(speech).astype(np.float64)


@pytest.mark.parametrize(
    ("suffix", "args"),
    [
        pytest.param(".wav", (), id="wav"),
        pytest.param(".flac", (), id="flac"),
        pytest.param(".ogg", ("-c:a", "libvorbis"), id="ogg-vorbis"),
        pytest.param(".mp3", (), id="mp3"),
        pytest.param(".m4a", ("-c:a", "aac"), id="m4a-aac"),
        pytest.param(".mkv", ("-c:a", "aac"), id="mkv-audio-track"),
        pytest.param(".wav", ("-ar", "8000", "-ac", "1"), id="wav-8k-mono"),
        pytest.param(".flac", ("-ar", "48000", "-ac", "6"), id="flac-48k-6ch"),
    ],
)
def test_every_container_decodes_to_the_same_16k_mono_signal(
    tmp_path: Path, speech: Path, reference: np.ndarray, suffix: str, args: tuple[str, ...]
) -> None:
    path = ffmpeg(speech, tmp_path / f"x{suffix}", *args)
    pcm = decode_all(path).astype(np.float64)
    assert pcm.dtype == np.float64 and pcm.ndim == 1
    # Same length within a codec frame or two of padding.
    assert abs(pcm.size - reference.size) < 0.06 * 16000
    n = min(pcm.size, reference.size) // 160 * 160
    # Lossy codecs shift by their priming delay: compare 10 ms envelopes at the best lag.
    env_a = np.abs(reference[:n]).reshape(-1, 160).mean(axis=1)
    env_b = np.abs(pcm[:n]).reshape(-1, 160).mean(axis=1)
    best = max(np.corrcoef(env_a[5:-5], np.roll(env_b, -lag)[5:-5])[0, 1] for lag in range(0, 8))
    assert best > 0.9


def test_video_container_with_a_video_stream_gives_its_audio(tmp_path: Path, speech: Path) -> None:
    video = tmp_path / "clip.mp4"
    import subprocess

    from tests.fixtures.audio import need

    subprocess.run(
        [need("ffmpeg"), "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=6",
         "-i", str(speech), "-shortest", "-c:v", "mpeg4", "-c:a", "aac", str(video)],
        check=True,
    )
    info = probe(video)
    assert info.channels == 2 and info.sample_rate == 44100
    assert decode_all(video).size > 3 * 16000


def test_blocks_have_the_requested_length_and_sum_to_the_whole(speech: Path) -> None:
    blocks = list(iter_pcm_blocks(speech, block_seconds=0.25))
    assert all(b.size == 4000 for b in blocks[:-1])
    assert 0 < blocks[-1].size <= 4000
    assert all(b.dtype == np.int16 for b in blocks)
    info = sf.info(str(speech))
    assert abs(sum(b.size for b in blocks) / 16000 - info.duration) < 0.01


def test_probe_reports_the_native_format(speech: Path) -> None:
    info = probe(speech)
    assert (info.sample_rate, info.channels, info.codec) == (44100, 2, "pcm_s16le")
    assert info.duration == pytest.approx(sf.info(str(speech)).duration, abs=0.01)
    assert info.size_bytes == speech.stat().st_size


def test_content_hash_changes_with_content(tmp_path: Path, speech: Path) -> None:
    a = tmp_path / "a.wav"
    a.write_bytes(speech.read_bytes())
    h1 = content_hash(a)
    assert h1 == content_hash(speech)
    with a.open("r+b") as fh:
        fh.seek(5000)
        fh.write(b"\x01\x02")
    assert content_hash(a) != h1


def _make_bad(kind: str, tmp: Path, speech: Path) -> Path:
    data = speech.read_bytes()
    if kind == "empty":
        (tmp / "empty.wav").write_bytes(b"")
        return tmp / "empty.wav"
    if kind == "text":
        (tmp / "notes.mp3").write_text("these are my meeting notes, not audio\n")
        return tmp / "notes.mp3"
    if kind == "truncated-wav":
        (tmp / "cut.wav").write_bytes(data[: len(data) // 5])
        return tmp / "cut.wav"
    if kind == "truncated-flac":
        flac = ffmpeg(speech, tmp / "full.flac")
        cut = tmp / "cut.flac"
        cut.write_bytes(flac.read_bytes()[: flac.stat().st_size // 4])
        return cut
    if kind == "corrupt-header":
        (tmp / "bad.wav").write_bytes(b"RIFF" + os.urandom(40) + data[44:])
        return tmp / "bad.wav"
    if kind == "missing":
        return tmp / "gone.wav"
    if kind == "folder":
        (tmp / "dir.wav").mkdir()
        return tmp / "dir.wav"
    if kind == "video-only":
        out = tmp / "silent.mkv"
        import subprocess

        from tests.fixtures.audio import need

        subprocess.run([need("ffmpeg"), "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        "color=c=black:s=32x32:d=1", "-c:v", "mpeg4", str(out)], check=True)
        return out
    raise AssertionError(kind)


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("empty", "empty file (0 bytes)"),
        ("text", "not a recognised audio or video file"),
        ("truncated-wav", "truncated: decoded"),
        ("truncated-flac", "corrupt audio data"),
        ("corrupt-header", "not a recognised audio or video file"),
        ("missing", "file not found (missing or removed)"),
        ("folder", "is a folder, not a recording"),
        ("video-only", "no audio track"),
    ],
)
def test_bad_files_give_one_line_naming_file_and_reason(tmp_path: Path, speech: Path, kind: str, reason: str) -> None:
    path = _make_bad(kind, tmp_path, speech)
    with pytest.raises(AudioError) as err:
        probe(path)
        list(iter_pcm_blocks(path))
    message = str(err.value)
    assert message.startswith(f"{path.absolute()}: ")
    assert reason in message
    assert "\n" not in message


PROBE = """
import sys
from engine.audio.decode import probe
from engine.errors import AudioError
try:
    probe(sys.argv[1])
except AudioError as exc:
    print(exc)
"""


def test_unreadable_file(tmp_path: Path, speech: Path) -> None:
    path = tmp_path / "locked.wav"
    path.write_bytes(speech.read_bytes())
    path.chmod(0)
    run = run_as_owner_only(PROBE, str(path))  # as root too: without root's right to read any file
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"{path}: permission denied", run.stdout


def test_parameters_are_checked(speech: Path) -> None:
    with pytest.raises(ParameterError, match="sr=0"):
        next(iter_pcm_blocks(speech, sr=0))


@pytest.mark.parametrize(("suffix", "args"), [
    pytest.param(".wav", (), id="wav"), pytest.param(".flac", (), id="flac"),
    pytest.param(".ogg", ("-c:a", "libvorbis"), id="ogg-vorbis"), pytest.param(".mp3", (), id="mp3"),
])
def test_a_range_is_the_same_samples_as_the_whole_decode_cut(tmp_path: Path, speech: Path, suffix: str,
                                                              args: tuple[str, ...]) -> None:
    path = ffmpeg(speech, tmp_path / f"x{suffix}", *args)
    whole = decode_all(path).astype(np.float64)
    start, end = 1.25, 2.5
    part = decode_range(path, start, end).astype(np.float64)
    assert abs(part.size - (end - start) * 16000) <= 1
    # Compared as 10 ms envelopes: a seek restarts the resampler, so the first samples differ a
    # little, and MP3's priming delay is skipped by a full decode but not by a seek (under 100 ms).
    a = round(start * 16000)
    env = np.abs(part[: part.size // 160 * 160]).reshape(-1, 160).mean(axis=1)
    fits = {lag: np.corrcoef(env, np.abs(whole[a + lag * 160: a + lag * 160 + env.size * 160])
                             .reshape(-1, 160).mean(axis=1))[0, 1] for lag in range(-10, 11)}
    best = max(fits, key=fits.__getitem__)
    assert fits[best] > 0.9
    if suffix in (".wav", ".flac"):
        assert best == 0


def test_a_range_past_the_end_is_short_and_bad_ranges_are_refused(speech: Path) -> None:
    duration = decode_all(speech).size / 16000
    assert decode_range(speech, duration + 5, duration + 10).size == 0
    assert 0 < decode_range(speech, duration - 0.5, duration + 10).size <= 0.5 * 16000 + 1
    with pytest.raises(ParameterError):
        decode_range(speech, 2.0, 1.0)
