"""The two embedded Whisper models side by side: which one is the default.

Run from the repository root::

    python -m bench.models_bench [--broadcast-minutes 2] [--clips 3]

Each model runs in its own process (peak RSS is that model's, with whatever it loads for
language identification) through the ingest path (``transcribe_file``: detectors, language
identification, recognition of detected speech) on held-out material no model or rule
was chosen on:

* ``clean``: the five LibriVox readings of Debian's ``pocketsphinx-testdata``;
* ``crowd``: the same readings under real crowd noise (Debian's ``etw-data`` and
  ``lmms-common``, ``tools/sound_clips.py``) at 5 dB SNR;
* ``music``: the same under a synthetic music bed (``tools/synth.py``) at 5 dB SNR;
* ``broadcast``: a generated English broadcast (``tools/broadcast.py``: espeak-ng voices,
  music beds, applause, laughter);
* ``fr``, ``es``, ``it``, ``ru``: Asterisk prompts (``tools/language_clips.py``) with the
  packages' own transcripts; a model that refuses a file scores it as all words deleted.

No spontaneous English speech is available offline here, so none is measured.
PocketSphinx is not repeated here (``bench/asr_bench.py`` has it); the simple baseline in
this table is tiny.en, the model that was the only one before.

Writes ``bench/results/models.json`` and ``models.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import CACHE, cached_broadcast, recorded, use_bench_folders, write_result  # noqa: E402

MODELS = ("whisper-tiny.en", "whisper-base")
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
LANGUAGE_PACKAGES = {"fr": "asterisk-core-sounds-fr-gsm", "es": "asterisk-core-sounds-es-gsm",
                     "it": "asterisk-core-sounds-it-gsm", "ru": "asterisk-core-sounds-ru-gsm"}
SNR_DB = 5.0
_WORD = re.compile(r"\w+(?:['’]\w+)*")


def words_of(text: str) -> list[str]:
    """Lower-case word tokens of any language (punctuation dropped, digits kept as written)."""
    return _WORD.findall(text.lower().replace("’", "'"))


# -- the measured child process ---------------------------------------------------------------


def child(model_name: str, files: list[str]) -> dict[str, Any]:
    """Transcribe ``files`` with ``model_name`` through the ingest path: words, seconds, language or refusal."""
    from engine.asr import load_transcriber
    from engine.audio.decode import probe
    from engine.errors import LanguageMismatch
    from engine.ingest.transcribe import transcribe_file
    from models.manager import ModelManager

    t0 = time.perf_counter()
    transcriber = load_transcriber(ModelManager().resolve(model_name))
    out: dict[str, Any] = {"load_seconds": time.perf_counter() - t0, "files": []}
    for path in files:
        t1 = time.perf_counter()
        try:
            transcript = transcribe_file(probe(path), transcriber)
            words, language, refused = [w.shown for w in transcript.words], transcript.language, ""
        except LanguageMismatch as exc:
            words, language, refused = [], "", str(exc)
        out["files"].append({"path": path, "seconds": time.perf_counter() - t1, "words": words,
                             "language": language, "refused": refused})
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_child(model_name: str, files: list[Path]) -> dict[str, Any]:
    argv = [sys.executable, "-m", "bench.models_bench", "--child", model_name, *map(str, files)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{model_name} failed: {done.stderr.strip().splitlines()[-3:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the material ------------------------------------------------------------------------------


def librivox() -> dict[Path, str]:
    """The LibriVox readings and their transcripts."""
    refs = {}
    for line in (LIBRIVOX / "transcription").read_text().splitlines():
        text, _, utt = line.rpartition("(")
        refs[LIBRIVOX / f"{utt.strip(') ')}.wav"] = " ".join(w for w in text.split() if w not in ("<s>", "</s>"))
    return refs


def mixed(path: Path, kind: str, rng: np.random.Generator) -> Path:
    """``path`` under crowd noise or a music bed at ``SNR_DB`` (16 kHz WAV in the bench cache)."""
    import soundfile as sf
    import soxr

    out = CACHE / "models-bench" / f"{path.stem}-{kind}{SNR_DB:g}dB.wav"
    if out.exists():
        return out
    speech, sr = sf.read(str(path), dtype="float64")
    if sr != 16000:
        speech, sr = soxr.resample(speech, sr, 16000), 16000
    if kind == "crowd":
        from tools.sound_clips import fetch_clips, load_clip

        clips = [load_clip(p, sample_rate=sr) for p in fetch_clips("crowd")]
        noise = np.concatenate([clips[int(rng.integers(len(clips)))] for _ in range(8)]).astype(np.float64)
        noise = np.resize(noise, speech.size)
    else:
        from tools.synth import music_bed

        noise = music_bed(speech.size / sr + 1, sample_rate=sr, rng=rng)[: speech.size].astype(np.float64)
    gain = np.sqrt(np.mean(speech**2) / max(np.mean(noise**2), 1e-12) / 10 ** (SNR_DB / 10))
    out.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(out), (speech + gain * noise) / max(1.0, np.abs(speech + gain * noise).max()), sr, subtype="PCM_16")
    return out


def material(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every file: its set, path, reference text, seconds."""
    import soundfile as sf

    from tools.language_clips import language_clips

    rng = np.random.default_rng(args.seed)
    items = []
    for path, text in librivox().items():
        items.append({"set": "clean", "path": path, "text": text})
        items.append({"set": "crowd", "path": mixed(path, "crowd", rng), "text": text})
        items.append({"set": "music", "path": mixed(path, "music", rng), "text": text})
    wav, truth = cached_broadcast("models-broadcast-en", args.broadcast_minutes, args.seed)
    items.append({"set": "broadcast", "path": wav, "text": " ".join(str(w["text"]) for w in truth["words"])})
    for language, package in LANGUAGE_PACKAGES.items():
        for clip in language_clips(package, count=args.clips, seconds=10.0):
            items.append({"set": language, "path": clip.path, "text": clip.text})
    for item in items:
        item["seconds"] = float(sf.info(str(item["path"])).duration)
    return items


# -- measures ------------------------------------------------------------------------------------

SETS = ("clean", "crowd", "music", "broadcast", "fr", "es", "it", "ru")


def scores(items: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    """WER and RTF per set, from one model's run."""
    from engine.evaluate.word_errors import WordErrors, scoring_tokens, word_errors

    by_path = {f["path"]: f for f in run["files"]}
    out: dict[str, Any] = {}
    for name in SETS:
        total, seconds, audio, refused, heard = WordErrors(0, 0, 0, 0), 0.0, 0.0, 0, []
        for item in (i for i in items if i["set"] == name):
            f = by_path[str(item["path"])]
            tokens = scoring_tokens if name in ("clean", "crowd", "music", "broadcast") else \
                (lambda texts: [t for text in texts for t in words_of(text)])
            total = total + word_errors(tokens([item["text"]]), tokens(f["words"]))
            seconds, audio = seconds + f["seconds"], audio + item["seconds"]
            refused += bool(f["refused"])
            heard.append(f["language"])
        out[name] = {"wer": total.wer, "ref_words": total.reference_words, "rtf": seconds / audio,
                     "refused": refused, "languages": heard}
    return out


def markdown(result: dict[str, Any]) -> str:
    """WER per set (rows) and model (columns), then RTF and memory."""
    runs = result["models"]
    head = " | ".join(MODELS)
    lines = [f"| set | {head} |", "| --- |" + " ---: |" * len(MODELS)]
    for name in SETS:
        cells = []
        for model in MODELS:
            s = runs[model]["scores"][name]
            cell = f"{s['wer']:.1%}"
            if s["refused"]:
                cell += f" (refused {s['refused']} of {len(s['languages'])})"
            cells.append(cell)
        lines.append(f"| WER {name} | " + " | ".join(cells) + " |")
    for label, key in (("RTF clean (2 cores)", "clean"), ("RTF broadcast (2 cores)", "broadcast")):
        lines.append(f"| {label} | " + " | ".join(f"{runs[m]['scores'][key]['rtf']:.3f}" for m in MODELS) + " |")
    lines.append("| load s | " + " | ".join(f"{runs[m]['load_seconds']:.1f}" for m in MODELS) + " |")
    lines.append("| peak RSS MB (one worker) | " + " | ".join(f"{runs[m]['peak_rss_mb']:.0f}" for m in MODELS) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    if argv is None and len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], sys.argv[3:])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--broadcast-minutes", type=float, default=2.0)
    parser.add_argument("--clips", type=int, default=3, help="Asterisk clips per language")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    use_bench_folders("models")
    items = material(args)
    runs = {}
    for model in MODELS:
        print(f"running {model} on {len(items)} files", flush=True)
        run = run_child(model, [i["path"] for i in items])
        runs[model] = {"scores": scores(items, run), "load_seconds": run["load_seconds"],
                       "peak_rss_mb": run["peak_rss_mb"]}
    result = {"models": runs, "settings": vars(args),
              "files": [{"set": i["set"], "path": str(i["path"]), "seconds": i["seconds"]} for i in items]}
    write_result("models", result, markdown(result), echo=True)
    write_figures(runs)
    return 0


#: What each embedded model transcribes, for a listing.
LANGUAGES = {"whisper-tiny.en": "English only", "whisper-base": "99 languages, identified per file"}


def write_figures(runs: dict[str, Any]) -> None:
    """``models/speech_figures.json``: what ``models list`` and Settings > Models show for each model."""
    from models.figures import FIGURES_FILE

    figures = {
        "note": "written by bench/models_bench.py; see docs/recognition.md",
        "recorded": recorded(),
        "models": {
            model: {"rtf": round(run["scores"]["broadcast"]["rtf"], 3),
                    "wer": {k: round(v["wer"], 3) for k, v in run["scores"].items()},
                    "peak_rss_mb": round(run["peak_rss_mb"]), "languages": LANGUAGES[model]}
            for model, run in runs.items()
        },
    }
    FIGURES_FILE.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
