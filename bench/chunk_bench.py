"""How long a chunk Whisper should be handed: words and CPU by chunk length, against the whole file.

Ingest decodes a recording in chunks (``config.WHISPER_CHUNK_SECONDS``) so that memory stays flat;
faster-whisper called on the whole file is the peer. The chunk length was chosen on one generated
broadcast (``asr-broadcast-en``, seed 1); seeds 2 and 3 were seen before the choice was final
(240 s there dropped 85 words of one broadcast, so 120 s, the seed-1 WER best, was kept). Held out
here, each file run through the recogniser alone (``WhisperTranscriber.transcribe``, the blocks
ingest hands it) at each chunk length, and through ``WhisperModel.transcribe`` on the whole file
with the same model and options, in one process:

* generated broadcasts with seeds nothing was chosen on (``tools/broadcast.py``, 5 min, seeds 4
  and 5 unless ``--seeds`` says otherwise: espeak-ng voices, music beds, applause, laughter);
* real read speech: the five LibriVox clips of Debian's ``pocketsphinx-testdata`` one after the
  other with 1.5 s pauses (32 s: one chunk at any length above it, so these rows show the short
  file's case), as they are, under pink noise at 10 dB SNR, and under the ``chromium-bsu-data``
  music bed at 5 dB (``bench/gate_bench.py`` builds both).

Per file and chunk length: WER (substitutions, deletions, insertions) and the CPU seconds of
recognition, with the ratio to the peer's CPU seconds on the same file. CPU, not wall time: the
machine is shared.

Run: ``.venv/bin/python -m bench.chunk_bench [--chunks 30 120] [--seeds 4 5] [--model base|tiny.en]``. Writes
``bench/results/chunk.json``/``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import CACHE, cached_broadcast, write_result
from bench.gate_bench import librivox, mix, music, noise
from engine.evaluate.word_errors import WordErrors, scoring_tokens, word_errors

OUT_NAME = "chunk"
SR = 16000
SEEDS = (4, 5)
PAUSE_SECONDS = 1.5


def files(seeds: tuple[int, ...] = SEEDS) -> list[tuple[str, np.ndarray, list[str]]]:
    """(name, 16 kHz float32 samples shape (n,), reference tokens) of each held-out file."""
    import soundfile as sf

    out = []
    for seed in seeds:
        path, truth = cached_broadcast("asr-broadcast-en", 5, seed, CACHE)
        audio, sr = sf.read(str(path), dtype="float32")
        assert sr == SR, sr
        out.append((f"broadcast, seed {seed}", audio, [w["norm"] for w in truth["words"]]))
    clips = librivox()
    pause = np.zeros(int(PAUSE_SECONDS * SR), np.float32)
    speech = np.concatenate([part for c, _ in clips for part in (c, pause)])
    ref = scoring_tokens([text for _, text in clips])
    rng = np.random.default_rng(28)
    out.append(("LibriVox, 5 clips", speech, ref))
    out.append(("LibriVox, pink noise 10 dB", mix(speech, noise("pink", speech.size, rng), 10), ref))
    out.append(("LibriVox, music bed 5 dB", mix(speech, np.resize(music(), speech.size), 5), ref))
    return out


def _score(ref: list[str], words: list[str], cpu: float, peer_cpu: float | None) -> dict[str, Any]:
    e: WordErrors = word_errors(ref, scoring_tokens(words))
    return {"wer": e.wer, "substitutions": e.substitutions, "deletions": e.deletions, "insertions": e.insertions,
            "cpu_seconds": cpu, "cpu_ratio": cpu / peer_cpu if peer_cpu else None}  # fmt: skip


def run(chunks: list[float], model: str, seeds: tuple[int, ...] = SEEDS) -> dict[str, Any]:
    """Every file at every chunk length and through the peer, in this process."""
    from engine import config
    from engine.asr.whisper_engine import WhisperTranscriber, join_pieces
    from models.discover import embedded_whisper
    from models.embedded_base import embedded_whisper_base

    installed = embedded_whisper_base() if model == "base" else embedded_whisper()
    if installed is None:
        raise SystemExit(f"chunk bench: the embedded Whisper {model} is not installed")
    ours = WhisperTranscriber(installed.spec())
    ours.language = "en"
    shipped = config.WHISPER_CHUNK_SECONDS
    rows: list[dict[str, Any]] = []
    for name, audio, ref in files(seeds):
        pcm = (np.clip(audio, -1, 1) * 32767).astype(np.int16)
        c0 = time.process_time()
        segments, _ = ours.whisper_model.transcribe(audio, **ours.whole_file_options())
        peer_words = [w.text for w in join_pieces([p for s in segments for p in (s.words or ())]) if w.text]
        peer_cpu = time.process_time() - c0
        row: dict[str, Any] = {"file": name, "seconds": audio.size / SR, "reference_words": len(ref),
                               "direct": _score(ref, peer_words, peer_cpu, peer_cpu), "chunks": {}}  # fmt: skip
        for chunk in chunks:
            config.WHISPER_CHUNK_SECONDS = chunk
            c0 = time.process_time()
            blocks = (pcm[i : i + SR] for i in range(0, pcm.size, SR))
            words = [w.text for u in ours.transcribe(blocks, sr=SR) for w in u]
            row["chunks"][f"{chunk:g}"] = _score(ref, words, time.process_time() - c0, peer_cpu)
        config.WHISPER_CHUNK_SECONDS = shipped
        rows.append(row)
        print(f"{name}: {row}", file=sys.stderr)
    return {"model": installed.spec().name, "shipped_chunk_seconds": shipped, "chunks": [f"{c:g}" for c in chunks],
            "rows": rows}  # fmt: skip


def table(result: dict[str, Any]) -> str:
    lines = [f"Whisper {result['model']}; the shipped chunk is {result['shipped_chunk_seconds']:g} s. "
             "WER (substitutions / deletions / insertions), recognition CPU seconds and their ratio to the peer's.",
             "", "| file | audio | recogniser | WER | S / D / I | CPU s | CPU ratio |",
             "| --- | ---: | --- | ---: | --- | ---: | ---: |"]  # fmt: skip
    for row in result["rows"]:
        cells = [("faster-whisper, whole file", row["direct"])]
        cells += [(f"Earshot, {c} s chunks", row["chunks"][c]) for c in result["chunks"]]
        for label, s in cells:
            lines.append(f"| {row['file']} | {row['seconds']:.0f} s | {label} | {s['wer']:.3f} "
                         f"| {s['substitutions']} / {s['deletions']} / {s['insertions']} | {s['cpu_seconds']:.1f} "
                         f"| {s['cpu_ratio']:.2f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=float, nargs="+", default=[30.0, 120.0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="broadcast seeds (default: 4 5)")
    parser.add_argument("--model", choices=("base", "tiny.en"), default="base")
    args = parser.parse_args(argv)
    result = run(args.chunks, args.model, tuple(args.seeds))
    write_result(OUT_NAME, result, table(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
