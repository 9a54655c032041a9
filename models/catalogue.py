"""The official Vosk models, and CTranslate2 Whisper models, Earshot offers to download.

Every archive lives at ``https://alphacephei.com/vosk/models/NAME.zip``.

Where the checksums come from
-----------------------------
Alpha Cephei publishes byte sizes and MD5 sums (``model-list.json``) but no
SHA-256. Each ``sha256`` below is the SHA-256 of the unchanged official zip as
pinned by at least two independent public sources (the Rhasspy mirror on
Hugging Face, whose Git-LFS pointers carry the SHA-256 and byte size of the
zip, and projects and build recipes that verify the download from
alphacephei.com), with the byte size matching the official list. No value was
computed or guessed here.

Where no such value was found, ``sha256`` is ``None``. The manager then checks
the download by its size (when known), by zip integrity (the CRC-32 of every
member, ``ZipFile.testzip``) and by the Vosk folder layout, and records the
SHA-256 it computed in the installed model's manifest (with
``archive_sha256_verified: false``), so a later check can compare against it.

Whisper models
--------------
The CTranslate2 conversions of OpenAI's Whisper that ``faster-whisper`` uses,
from the Systran organisation on Hugging Face (``WHISPER_BASE_URL/REPO/resolve/main/FILE``):
tiny, base, small, medium (multilingual and ``.en``), large-v3, and the distil
variants. Each is a folder of separate files, fetched one by one through the
same resumable download and installed atomically with a manifest. Their sizes
here are the approximate model sizes (MiB) for a listing; no byte size or
SHA-256 of these files was available to pin, so ``size_bytes`` and ``sha256``
are None and the manager checks the folder's layout and records the SHA-256 of
every file it installed (``sha256_verified: false``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

BASE_URL = "https://alphacephei.com/vosk/models"
WHISPER_BASE_URL = "https://huggingface.co"
#: Files of a CTranslate2 Whisper model folder, as the Systran repositories hold them.
WHISPER_FILES = ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")

#: The model the user is pointed to when no speech model is installed at all.
RECOMMENDED = "vosk-model-small-en-us-0.15"


@dataclass(frozen=True)
class CatalogueEntry:
    """One downloadable Vosk model.

    Attributes
    ----------
    name : archive and folder name, e.g. ``"vosk-model-small-en-us-0.15"``.
    language : language code, e.g. ``"en-us"``, ``"de"``.
    size_mb : approximate archive size in MiB, as the model page lists it.
    size_bytes : exact archive size in bytes, or None when not published.
    sha256 : SHA-256 of the archive (64 lowercase hex digits), or None (see module docstring).
    kind : ``"small"`` (phones, laptops, ~50 MB) or ``"big"`` (servers, up to a few GB).
    summary : one line for a listing.
    engine : ``"vosk"`` (one zip archive) or ``"whisper"`` (the files of ``repo``).
    repo : for Whisper, the Hugging Face repository, e.g. ``"Systran/faster-whisper-small"``.
    files : for Whisper, the files to fetch from ``repo``.
    """

    name: str
    language: str
    size_mb: int
    size_bytes: int | None
    sha256: str | None
    kind: Literal["small", "big"]
    summary: str
    engine: Literal["vosk", "whisper"] = "vosk"
    repo: str = ""
    files: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        """Where the official archive (Vosk) or the folder of files (Whisper) is downloaded from."""
        if self.engine == "whisper":
            return f"{WHISPER_BASE_URL}/{self.repo}/resolve/main"
        return f"{BASE_URL}/{self.name}.zip"


def _small(name: str, language: str, size_bytes: int, sha256: str | None, summary: str) -> CatalogueEntry:
    return CatalogueEntry(name, language, round(size_bytes / 2**20), size_bytes, sha256, "small", summary)


CATALOGUE: tuple[CatalogueEntry, ...] = (
    _small("vosk-model-small-en-us-0.15", "en-us", 41_205_931,
           "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498", "US English, lightweight"),
    CatalogueEntry("vosk-model-en-us-0.22", "en-us", 1800, None,
                   "47f9a81ebb039dbb0bd319175c36ac393c0893b796c2b6303e64cf58c27b69f6", "big",
                   "US English, most accurate (1.8 GB)"),
    CatalogueEntry("vosk-model-en-us-0.22-lgraph", "en-us", 128, None, None, "big",
                   "US English, big acoustic model with a dynamic graph"),
    _small("vosk-model-small-en-in-0.4", "en-in", 37_573_330,
           "20663dcac4d5cb783a579c54d98339344a688e4ec6e1b4a4b059fd1235454cc7", "Indian English, lightweight"),
    _small("vosk-model-small-cn-0.22", "zh", 43_898_754,
           "3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba", "Chinese, lightweight"),
    _small("vosk-model-small-ru-0.22", "ru", 46_236_750,
           "961d5ff98a17f4aa6de69864d0aa71fa5bac682301d2b5d17a3f24c5c99a46d4", "Russian, lightweight"),
    _small("vosk-model-small-fr-0.22", "fr", 42_233_323,
           "cabf6180e177eb9b3a9a9d43a437bd5e549f3a7d09525e5d69a3fed787be12ad", "French, lightweight"),
    _small("vosk-model-small-de-0.15", "de", 46_499_967,
           "b7e53c90b1f0a38456f4cd62b366ecd58803cd97cd42b06438e2c131713d5e43", "German, lightweight"),
    _small("vosk-model-small-es-0.42", "es", 39_817_833,
           "09b239888f633ef2f0b4e09736e3d9936acfd810bc65d53fad45261762c6511f", "Spanish, lightweight"),
    _small("vosk-model-small-pt-0.3", "pt", 32_453_112,
           "6e1ce909032e1afa7a88e68a3d628ecafff302bdf195befab308826c395e93b7", "Portuguese, lightweight"),
    _small("vosk-model-small-it-0.22", "it", 49_665_141,
           "9ec65e75861d1c6c2e457cccd932705340dcdf233f5b239f00733b4de0bf3267", "Italian, lightweight"),
    _small("vosk-model-small-nl-0.22", "nl", 40_441_176,
           "039811c3b829de64e4f123a9f684a53784005b212a346ac0b899dc7efce2ed0a", "Dutch, lightweight"),
    _small("vosk-model-small-ja-0.22", "ja", 49_704_573,
           "efa092d280153a77615e9e0c7d7283e93e600de3d19d3bec686c57ef19d52eac", "Japanese, lightweight"),
    _small("vosk-model-small-ko-0.22", "ko", 86_914_329, None, "Korean, lightweight"),
    _small("vosk-model-small-pl-0.22", "pl", 52_979_372,
           "c4cd16498ea544f446f9e9a55cbd602b71cfe5a2b6f2b0834d81e1b6fce15f0d", "Polish, lightweight"),
    _small("vosk-model-small-tr-0.3", "tr", 36_855_784,
           "8c8d07cec1bce31add14967c16891c84152cdf76d391e33c08278119b9ea96e5", "Turkish, lightweight"),
    _small("vosk-model-small-hi-0.22", "hi", 44_458_845,
           "7c50a10866889f0ac21d912c20537a055a597ed09fc1d3e5bcd798f9f0017e48", "Hindi, lightweight"),
    _small("vosk-model-small-ca-0.4", "ca", 43_405_881,
           "99f90bfff5c2b187c705ddbc20aaa2600eddc359466f404404f1db6029fba5d4", "Catalan, lightweight"),
)


def _whisper(repo_name: str, language: str, size_mb: int, summary: str) -> CatalogueEntry:
    return CatalogueEntry(repo_name, language, size_mb, None, None, "small" if size_mb < 600 else "big", summary,
                          engine="whisper", repo=f"Systran/{repo_name}", files=WHISPER_FILES)


#: ``language`` ``"multi"``: a multilingual model (told the language with ``--language``, else it detects it).
WHISPER_CATALOGUE: tuple[CatalogueEntry, ...] = (
    _whisper("faster-whisper-tiny.en", "en", 75, "Whisper tiny, English only (the embedded default's model)"),
    _whisper("faster-whisper-tiny", "multi", 75, "Whisper tiny, 99 languages"),
    _whisper("faster-whisper-base.en", "en", 145, "Whisper base, English only"),
    _whisper("faster-whisper-base", "multi", 145, "Whisper base, 99 languages"),
    _whisper("faster-whisper-small.en", "en", 484, "Whisper small, English only"),
    _whisper("faster-whisper-small", "multi", 484, "Whisper small, 99 languages"),
    _whisper("faster-whisper-medium.en", "en", 1528, "Whisper medium, English only"),
    _whisper("faster-whisper-medium", "multi", 1528, "Whisper medium, 99 languages"),
    _whisper("faster-whisper-large-v3", "multi", 3087, "Whisper large-v3, 99 languages, most accurate"),
    _whisper("faster-distil-whisper-small.en", "en", 332, "Distil-Whisper small, English only, fast"),
    _whisper("faster-distil-whisper-medium.en", "en", 789, "Distil-Whisper medium, English only"),
    _whisper("faster-distil-whisper-large-v3", "en", 1513, "Distil-Whisper large-v3, English"),
)
CATALOGUE = CATALOGUE + WHISPER_CATALOGUE


def find_entry(name: str, catalogue: Iterable[CatalogueEntry] = CATALOGUE) -> CatalogueEntry | None:
    """The entry called ``name``, or None."""
    return next((entry for entry in catalogue if entry.name == name), None)
