"""Does the speech gate delete speech? Ingest against faster-whisper called directly, held out.

Each condition is built from sources none of the gate's figures (``config.GATE_DROP_BELOW``,
chosen on ``tools/broadcast.py``'s generated broadcast) nor the detectors' models were chosen on:

* speech: the five LibriVox clips of Debian's ``pocketsphinx-testdata`` (read speech, one
  reader, with their transcription) and eight clips of about 12 s of Debian's English Asterisk
  prompts (``asterisk-core-sounds-en-gsm``, CC BY-SA 3.0: a professional telephone voice, 8 kHz GSM,
  with the package's own transcripts; ``tools/language_clips.py``), so that each condition holds
  about 300 words and one phrase heard differently does not decide its ratio;
* steady noise: white and pink noise generated here (fixed seed), mixed at 0, 5, 10, 15 dB SNR;
* music bed: ``music_game.wav`` of Debian's ``chromium-bsu-data`` (fetched with apt-get
  download into the cache, never installed nor committed), looped under the speech at 0, 5, 10 dB,
  with 4 s of the music alone before and after the speech;
* quiet and slow: the clip 20 dB quieter and at 0.8x tempo (sox);
* spontaneous: a real 30 s telephone call between two strangers with its word transcript (PyPI
  ``pyannote-audio`` 4.0.7, MIT, ``sample.wav`` and ``sample.stm``, fetched and checked by
  ``tools/diarization_samples.py``), as it is and 20 dB quieter;
* non-speech only: 60 s of silence, noise and the music alone, no speech.

For each condition, in one process and one run: WER of ``transcribe_file`` (the ingest path:
whole-file recognition, detectors, words dropped by the gate) and of ``WhisperModel.transcribe``
on the same file and model (beam, VAD and word timestamps as ingest; its word pieces joined into
written words as ingest joins them, so that "www .asterisk .org" costs neither side), their ratio, and the words
placed where there is no speech (the music-alone stretches, the non-speech file) per hour.

Run: ``.venv/bin/python -m bench.gate_bench [--quick] [--model base|tiny.en]`` (``base``, the shipped
default, unless told). Writes ``bench/results/gate.json``/``.md`` (``gate-tiny.en`` for tiny.en).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import CACHE, write_result
from engine.evaluate.word_errors import WordErrors, scoring_tokens, word_errors

OUT_NAME = "gate"
SR = 16000
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
MUSIC_PACKAGE = "chromium-bsu-data"
MUSIC_FILE = "usr/share/games/chromium-bsu/wav/music_game.wav"
#: Seconds of music alone before and after the speech in the music-bed conditions.
MUSIC_ALONE = 4.0
PROMPT_CLIPS = 8


def librivox() -> list[tuple[np.ndarray, str]]:
    """(16 kHz float32 samples, transcript) of each LibriVox clip."""
    import soundfile as sf

    out = []
    for line in (LIBRIVOX / "transcription").read_text().splitlines():
        text, _, utt = line.rpartition("(")
        audio, sr = sf.read(str(LIBRIVOX / f"{utt.strip(') ')}.wav"), dtype="float32")
        assert sr == SR, sr
        out.append((audio, " ".join(w for w in text.split() if w not in ("<s>", "</s>"))))
    return out


def prompts() -> list[tuple[np.ndarray, str]]:
    """(16 kHz float32 samples, transcript) of eight clips of English Asterisk prompts; none when the
    package cannot be fetched (said on stderr)."""
    import soundfile as sf

    from tools.language_clips import language_clips
    from tools.sound_clips import ClipsUnavailable

    try:
        clips = language_clips("asterisk-core-sounds-en-gsm", count=PROMPT_CLIPS, seconds=12.0)
    except ClipsUnavailable as exc:
        print(f"gate bench: no Asterisk prompts: {exc}", file=sys.stderr)
        return []
    out = []
    for clip in clips:
        audio, sr = sf.read(str(clip.path), dtype="float32")
        assert sr == SR and clip.text, (clip.path, sr)
        out.append((audio, clip.text))
    return out


def music() -> np.ndarray:
    """The held-out music bed, 16 kHz float32, fetched once into the cache."""
    import soundfile as sf

    folder = CACHE / "gate-music"
    wav = folder / MUSIC_FILE
    if not wav.exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", MUSIC_PACKAGE], cwd=folder, check=True, capture_output=True)
        deb = next(folder.glob(f"{MUSIC_PACKAGE}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(folder)], check=True)
    out = folder / "music-16k.wav"
    if not out.exists():
        subprocess.run(["sox", str(wav), "-r", str(SR), "-c", "1", "-b", "16", str(out)], check=True)
    audio, _ = sf.read(str(out), dtype="float32")
    return audio


def noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """White or pink (1/f power) noise, float32 shape (n,), unit RMS."""
    white = rng.standard_normal(n)
    if kind == "pink":
        spectrum = np.fft.rfft(white)
        f = np.arange(spectrum.size, dtype=np.float64)
        f[0] = 1.0
        white = np.fft.irfft(spectrum / np.sqrt(f), n)
    return (white / np.sqrt(np.mean(white**2))).astype(np.float32)


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def mix(speech: np.ndarray, bed: np.ndarray, snr_db: float) -> np.ndarray:
    """``speech`` over ``bed`` (same length) with the bed scaled to ``snr_db`` below the speech's RMS."""
    out = speech + bed * (_rms(speech) / max(_rms(bed), 1e-9)) * 10 ** (-snr_db / 20)
    return (out / max(1.0, float(np.abs(out).max()) / 0.95)).astype(np.float32)


def loop(audio: np.ndarray, n: int) -> np.ndarray:
    return np.resize(audio, n).astype(np.float32)


def quiet_slow(clip: np.ndarray, folder: Path, name: str) -> np.ndarray:
    import soundfile as sf

    src, dst = folder / f"{name}-src.wav", folder / f"{name}-slow.wav"
    sf.write(str(src), clip, SR, subtype="PCM_16")
    # -D: no dither, so that every run hears the same samples (sox dithers by default, at random)
    subprocess.run(["sox", "-D", str(src), str(dst), "tempo", "0.8", "vol", "-20dB"], check=True)
    audio, _ = sf.read(str(dst), dtype="float32")
    return audio


def spontaneous_call() -> tuple[np.ndarray | None, str]:
    """The pyannote-audio sample call (16 kHz float32) and its words; (None, reason) when it cannot be fetched."""
    import soundfile as sf

    from tools.diarization_samples import SampleUnavailable, fetch_sample, sample_words

    try:
        wav, _rttm = fetch_sample("pyannote")
        words = sample_words("pyannote")
    except SampleUnavailable as exc:
        print(f"gate bench: no spontaneous call: {exc}", file=sys.stderr)
        return None, str(exc)
    audio, sr = sf.read(str(wav), dtype="float32")
    assert sr == SR and audio.ndim == 1, (sr, audio.shape)
    return audio, words


def conditions(quick: bool, folder: Path) -> list[dict[str, Any]]:
    """Each condition: its name, family, and files (path, reference text, non-speech spans in s)."""
    import soundfile as sf

    rng = np.random.default_rng(28)
    clips = librivox() + prompts()
    bed = music()
    out: list[dict[str, Any]] = []

    def add(name: str, family: str, made: list[tuple[np.ndarray, str, list[tuple[float, float]]]]) -> None:
        files = []
        for k, (audio, ref, spans) in enumerate(made):
            path = folder / f"{name}-{k}.wav"
            sf.write(str(path), audio, SR, subtype="PCM_16")
            files.append({"path": str(path), "ref": ref, "non_speech": spans, "seconds": audio.size / SR})
        out.append({"name": name, "family": family, "files": files})

    add("clean", "clean", [(c, r, []) for c, r in clips])
    for kind in ("white", "pink") if not quick else ("white",):
        for snr in (0, 5, 10, 15):
            add(f"{kind} noise {snr} dB", "noise", [(mix(c, noise(kind, c.size, rng), snr), r, []) for c, r in clips])
    pad = int(MUSIC_ALONE * SR)
    for snr in (0, 5, 10):
        made = []
        for c, r in clips:
            speech = np.concatenate([np.zeros(pad, np.float32), c, np.zeros(pad, np.float32)])
            under = mix(speech, loop(bed, speech.size), snr)
            alone = [(0.0, MUSIC_ALONE - 0.3), (speech.size / SR - MUSIC_ALONE + 0.3, speech.size / SR)]
            made.append((under, r, alone))
        add(f"music bed {snr} dB", "music", made)
    add("quiet and slow", "quiet", [(quiet_slow(c, folder, f"clip{k}"), r, []) for k, (c, r) in enumerate(clips)])
    call, call_words = spontaneous_call()
    if call is not None:
        add("spontaneous call", "spontaneous", [(call, call_words, [])])
        add("spontaneous call, 20 dB quieter", "spontaneous", [(call * 0.1, call_words, [])])
    n = 60 * SR
    parts = [np.zeros(n // 4, np.float32), 0.05 * noise("pink", n // 4, rng), 0.3 * loop(bed, n // 4),
             0.05 * noise("white", n // 4, rng)]  # fmt: skip
    add("no speech", "none", [(np.concatenate(parts), "", [(0.0, n / SR)])])
    return out


def run(conds: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """Both systems over every condition in this process; words and seconds per file.

    The direct side is ``WhisperModel.transcribe`` on a model loaded by the product's loader
    (``load_whisper_model``: int8 on the CPU; base is assembled from its two packages in memory),
    told the language is English.
    """
    from engine import config
    from engine.asr import load_transcriber
    from engine.asr.whisper_engine import join_pieces
    from engine.asr.whisper_load import load_whisper_model
    from engine.audio.decode import probe
    from engine.ingest.transcribe import transcribe_file
    from models.discover import embedded_whisper
    from models.embedded_base import embedded_whisper_base

    installed = embedded_whisper_base() if model == "base" else embedded_whisper()
    if installed is None:
        raise SystemExit(f"gate bench: the embedded Whisper {model} is not installed")
    spec = installed.spec()
    ours = load_transcriber(spec)
    direct = load_whisper_model(spec)
    for cond in conds:
        for f in cond["files"]:
            t0 = time.perf_counter()
            tr = transcribe_file(probe(Path(f["path"])), ours)
            t1 = time.perf_counter()
            segments, _ = direct.transcribe(f["path"], language="en", beam_size=config.WHISPER_BEAM_SIZE,
                                            word_timestamps=True, vad_filter=True, condition_on_previous_text=False)
            # its pieces joined into written words as ingest joins them: both sides are scored on the same words
            pieces = [p for s in segments for p in (s.words or ())]
            words = [(w.start, w.end, w.display) for w in join_pieces(pieces) if w.display]
            f["earshot"] = {"words": [(w.start, w.end, w.shown) for w in tr.words], "seconds": t1 - t0}
            f["direct"] = {"words": words, "seconds": time.perf_counter() - t1}
        print(f"{cond['name']}: done", file=sys.stderr)
    return {"model": spec.name, "conditions": conds}


def score(cond: dict[str, Any], system: str) -> dict[str, Any]:
    """WER over the condition's files and words whose middle lies in a non-speech span."""
    total = WordErrors(0, 0, 0, 0)
    inside = 0
    non_speech = 0.0
    for f in cond["files"]:
        words = f[system]["words"]
        total = total + word_errors(scoring_tokens([f["ref"]]), scoring_tokens(w[2] for w in words))
        spans = f["non_speech"]
        inside += sum(any(a < (s + e) / 2 < b for a, b in spans) for s, e, _ in words)
        non_speech += sum(b - a for a, b in spans)
    return {"wer": total.wer if total.reference_words else None, "errors": total.errors,
            "deletions": total.deletions, "ref_words": total.reference_words, "non_speech_words": inside,
            "non_speech_seconds": non_speech}  # fmt: skip


def summary(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for cond in result["conditions"]:
        e, d = score(cond, "earshot"), score(cond, "direct")
        ratio = e["wer"] / d["wer"] if e["wer"] is not None and d["wer"] else None
        rows.append({"condition": cond["name"], "family": cond["family"], "earshot": e, "direct": d, "ratio": ratio})
    return rows


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def table(result: dict[str, Any]) -> str:
    lines = [
        f"Model {result['model']}; speech: LibriVox clips of pocketsphinx-testdata and English Asterisk prompts"
        " (asterisk-core-sounds-en-gsm), a telephone call of "
        f"pyannote-audio 4.0.7; music: {MUSIC_PACKAGE}; noise generated. Ratio: Earshot's WER over "
        "faster-whisper's (the bar: at most 1.15).",
        "",
        "| condition | Earshot WER (deletions) | faster-whisper direct WER (deletions) | ratio "
        "| words in non-speech, Earshot / direct (per hour) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in result["rows"]:
        e, d = r["earshot"], r["direct"]
        hours = e["non_speech_seconds"] / 3600
        ns = (f"{e['non_speech_words']} / {d['non_speech_words']} "
              f"({e['non_speech_words'] / hours:.0f} / {d['non_speech_words'] / hours:.0f})" if hours else "-")  # fmt: skip
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        lines.append(f"| {r['condition']} | {_pct(e['wer'])} ({e['deletions']}) | {_pct(d['wer'])} ({d['deletions']}) "
                     f"| {ratio} | {ns} |")  # fmt: skip
    lines += ["", "Each family's conditions pooled (errors over reference words):", "",
              "| family | Earshot WER | faster-whisper direct WER | ratio |", "| --- | --- | --- | --- |"]
    for family, (e, d, n) in families(result["rows"]).items():
        lines.append(f"| {family} | {_pct(e / n)} | {_pct(d / n)} | {e / d if d else float('nan'):.2f} |")
    return "\n".join(lines) + "\n"


def families(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Family -> (Earshot's errors, the direct call's errors, reference words) over its conditions."""
    out: dict[str, tuple[int, int, int]] = {}
    for r in rows:
        if r["earshot"]["ref_words"]:
            e, d, n = out.get(r["family"], (0, 0, 0))
            out[r["family"]] = (e + r["earshot"]["errors"], d + r["direct"]["errors"], n + r["earshot"]["ref_words"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="white noise only")
    parser.add_argument("--model", choices=("base", "tiny.en"), default="base", help="the embedded Whisper to use")
    args = parser.parse_args(argv)
    folder = CACHE / "gate"
    folder.mkdir(parents=True, exist_ok=True)
    result = run(conditions(args.quick, folder), args.model)
    result["rows"] = summary(result)
    for cond in result["conditions"]:
        for f in cond["files"]:
            f["path"] = Path(f["path"]).name
    write_result(OUT_NAME if args.model == "base" else f"{OUT_NAME}-{args.model}", result, table(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
