"""Is the detector corpus's "not music" free of music? YAMNet and level statistics of its speech and other clips.

    python -m bench.corpus_audit_bench

The speech pool and the ``other`` class train the sound network's "not music", weighed eight times a
miss, so a clip there with music in it teaches music as not music. For every speech and other clip of
``models/detectors/manifest.json``, and for the clips left out of them as music
(:data:`LEFT_OUT_AS_MUSIC`: the globs of ``tools.detector_corpus.EXCLUDED`` that name music, and
warzone2100's cutscene narrations, which are not catalogued): YAMNet's top class (largest mean logit),
the share of its patches whose "Music" logit passes :data:`MUSIC_LOGIT`, and the level range (median
minus 5th percentile of 20 ms frame levels, dB: speech alone falls towards silence between words, a
voice over a bed does not). Clips come from the corpus cache (``tools.detector_corpus``).
Writes ``bench/results/corpus_audit.{json,md}``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine, write_result
from engine.detect.audioset import audioset_logits
from models.audioset import audioset_files
from tools.detector_corpus import default_cache, read_manifest
from tools.sound_clips import load_clip

SR = 16000
MUSIC_LOGIT = -4.0
FRAME = SR // 50  # 20 ms
#: (class it was catalogued or would be catalogued under, package, glob of members) of the clips left out as music.
LEFT_OUT_AS_MUSIC = (
    ("speech", "supertux-data", "usr/share/games/supertux2/speech/tux_rap.ogg"),
    ("speech", "warzone2100-data", "usr/share/games/warzone2100/base.wz.d/sequenceaudio/*.ogg"),
    ("other", "frozen-bubble-data", "usr/share/games/frozen-bubble/snd/*zik*.ogg"),
    ("other", "frozen-bubble-data", "usr/share/games/frozen-bubble/snd/lose.ogg"),
)


def level_range_db(audio: np.ndarray) -> float:
    """Median minus 5th percentile of the 20 ms frame levels of ``audio`` (float, shape ``(n,)``), dB."""
    n = max(1, len(audio) // FRAME)
    frames = np.resize(audio[: n * FRAME].astype(np.float64), (n, FRAME))
    level = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-10)
    return float(np.percentile(level, 50) - np.percentile(level, 5))


def audit(path: Path, names: tuple[str, ...]) -> dict[str, float | str]:
    """Seconds, YAMNet's top class, the share of patches with the Music logit above :data:`MUSIC_LOGIT`, level range."""
    audio = load_clip(path, sample_rate=SR)
    logits = audioset_logits(audio, sr=SR).astype(np.float64)
    music = names.index("Music")
    return {"seconds": len(audio) / SR,
            "top_class": names[int(np.argmax(logits.mean(axis=0)))] if len(logits) else "",
            "music_share": float(np.mean(logits[:, music] > MUSIC_LOGIT)) if len(logits) else 0.0,
            "level_range_db": level_range_db(audio)}  # fmt: skip


def main() -> int:
    cache = default_cache()
    names = audioset_files().class_names
    kept = [c for c in read_manifest() if c.kind in ("speech", "other")]
    rows = [{"kind": c.kind, "package": c.package, "member": c.member, "left_out": False, **audit(c.path(cache), names)}
            for c in kept]  # fmt: skip
    for kind, package, pattern in LEFT_OUT_AS_MUSIC:
        for path in sorted((cache / package).glob(pattern)):
            member = path.relative_to(cache / package).as_posix()
            rows.append({"kind": kind, "package": package, "member": member, "left_out": True, **audit(path, names)})
    lines = ["# The corpus's speech and other clips: is there music in them?", "", f"Machine: {machine()}. Music share: "
             f"patches whose YAMNet \"Music\" logit passes {MUSIC_LOGIT:g}; level range: median minus 5th percentile "
             "of the 20 ms frame levels.", "", "Left out as music:", "",
             "| class | member | seconds | top class | music share | level range (dB) |",
             "| --- | --- | ---: | --- | ---: | ---: |"]  # fmt: skip
    for r in rows:
        if r["left_out"]:
            short = "/".join(r["member"].split("/")[-2:])
            lines.append(f"| {r['kind']} | {r['package']}: {short} | {r['seconds']:.1f} | {r['top_class']} | "
                         f"{100 * r['music_share']:.0f} % | {r['level_range_db']:.1f} |")  # fmt: skip
    lines += ["", "Kept, per package and class:", "",
              "| class | package | clips | with music share > 0 | largest music share | top class Music "
              "| level range (dB), min-max |",
              "| --- | --- | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    for kind, package in sorted({(r["kind"], r["package"]) for r in rows if not r["left_out"]}):
        group = [r for r in rows if not r["left_out"] and r["kind"] == kind and r["package"] == package]
        ranges = [r["level_range_db"] for r in group]
        lines.append(f"| {kind} | {package} | {len(group)} | {sum(r['music_share'] > 0 for r in group)} | "
                     f"{100 * max(r['music_share'] for r in group):.0f} % | {sum(r['top_class'] == 'Music' for r in group)} | "
                     f"{min(ranges):.1f}-{max(ranges):.1f} |")  # fmt: skip
    write_result("corpus_audit", {"clips": rows, "music_logit": MUSIC_LOGIT, "machine": machine()}, "\n".join(lines), echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
