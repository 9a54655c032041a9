"""Write the self-test's sample: a short English news clip spoken by espeak-ng.

``resources/samples/selftest.flac`` (16 kHz mono, 16-bit FLAC, about 20 s, two
stories with a pause between them) and ``selftest.json`` beside it: the stories
and words with their times in seconds and the search terms the self-test
looks for. Both are committed and shipped in the standalone build; this
script only needs re-running when the texts change.

The texts use plain words that any English model recognises well in
espeak-ng's US voice (they were chosen for PocketSphinx, once the weakest engine).

Run from the repository root: ``.venv/bin/python packaging/make_sample.py`` (``packaging/`` is
deliberately not a Python package: it would shadow the ``packaging`` library).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools import tts  # noqa: E402  (tools/ lives beside packaging/)

SCHEMA = "earshot.selftest-sample/1"
DEFAULT_OUT = REPO / "resources" / "samples" / "selftest.flac"

STORIES = (
    "Heavy rain flooded parts of New York on Monday night. The weather service said more rain will fall "
    "this week, and the Red Cross opened two shelters near the river.",
    "In sports, the national football team won the game in Chicago last night. The coach said she was "
    "pleased with the young players.",
)
#: Words the self-test searches for; each must be in STORIES.
SEARCH_TERMS = ("Red Cross", "football", "weather", "shelters", "players")

VOICE = "en-us"
SPEED_WPM = 150
SAMPLE_RATE = 16_000
#: Silence before the first story, between stories and after the last, in seconds.
LEAD_IN_SECONDS, GAP_SECONDS, TAIL_SECONDS = 0.5, 2.0, 0.5
SPEECH_DBFS = -20.0
NOISE_FLOOR_DBFS = -70.0
SEED = 20261123


def build_sample(out: Path = DEFAULT_OUT) -> dict[str, object]:
    """Speak the stories into ``out`` (FLAC) and write the reference JSON beside it; return the reference."""
    rng = np.random.default_rng(SEED)
    pieces: list[np.ndarray] = [np.zeros(_samples(LEAD_IN_SECONDS), np.float32)]
    stories: list[dict[str, object]] = []
    words: list[dict[str, object]] = []
    methods: set[str] = set()
    cursor = len(pieces[0])
    for k, text in enumerate(STORIES):
        speech = tts.speak(text, VOICE, SPEED_WPM, sample_rate=SAMPLE_RATE)
        methods.add(speech.method)
        gain = 10 ** (SPEECH_DBFS / 20) / max(tts.active_rms(speech.audio, SAMPLE_RATE), 1e-9)
        first = len(words)
        for token, (a, b) in zip(speech.tokens, speech.word_spans, strict=True):
            words.append({"text": token.text, "start": _sec(cursor + int(a)), "end": _sec(cursor + int(b))})
        stories.append({
            "text": text, "first_word": first, "last_word": len(words) - 1,
            "start": _sec(cursor), "end": _sec(cursor + len(speech.audio)),
        })
        pieces.append((speech.audio * gain).astype(np.float32))
        cursor += len(speech.audio)
        pause = _samples(GAP_SECONDS if k + 1 < len(STORIES) else TAIL_SECONDS)
        pieces.append(np.zeros(pause, np.float32))
        cursor += pause
    audio = np.concatenate(pieces)
    audio += rng.normal(0.0, 10 ** (NOISE_FLOOR_DBFS / 20), audio.shape).astype(np.float32)
    audio = np.clip(audio, -0.99, 0.99)
    out.parent.mkdir(parents=True, exist_ok=True)
    sf.write(out, audio, SAMPLE_RATE, format="FLAC", subtype="PCM_16")
    reference = {
        "schema": SCHEMA,
        "audio": out.name,
        "sample_rate": SAMPLE_RATE,
        "duration": _sec(len(audio)),
        "espeak_ng": tts.espeak_version(),
        "voice": VOICE,
        "speed_wpm": SPEED_WPM,
        "word_timing": " | ".join(sorted(methods)),
        "stories": stories,
        "words": words,
        "search_terms": list(SEARCH_TERMS),
    }
    out.with_suffix(".json").write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    return reference


def _samples(seconds: float) -> int:
    return round(seconds * SAMPLE_RATE)


def _sec(samples: int) -> float:
    return round(samples / SAMPLE_RATE, 3)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="FLAC file to write (the JSON goes beside it)")
    args = ap.parse_args(argv)
    ref = build_sample(args.out)
    size = args.out.stat().st_size
    print(f"{args.out}: {ref['duration']:.1f} s, {len(ref['words'])} words, {size / 1024:.0f} KiB")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
