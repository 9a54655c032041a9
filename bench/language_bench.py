"""Language identification on real speech in five languages, against two simple baselines.

Run from the repository root::

    python -m bench.language_bench [--clips 6] [--seconds 10] [--name language]

Held-out clips: telephone prompts read by professional speakers, from Debian's Asterisk
voice packages (``tools/language_clips.py``: English, Mexican and Colombian Spanish,
Canadian and metropolitan French, Italian, Russian), joined into clips of ``--seconds``.
Nothing in the identifier (window length, number of windows, the 0.5 threshold) was
chosen on them. Each clip goes through the ingest path's language step
(``engine/ingest/language.py``: windows spread over the whole file, each decoded by a seek and
cut to its speech by Silero's voice-activity filter, Whisper base's probabilities averaged) and, in the same run:

* ``first 30 s``: faster-whisper's own detection with the same model, on the first 30 s
  of the file, no speech detection (what ``transcribe(language=None)`` does);
* ``always en``: the majority guess of an English-only product.

Every clip is heard twice: as it is, and after a 30 s synthetic music intro (``tools/synth.py``,
as a broadcast opens), where the first 30 s of the file hold no speech.

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
VARIANTS = ("as is", "intro")


def cpu_seconds() -> float:
    """CPU seconds of this process so far (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def with_intro(path: Path, seconds: float) -> Path:
    """``path`` after ``seconds`` of a synthetic music bed (16 kHz WAV beside it)."""
    import numpy as np
    import soundfile as sf

    from tools.synth import music_bed

    out = path.with_name(f"{path.stem}-intro{seconds:g}s.wav")
    if not out.exists():
        speech, sr = sf.read(str(path), dtype="float32")
        bed = music_bed(seconds, sample_rate=sr, rng=np.random.default_rng(len(path.stem)))
        bed = 0.5 * bed / max(1e-9, float(np.abs(bed).max())) * float(np.abs(speech).max())
        sf.write(str(out), np.concatenate([bed.astype(np.float32), speech]), sr, subtype="PCM_16")
    return out


def measure(clips: list[Any], *, intro: float) -> list[dict[str, Any]]:
    """One row per clip and variant: the truth, each method's guess, our probability, the tiny.en decision, CPU s."""
    import numpy as np
    import soundfile as sf

    from engine.asr.language import decide_language, identify_language
    from engine.asr.whisper_load import load_whisper_model
    from engine.audio.decode import probe
    from engine.errors import LanguageMismatch
    from engine.ingest.language import language_windows
    from models.embedded_base import embedded_whisper_base

    base = embedded_whisper_base()
    if base is None:
        raise SystemExit("language bench: Whisper base is not installed (requirements-data.lock)")
    model = load_whisper_model(base.spec())
    rows = []
    for clip, variant in [(c, v) for v in ("as is", "intro") for c in clips]:
        path = clip.path if variant == "as is" else with_intro(clip.path, intro)
        info = probe(path)
        t0 = cpu_seconds()
        guess = identify_language(model, language_windows(info, sr=16000))
        ours_cpu = cpu_seconds() - t0
        audio, _sr = sf.read(path, dtype="float32")
        t1 = cpu_seconds()
        first, _p, _all = model.detect_language(audio=np.asarray(audio, dtype=np.float32))
        first_cpu = cpu_seconds() - t1
        try:
            decision = decide_language(guess, own="en", model_name="whisper-tiny.en", multilingual=False,
                                       path=path)
            refused = False
            note = decision.note
        except LanguageMismatch:
            refused, note = True, ""
        rows.append({
            "clip": clip.path.name, "variant": variant, "package": clip.package, "version": clip.version, "truth": clip.language,
            "seconds": round(info.duration, 2), "ours": guess.language, "probability": round(guess.probability, 3),
            "confident": guess.confident, "first 30 s": first, "always en": "en",
            "tiny_en_refused": refused, "tiny_en_note": note,
            "cpu_ours": round(ours_cpu, 3), "cpu_first": round(first_cpu, 3),
        })
        print(f"{clip.package:<30} {clip.path.name} {variant}: {guess.language} p={guess.probability:.2f} "
              f"(first 30 s: {first}) refused={refused}", flush=True)
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per variant: accuracy per language and method, over all clips, and what the tiny.en user sees."""
    return {variant: _summary([r for r in rows if r["variant"] == variant]) for variant in VARIANTS}


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"by_language": {}, "overall": {}, "clips": len(rows)}
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
    """Accuracy per language (rows) and method and variant (columns), then what a tiny.en user gets."""
    s = result["summary"]
    lines = ["| language | clips | ours (speech windows) | first 30 s | always en | ours, after 30 s of music "
             "| first 30 s, after music |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for language in [*LANGUAGES, "all"]:
        cells = []
        for variant in VARIANTS:
            b = s[variant]["overall"] if language == "all" else s[variant]["by_language"][language]
            methods = METHODS if variant == "as is" else METHODS[:2]
            cells += [f"{b[m]:.0%}" for m in methods]
        n = s["as is"]["clips"] if language == "all" else s["as is"]["by_language"][language]["clips"]
        name = "**all**" if language == "all" else language
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    lines += ["", "| with tiny.en chosen | as is | after music |", "| --- | ---: | ---: |"]
    for label, key in (("non-English clips refused (one line, nothing indexed)", "refused_other"),
                       ("English clips refused (false refusals)", "false_refusals"),
                       ("uncertain: kept as English, with a note", "uncertain")):
        lines.append(f"| {label} | " + " | ".join(f"{s[v]['tiny_en'][key]:.0%}" for v in VARIANTS) + " |")
    cpu = [s[v]["cpu_per_clip"] for v in VARIANTS]
    lines.append("| CPU s per clip, ours (windows) / first 30 s | "
                 + " | ".join(f"{c['ours']:.2f} / {c['first 30 s']:.2f}" for c in cpu) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=6, help="clips per package")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each clip")
    parser.add_argument("--intro", type=float, default=30.0, help="seconds of music before each clip's second hearing")
    parser.add_argument("--name", default="language", help="results file name in bench/results (default: language)")
    args = parser.parse_args(argv)
    from tools.language_clips import PROMPT_PACKAGES, language_clips

    clips = [c for package in PROMPT_PACKAGES for c in language_clips(package, count=args.clips, seconds=args.seconds)]
    t0 = time.perf_counter()
    rows = measure(clips, intro=args.intro)
    result = {
        "clips": rows, "summary": summary(rows), "wall_seconds": round(time.perf_counter() - t0, 1),
        "sources": {p: next(c.version for c in clips if c.package == p) for p in PROMPT_PACKAGES},
        "settings": {"clips_per_package": args.clips, "seconds": args.seconds, "intro": args.intro},
    }
    write_result(args.name, result, markdown(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
