"""Real recorded voices from Debian packages, for speaker tests and benches.

The recordings are never committed: :func:`fetch_voice` downloads the Debian
package that holds a voice with ``apt-get download``, unpacks it with
``dpkg-deb -x`` and keeps only that voice's files in a cache folder
(``EARSHOT_VOICE_CACHE`` or ``~/.cache/earshot-voices``). Each entry is one
person; ``speaker`` names the person (Allison recorded both the US English and the
Mexican Spanish Asterisk prompts).

| voice      | speaker  | package (Debian 12)                     | files                                         | rate   |
| ---------- | -------- | --------------------------------------- | --------------------------------------------- | ------ |
| allison-en | allison  | asterisk-core-sounds-en-wav 1.6.1       | usr/share/asterisk/sounds/en_US_f_Allison/    | 8 kHz  |
| allison-es | allison  | asterisk-core-sounds-es-wav 1.6.1       | usr/share/asterisk/sounds/es_MX_f_Allison/    | 8 kHz  |
| june       | june     | asterisk-core-sounds-fr-wav 1.6.1       | usr/share/asterisk/sounds/fr_CA_f_June/       | 8 kHz  |
| carlo      | carlo    | asterisk-core-sounds-it-wav 1.6.1       | usr/share/asterisk/sounds/it_IT_m_Carlo/      | 8 kHz  |
| ivr-ru     | ivr-ru   | asterisk-core-sounds-ru-wav 1.6.1       | usr/share/asterisk/sounds/ru_RU_f_IvrvoiceRU/ | 8 kHz  |
| menardi    | menardi  | asterisk-prompt-it-menardi-wav 1.4.22   | usr/share/asterisk/sounds/it_IT_f_Menardi/    | 8 kHz  |
| es-co      | es-co    | asterisk-prompt-es-co 0.20070403        | usr/share/asterisk/sounds/es/*.gsm            | 8 kHz  |
| armelle    | armelle  | asterisk-prompt-fr-armelle 20070613     | usr/share/asterisk/sounds/fr/*.gsm            | 8 kHz  |
| librivox   | librivox | pocketsphinx-testdata 5prealpha         | usr/share/pocketsphinx/test/data/librivox/    | 16 kHz |

``TUNING_SPEAKERS`` are the only voices any speaker threshold may be chosen on;
``HELD_OUT_SPEAKERS`` are for measuring only.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from engine.audio.decode import decode_all
from engine.errors import EarshotError
from tools.sound_clips import ClipsUnavailable, _download, _run, require_debian_tools

DEFAULT_CACHE_DIR = Path("~/.cache/earshot-voices")
MANIFEST = "package.json"
_AST = "usr/share/asterisk/sounds"


@dataclass(frozen=True)
class Voice:
    """One person's recordings inside one Debian package."""

    name: str
    speaker: str
    package: str
    pattern: str  # glob of the files inside the package (``*`` never crosses a ``/``)


VOICES: dict[str, Voice] = {
    v.name: v
    for v in (
        Voice("allison-en", "allison", "asterisk-core-sounds-en-wav", f"{_AST}/en_US_f_Allison/*.wav"),
        Voice("allison-es", "allison", "asterisk-core-sounds-es-wav", f"{_AST}/es_MX_f_Allison/*.wav"),
        Voice("june", "june", "asterisk-core-sounds-fr-wav", f"{_AST}/fr_CA_f_June/*.wav"),
        Voice("carlo", "carlo", "asterisk-core-sounds-it-wav", f"{_AST}/it_IT_m_Carlo/*.wav"),
        Voice("ivr-ru", "ivr-ru", "asterisk-core-sounds-ru-wav", f"{_AST}/ru_RU_f_IvrvoiceRU/*.wav"),
        Voice("menardi", "menardi", "asterisk-prompt-it-menardi-wav", f"{_AST}/it_IT_f_Menardi/*.wav"),
        Voice("es-co", "es-co", "asterisk-prompt-es-co", f"{_AST}/es/*.gsm"),
        Voice("armelle", "armelle", "asterisk-prompt-fr-armelle", f"{_AST}/fr/*.gsm"),
        Voice("librivox", "librivox", "pocketsphinx-testdata", "usr/share/pocketsphinx/test/data/librivox/*.wav"),
    )
}
#: Voices whose recordings may be used to choose a threshold, and those kept for measuring only.
TUNING_SPEAKERS = ("allison-en", "june", "librivox")
HELD_OUT_SPEAKERS = ("carlo", "ivr-ru", "menardi", "es-co", "armelle")


class VoiceUnavailable(EarshotError):
    """A voice's Debian package cannot be downloaded or unpacked here."""


def default_cache_dir() -> Path:
    """``EARSHOT_VOICE_CACHE`` or ``~/.cache/earshot-voices``."""
    return Path(os.environ.get("EARSHOT_VOICE_CACHE", str(DEFAULT_CACHE_DIR))).expanduser()


def fetch_voice(name: str, cache_dir: Path | None = None) -> list[Path]:
    """The files of voice ``name``, sorted, fetched and unpacked into the cache on first use.

    Raises :class:`VoiceUnavailable` naming the package when it cannot be had.
    """
    voice = VOICES[name]
    cache = cache_dir if cache_dir is not None else default_cache_dir()
    target = cache / voice.name
    if not (target / MANIFEST).is_file():
        try:
            _unpack_voice(voice, target)
        except ClipsUnavailable as error:
            raise VoiceUnavailable(str(error)) from error
    files = sorted(p for p in target.rglob("*") if p.is_file() and p.name != MANIFEST)
    if not files:
        raise VoiceUnavailable(f"{voice.package}: no files match {voice.pattern}")
    return files


def load_utterance(path: Path, *, sample_rate: int = 16_000) -> np.ndarray:
    """One recording as float32 in [-1, 1] at ``sample_rate``, near-silent ends (below -40 dB of peak) trimmed."""
    samples = decode_all(path, sr=sample_rate).astype(np.float32) / 32768.0
    frame = sample_rate // 100
    count = len(samples) // frame
    if count == 0:
        return samples
    rms = np.sqrt((samples[: count * frame].reshape(count, frame) ** 2).mean(axis=1))
    loud = np.flatnonzero(rms > rms.max() * 0.01)
    return samples[loud[0] * frame : (loud[-1] + 1) * frame] if loud.size else samples[:0]


def _unpack_voice(voice: Voice, target: Path) -> None:
    require_debian_tools(voice.package)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".fetch-{voice.name}-") as tmp:
        work = Path(tmp)
        deb = _download(voice.package, work)
        version = _run(["dpkg-deb", "-f", str(deb), "Version"], voice.package).strip()
        root = work / "root"
        _run(["dpkg-deb", "-x", str(deb), str(root)], voice.package)
        staged = work / voice.name
        staged.mkdir()
        kept = []
        for source in sorted(root.rglob("*")):
            member = source.relative_to(root).as_posix()
            if source.is_file() and not source.is_symlink() and PurePosixPath(member).match(voice.pattern):
                shutil.copyfile(source, staged / source.name)
                kept.append(member)
        manifest = {"package": voice.package, "version": version, "deb": deb.name, "members": kept}
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=1))
        if target.exists():
            shutil.rmtree(target)
        os.replace(staged, target)
