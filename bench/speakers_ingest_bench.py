"""What speaker turns add to ingest: stage times of one ingest with the diarizer on, in one run.

A held-out voice broadcast (``tools/voice_broadcast.py``: carlo, menardi and es-co, never used to
choose a speaker setting) goes through the real ingest job (one worker, the embedded Whisper
tiny.en), once with speaker turns and once without. Reported per run: audio length, each stage's
wall seconds, the speaker stage as a fraction of real time and of the rest of ingest in the same
run, the speaker stage's CPU seconds (its thread's; on a machine shared with other programs the wall
time counts their turns too), the whole ingest's real-time factor, and the DER of the stored turns
against the truth.

Writes ``bench/results/speakers_ingest.json`` and ``.md``.
Run: ``.venv/bin/python -m bench.speakers_ingest_bench [--quick]`` (``--quick``: 2 minutes instead of 6).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository first
from bench.common import CACHE, bench_parser, built_once, use_bench_folders, write_result

OUT_NAME = "speakers_ingest"
VOICES = ("carlo", "menardi", "es-co")
STAGES = ("decode", "transcribe", "detect", "analyze", "store", "speakers")


def _broadcast(minutes: float) -> Path:
    from tools.voice_broadcast import build, write

    wav = CACHE / f"speakers-ingest-{minutes:g}min.wav"
    return built_once(wav, "a voice broadcast", lambda path: write(build(VOICES, minutes=minutes, seed=11), path))


def _ingest(wav: Path, *, speakers: bool) -> dict[str, Any]:
    from engine.cli.common import resolve_model
    from engine.detect.sensitivities import DetectorSettings
    from engine.evaluate.der import Turn, diarization_error, read_rttm
    from engine.ingest import IngestJob
    from engine.storage.store import Store

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "lib.sqlite"
        [outcome] = IngestJob([wav], db_path=db, spec=resolve_model(None), workers=1,
                              detector_settings=DetectorSettings(speaker_turns=speakers)).run()
        if outcome.state.value != "done":
            raise RuntimeError(outcome.message)
        row: dict[str, Any] = {"speakers_on": speakers, "audio_seconds": outcome.audio_seconds}
        row.update({stage: getattr(outcome.times, stage) for stage in STAGES})
        row["total"] = outcome.times.total
        row["speakers_cpu"] = outcome.times.speakers_cpu
        with Store(db) as store:
            rid = store.recording(wav.name)["id"]
            turns = [Turn(t["start"], t["end"], str(t["speaker"])) for t in store.turns(rid)]
            row["speakers_found"] = len(store.speakers(rid))
        truth = next(iter(read_rttm(wav.with_suffix(".rttm")).values()))
        row["truth_speakers"] = len({t.speaker for t in truth})
        row["der"] = diarization_error(truth, turns).der if speakers else None
    return row


def run(quick: bool) -> dict[str, Any]:
    use_bench_folders(OUT_NAME)
    wav = _broadcast(2.0 if quick else 6.0)
    rows = [_ingest(wav, speakers=True), _ingest(wav, speakers=False)]
    return {"voices": list(VOICES), "file": wav.name, "rows": rows}


def table(result: dict[str, Any]) -> str:
    """Markdown: one row per ingest run, stage seconds and the speaker stage's share."""
    head = ("| speaker turns | audio (min) | decode s | recognise s | detect s | analyze s | store s | speakers s "
            "| speakers / real time | speakers / rest of ingest | speakers CPU s per audio s | ingest RTF "
            "| speakers found (truth) | DER |")
    lines = [head, "| --- |" + " ---: |" * 13]
    for r in result["rows"]:
        rest = r["total"] - r["speakers"]
        share = f"{100 * r['speakers'] / r['audio_seconds']:.1f}%" if r["speakers_on"] else "-"
        ratio = f"{100 * r['speakers'] / rest:.1f}%" if r["speakers_on"] and rest else "-"
        der = "-" if r["der"] is None else f"{100 * r['der']:.1f}%"
        cpu = f"{r['speakers_cpu'] / r['audio_seconds']:.3f}" if r["speakers_on"] else "-"
        found = f"{r['speakers_found']} ({r['truth_speakers']})" if r["speakers_on"] else "-"
        lines.append(
            f"| {'on' if r['speakers_on'] else 'off'} | {r['audio_seconds'] / 60:.1f} | {r['decode']:.1f} "
            f"| {r['transcribe']:.1f} | {r['detect']:.1f} | {r['analyze']:.1f} | {r['store']:.2f} | {r['speakers']:.1f} "
            f"| {share} | {ratio} | {cpu} | {r['total'] / r['audio_seconds']:.3f} | {found} | {der} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    args = bench_parser(__doc__ or "", "a 2-minute broadcast instead of 6").parse_args()
    result = run(args.quick)
    write_result(OUT_NAME, result, table(result), echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
