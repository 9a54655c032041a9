"""Language identification on real speech in five languages, against two simple baselines.

Run from the repository root::

    python -m bench.language_bench [--clips 6] [--seconds 10]

Held-out clips: telephone prompts read by professional speakers, from Debian's Asterisk
voice packages (``tools/language_clips.py``: English, Mexican and Colombian Spanish,
Canadian and metropolitan French, Italian, Russian), joined into clips of ``--seconds``.
Nothing in the identifier (window length, number of windows, the 0.5 threshold) was
chosen on them. Each clip goes through the ingest path's language step
(``engine/ingest/language.py``: the detectors' speech spans, windows spread over them,
Whisper base's probabilities averaged) and, in the same run:

* ``first 30 s``: faster-whisper's own detection with the same model, on the first 30 s
  of the file, no speech detection (what ``transcribe(language=None)`` does);
* ``always en``: the majority guess of an English-only product.

Also counted: what the tiny.en user gets (a refusal for a clip confidently heard in another
language; ``false refusals`` are English clips refused).

Writes ``bench/results/language.json`` and ``language.md``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import write_result  # noqa: E402

LANGUAGES = ("en", "es", "fr", "it", "ru")
METHODS = ("ours", "first 30 s", "always en")


def cpu_seconds() -> float:
    """CPU seconds of this process so far (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(clips: list[Any]) -> list[dict[str, Any]]:
    """One row per clip: the truth, each method's guess, our probability, the tiny.en decision, CPU s."""
    import numpy as np
    import soundfile as sf

    from engine.asr.language import decide_language, identify_language, read_windows, window_ranges
    from engine.asr.whisper_load import load_whisper_model
    from engine.audio.decode import iter_pcm_blocks, probe
    from engine.detect.sensitivities import DetectorSettings
    from engine.errors import LanguageMismatch
    from engine.ingest.speech_gate import speech_spans
    from engine.ingest.transcribe import StageTimes, detect_pass
    from engine.jobs import CancelToken
    from models.embedded_base import embedded_whisper_base

    base = embedded_whisper_base()
    if base is None:
        raise SystemExit("language bench: Whisper base is not installed (requirements-data.lock)")
    model = load_whisper_model(base.spec())
    rows = []
    for clip in clips:
        info = probe(clip.path)
        t0 = cpu_seconds()
        features, found = detect_pass(info, sr=16000, settings=DetectorSettings(), cancel=CancelToken(),
                                      on_progress=lambda done, total: None, times=StageTimes())
        spans = speech_spans(*found, duration=features.duration)
        windows = read_windows(iter_pcm_blocks(info.path, sr=16000), window_ranges(spans), sr=16000)
        guess = identify_language(model, windows)
        ours_cpu = cpu_seconds() - t0
        audio, _sr = sf.read(clip.path, dtype="float32")
        t1 = cpu_seconds()
        first, _p, _all = model.detect_language(audio=np.asarray(audio, dtype=np.float32))
        first_cpu = cpu_seconds() - t1
        try:
            decision = decide_language(guess, own="en", model_name="whisper-tiny.en", multilingual=False,
                                       path=clip.path)
            refused = False
            note = decision.note
        except LanguageMismatch:
            refused, note = True, ""
        rows.append({
            "clip": clip.path.name, "package": clip.package, "version": clip.version, "truth": clip.language,
            "seconds": round(info.duration, 2), "ours": guess.language, "probability": round(guess.probability, 3),
            "confident": guess.confident, "first 30 s": first, "always en": "en",
            "tiny_en_refused": refused, "tiny_en_note": note,
            "cpu_ours": round(ours_cpu, 3), "cpu_first": round(first_cpu, 3),
        })
        print(f"{clip.package:<30} {clip.path.name}: {guess.language} p={guess.probability:.2f} "
              f"(first 30 s: {first}) refused={refused}", flush=True)
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy per language and method, over all clips, and what the tiny.en user sees."""
    out: dict[str, Any] = {"by_language": {}, "overall": {}}
    for language in LANGUAGES:
        mine = [r for r in rows if r["truth"] == language]
        out["by_language"][language] = {m: sum(r[m] == language for r in mine) / len(mine) for m in METHODS}
        out["by_language"][language]["clips"] = len(mine)
    out["overall"] = {m: sum(r[m] == r["truth"] for r in rows) / len(rows) for m in METHODS}
    other = [r for r in rows if r["truth"] != "en"]
    english = [r for r in rows if r["truth"] == "en"]
    out["tiny_en"] = {
        "refused_other": sum(r["tiny_en_refused"] for r in other) / max(1, len(other)),
        "false_refusals": sum(r["tiny_en_refused"] for r in english) / max(1, len(english)),
        "uncertain": sum(bool(r["tiny_en_note"]) for r in rows) / len(rows),
    }
    out["cpu_per_clip"] = {"ours": sum(r["cpu_ours"] for r in rows) / len(rows),
                           "first 30 s": sum(r["cpu_first"] for r in rows) / len(rows)}
    return out


def markdown(result: dict[str, Any]) -> str:
    """Accuracy per language (rows) and method (columns), then the tiny.en refusals."""
    s = result["summary"]
    lines = ["| language | clips | ours (speech windows, base) | first 30 s (base) | always en |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for language in LANGUAGES:
        b = s["by_language"][language]
        lines.append(f"| {language} | {b['clips']} | {b['ours']:.0%} | {b['first 30 s']:.0%} | {b['always en']:.0%} |")
    o = s["overall"]
    lines.append(f"| **all** | {len(result['clips'])} | **{o['ours']:.0%}** | {o['first 30 s']:.0%} | "
                 f"{o['always en']:.0%} |")
    t = s["tiny_en"]
    cpu = s["cpu_per_clip"]
    lines += ["", "| with tiny.en chosen | share |", "| --- | ---: |",
              f"| non-English clips refused (one line, nothing indexed) | {t['refused_other']:.0%} |",
              f"| English clips refused (false refusals) | {t['false_refusals']:.0%} |",
              f"| clips whose language was uncertain (kept as en, with a note) | {t['uncertain']:.0%} |",
              f"| CPU s per clip: ours (detectors + windows) / first 30 s | {cpu['ours']:.2f} / "
              f"{cpu['first 30 s']:.2f} |"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=6, help="clips per package")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each clip")
    args = parser.parse_args(argv)
    from tools.language_clips import PROMPT_PACKAGES, language_clips

    clips = [c for package in PROMPT_PACKAGES for c in language_clips(package, count=args.clips, seconds=args.seconds)]
    t0 = time.perf_counter()
    rows = measure(clips)
    result = {
        "clips": rows, "summary": summary(rows), "wall_seconds": round(time.perf_counter() - t0, 1),
        "sources": {p: next(c.version for c in clips if c.package == p) for p in PROMPT_PACKAGES},
        "settings": {"clips_per_package": args.clips, "seconds": args.seconds},
    }
    write_result("language", result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
