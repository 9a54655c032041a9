"""Real spoken clips in five languages from Debian's Asterisk voice-prompt packages.

Telephone prompts read by professional speakers (8 kHz GSM), never used to choose any
rule, threshold or model in Earshot: held-out material for language identification.
:func:`language_clips` downloads a package with ``apt-get download`` (through
:mod:`tools.sound_clips`' cache), and joins consecutive prompts, sorted by name, into
clips of about ``seconds`` each with ``sox`` (16 kHz mono WAV).

| language | package (Debian 12)              | voice                          |
| -------- | -------------------------------- | ------------------------------ |
| en       | asterisk-core-sounds-en-gsm      | US English, Allison Smith      |
| es       | asterisk-core-sounds-es-gsm      | Mexican Spanish                |
| es       | asterisk-prompt-es-co            | Colombian Spanish              |
| fr       | asterisk-core-sounds-fr-gsm      | Canadian French                |
| fr       | asterisk-prompt-fr-armelle       | French, Armelle Desjardins     |
| it       | asterisk-core-sounds-it-gsm      | Italian                        |
| ru       | asterisk-core-sounds-ru-gsm      | Russian                        |
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tools.sound_clips import ClipsUnavailable, _download, _run, default_cache_dir, require_debian_tools

#: package -> language code.
PROMPT_PACKAGES: dict[str, str] = {
    "asterisk-core-sounds-en-gsm": "en",
    "asterisk-core-sounds-es-gsm": "es",
    "asterisk-prompt-es-co": "es",
    "asterisk-core-sounds-fr-gsm": "fr",
    "asterisk-prompt-fr-armelle": "fr",
    "asterisk-core-sounds-it-gsm": "it",
    "asterisk-core-sounds-ru-gsm": "ru",
}
#: Folders of single words (digits, letters) left out: a clip should be running speech.
_WORD_FOLDERS = {"digits", "letters", "phonetic", "silence", "dictate", "followme", "ha"}
#: Prompts that are not speech (tones, a recording of monkeys), left out of every clip.
_NOT_SPEECH = {"ascending-2tone", "descending-2tone", "beep", "beeperr", "tt-monkeys"}
#: Raw GSM 06.10: 33 bytes per 20 ms frame.
_GSM_BYTES_PER_SECOND = 33 / 0.02


@dataclass(frozen=True)
class LanguageClip:
    """One clip: its WAV file, language code, the package it came from and the prompts joined."""

    path: Path
    language: str
    package: str
    version: str
    prompts: tuple[str, ...]
    #: what the prompts say (the core packages' own transcripts), "" when the package has none.
    text: str = ""


def language_clips(package: str, *, count: int = 6, seconds: float = 10.0,
                   cache_dir: Path | None = None) -> list[LanguageClip]:
    """``count`` clips of about ``seconds`` s each from ``package`` (a key of ``PROMPT_PACKAGES``).

    The clips are spread over the package's prompts (sorted by name). Raises ClipsUnavailable
    when the package cannot be fetched or sox is missing.
    """
    language = PROMPT_PACKAGES[package]
    cache = (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / "language-clips"
    target = cache / f"{package}-{count}x{seconds:g}"
    manifest = target / "clips.json"
    if not manifest.is_file():
        _build(package, count, seconds, target)
    info = json.loads(manifest.read_text())
    return [LanguageClip(target / c["file"], language, package, info["version"], tuple(c["prompts"]), c["text"])
            for c in info["clips"]]


def _build(package: str, count: int, seconds: float, target: Path) -> None:
    require_debian_tools(package)
    if shutil.which("sox") is None:
        raise ClipsUnavailable(f"cannot make clips of {package}: sox is not installed here")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".build-{package}-") as tmp:
        work = Path(tmp)
        deb = _download(package, work)
        version = _run(["dpkg-deb", "-f", str(deb), "Version"], package).strip()
        root = work / "root"
        _run(["dpkg-deb", "-x", str(deb), str(root)], package)
        prompts = sorted(p for p in root.rglob("*.gsm")
                         if not (_WORD_FOLDERS & set(p.relative_to(root).parts)) and p.stem not in _NOT_SPEECH)
        texts = _prompt_texts(package, work)
        groups = _groups(prompts, seconds)
        if len(groups) < count:
            raise ClipsUnavailable(f"{package}: only {len(groups)} clips of {seconds:g} s in its prompts")
        chosen = [groups[round(k * (len(groups) - 1) / max(1, count - 1))] for k in range(count)]
        staged = work / "clips"
        staged.mkdir()
        clips = []
        for k, group in enumerate(chosen):
            name = f"{PROMPT_PACKAGES[package]}-{k:02d}.wav"
            cmd = ["sox", *map(str, group), "-r", "16000", "-c", "1", "-b", "16", str(staged / name)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
            if proc.returncode != 0:
                raise ClipsUnavailable(f"{package}: sox cannot join its prompts: {proc.stderr.strip()[-200:]}")
            said = [texts.get(p.stem, "") for p in group]
            clips.append({"file": name, "prompts": [p.relative_to(root).as_posix() for p in group],
                          "text": " ".join(said) if all(said) else ""})
        (staged / "clips.json").write_text(json.dumps({"package": package, "version": version, "clips": clips},
                                                      indent=1))
        if target.exists():
            shutil.rmtree(target)
        os.replace(staged, target)


def _groups(prompts: list[Path], seconds: float) -> list[list[Path]]:
    """Consecutive prompts of at least 1 s joined until each group lasts ``seconds``."""
    groups: list[list[Path]] = []
    current: list[Path] = []
    length = 0.0
    for prompt in prompts:
        duration = prompt.stat().st_size / _GSM_BYTES_PER_SECOND
        if duration < 1.0:
            continue
        current.append(prompt)
        length += duration
        if length >= seconds:
            groups.append(current)
            current, length = [], 0.0
    return groups


def _prompt_texts(package: str, work: Path) -> dict[str, str]:
    """Prompt name -> what it says, from ``asterisk-core-sounds-LANG``'s ``core-sounds-LANG.txt``
    (the transcripts of a ``-gsm`` core package); empty for the other packages."""
    if not (package.startswith("asterisk-core-sounds-") and package.endswith("-gsm")):
        return {}
    texts_package = package.removesuffix("-gsm")
    language = texts_package.removeprefix("asterisk-core-sounds-")
    folder = work / "texts"
    folder.mkdir()
    deb = _download(texts_package, folder)
    _run(["dpkg-deb", "-x", str(deb), str(folder / "root")], texts_package)
    found = list((folder / "root").rglob(f"core-sounds-{language}.txt*"))
    if not found:
        return {}
    raw = found[0].read_bytes()
    lines = (gzip.decompress(raw) if found[0].suffix == ".gz" else raw).decode("utf-8", "replace").splitlines()
    texts = {}
    for line in lines:
        name, sep, said = line.partition(":")
        if sep and not line.startswith(";") and "/" not in name:
            texts[name.strip()] = said.strip()
    return texts
