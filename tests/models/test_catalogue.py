"""The catalogue of official Vosk models and CTranslate2 Whisper models."""

from __future__ import annotations

import re

from models import CATALOGUE, RECOMMENDED, find_entry

REQUIRED = (
    "vosk-model-small-en-us-0.15", "vosk-model-en-us-0.22", "vosk-model-en-us-0.22-lgraph",
    "vosk-model-small-en-in-0.4", "vosk-model-small-de-0.15", "vosk-model-small-fr-0.22",
    "vosk-model-small-es-0.42", "vosk-model-small-it-0.22", "vosk-model-small-ru-0.22",
    "vosk-model-small-cn-0.22", "vosk-model-small-ja-0.22", "vosk-model-small-ko-0.22",
    "vosk-model-small-pt-0.3", "vosk-model-small-nl-0.22",
)


def test_catalogue_holds_the_common_models_once_each() -> None:
    names = [entry.name for entry in CATALOGUE]
    assert len(names) == len(set(names))
    assert set(REQUIRED) <= set(names)
    assert find_entry(RECOMMENDED) is not None
    assert find_entry("vosk-model-nope") is None


def test_entries_point_at_the_official_host_with_well_formed_checksums() -> None:
    for entry in CATALOGUE:
        if entry.engine == "whisper":
            continue
        assert entry.url == f"https://alphacephei.com/vosk/models/{entry.name}.zip"
        assert entry.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", entry.sha256), entry.name
        assert entry.size_bytes is None or abs(entry.size_bytes / 2**20 - entry.size_mb) < 1, entry.name
        assert entry.kind == ("small" if "-small-" in entry.name else "big"), entry.name
        assert entry.language and entry.summary


def test_checksums_are_distinct_and_recommended_model_is_verified() -> None:
    hashes = [entry.sha256 for entry in CATALOGUE if entry.sha256]
    assert len(hashes) == len(set(hashes))
    recommended = find_entry(RECOMMENDED)
    # the download of the recommended model is checked by its hash and its size (tests/models/test_download.py)
    assert recommended is not None and recommended.sha256 is not None and recommended.size_bytes is not None


WHISPER_REQUIRED = {
    f"faster-whisper-{size}{suffix}" for size in ("tiny", "base", "small", "medium") for suffix in ("", ".en")
} | {"faster-whisper-large-v3", "faster-distil-whisper-large-v3", "faster-distil-whisper-small.en"}


def test_whisper_entries_cover_every_size_in_both_kinds_with_their_files() -> None:
    whisper = {entry.name: entry for entry in CATALOGUE if entry.engine == "whisper"}
    assert set(whisper) >= WHISPER_REQUIRED
    for name, entry in whisper.items():
        assert entry.url == f"https://huggingface.co/Systran/{name}/resolve/main", name
        assert entry.files == ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt"), name
        assert entry.language == ("en" if name.endswith(".en") or "distil" in name else "multi"), name
        assert entry.sha256 is None and entry.size_bytes is None and entry.size_mb > 0, name
        assert entry.kind == ("small" if entry.size_mb < 600 else "big"), name
    assert whisper["faster-whisper-tiny"].size_mb < whisper["faster-whisper-base"].size_mb \
        < whisper["faster-whisper-small"].size_mb < whisper["faster-whisper-medium"].size_mb \
        < whisper["faster-whisper-large-v3"].size_mb
