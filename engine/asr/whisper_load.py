"""Loading a CTranslate2 Whisper model: from a folder, or from memory for the split Whisper base."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from engine import config
from engine.asr.base import ModelSpec
from engine.errors import ModelError
from models.embedded_base import base_model_files, can_join_in_memory, is_split_base, joined_base_folder

#: Files a CTranslate2 Whisper model folder holds.
WHISPER_FILES = ("model.bin", "config.json")


def load_whisper_model(spec: ModelSpec) -> Any:
    """The ``faster_whisper.WhisperModel`` of ``spec`` (int8 on the CPU); ModelError if it cannot load.

    The embedded Whisper base is joined from its two packages' halves in memory and never written to disk
    whole: on Linux in an in-memory file freed once the model is loaded, elsewhere streamed to CTranslate2
    (which then holds the 145 MB as long as the model lives).
    """
    folder = Path(spec.path)
    files: dict[str, Any] | None = None
    try:
        if is_split_base(folder) and can_join_in_memory():
            with joined_base_folder(folder) as joined:
                return _whisper_model(joined)
        if is_split_base(folder):
            files = base_model_files(folder)
        else:
            missing = [name for name in WHISPER_FILES if not (folder / name).is_file()]
            if missing:
                raise ModelError(f"{spec.name}: Whisper model in {folder} lacks {', '.join(missing)}")
        return _whisper_model(folder, files)
    except ImportError:
        raise ModelError(f"{spec.name}: the faster-whisper package is not installed") from None
    except (RuntimeError, ValueError, OSError) as exc:
        raise ModelError(f"{spec.name}: faster-whisper cannot load {folder}: {exc}") from None
    finally:
        stream = (files or {}).get("model.bin")
        if stream is not None and hasattr(stream, "close"):
            stream.close()


def _whisper_model(folder: Path, files: dict[str, Any] | None = None) -> Any:
    """``faster_whisper.WhisperModel`` of ``folder`` (or of ``files`` in memory), int8 on the CPU."""
    from faster_whisper import WhisperModel  # lazy: CTranslate2 and onnxruntime load in seconds

    return WhisperModel(
        str(folder), device="cpu", compute_type="int8", local_files_only=True, files=files,
        cpu_threads=min(config.WHISPER_CPU_THREADS, os.cpu_count() or 1),
    )
