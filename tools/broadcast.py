"""Build a synthetic news broadcast with exactly known ground truth.

Stories are read by espeak-ng in several voices and speeds, separated by
synthetic music beds, silences and noise bursts, optionally with real applause,
laughter and crowd recordings (:mod:`tools.sound_clips`) between or after them.
The WAV (mono, 16-bit) is written incrementally; the ground truth goes to the
same path with a ``.json`` suffix and is returned as a :class:`BroadcastTruth`.

Ground truth JSON (``schema`` = ``"earshot.broadcast-truth/1"``), times in seconds::

    sample_rate, n_samples, duration, language, seed, text_source,
    espeak_ng            espeak-ng version that spoke the stories
    word_timing          how word times were found; word_times_approximate is true
    settings             the build arguments (voices, flags, target_seconds ...)
    stories    [{index, text, source, voice, speed, start, end, first_word, last_word, n_words, word_timing}]
    boundaries {words: [first word index of stories 1..n-1], seconds: [start of stories 1..n-1]}
    words      [{index, text, norm, story, start, end}]
    events     [{type, start, end, story, source}]   tiling [0, duration] without gaps or overlaps;
               type in speech, music, silence, noise, applause, laughter, crowd;
               source = {package, version, member} for real clips, else null;
               story = story index for speech, else null

Run ``python -m tools.broadcast OUT.wav --minutes 10 --language en --applause --laughter --seed 1``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

# Run as a script (python tools/NAME.py) as well as a module: the repository goes on the path first.
if str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.errors import EarshotError, ParameterError
from tools import sound_clips, synth, tts

SCHEMA = "earshot.broadcast-truth/1"

REPO = Path(__file__).resolve().parent.parent
LEE_CORPUS = REPO.parent / "shared" / "data" / "lee" / "lee_background.cor"
NEWS_DIR = REPO / "resources" / "news"

DEFAULT_VOICES: dict[str, tuple[str, ...]] = {
    "en": ("en-us", "en-gb", "en-us+m3", "en+f2", "en-gb-scotland", "en-us+f4", "en-029", "en+m7"),
    "ko": ("ko", "ko+f2", "ko+m3", "ko+f4"),
}

#: Reading speed range, in words per minute (espeak-ng ``-s``), inclusive.
SPEED_RANGE = (140, 190)

#: Levels, in dB relative to full scale (RMS; speech over its active frames).
SPEECH_DBFS = -20.0
MUSIC_DBFS = -23.0
NOISE_DBFS = -28.0
CLIP_DBFS = {"applause": -22.0, "laughter": -20.0, "crowd": -24.0}
NOISE_FLOOR_DBFS = -72.0
PEAK_LIMIT = 0.95

#: Durations, in seconds: fixed, or (low, high) drawn uniformly.
LEAD_IN_SECONDS = 0.5
TAIL_SECONDS = 0.5
PAD_SECONDS = (0.4, 0.9)
MUSIC_SECONDS = (3.0, 6.0)
NOISE_SECONDS = (0.4, 1.5)
LONG_SILENCE_SECONDS = (1.5, 3.0)
LOOPED_CLIP_SECONDS = (3.0, 6.0)
CLIP_CROSSFADE_SECONDS = 0.25

#: Chance that an enabled clip kind or a noise burst follows a story (each appears at least once).
INSERT_PROBABILITY = 0.3

#: Chance that a music bed (rather than a long silence) separates two stories; the first gap always has one.
MUSIC_GAP_PROBABILITY = 0.5

#: With ``target_seconds``, the first story that ends less than this many seconds before the
#: target (or after it) is the last; the outro follows and silence pads up to the target.
CLOSING_SECONDS = 6.0

EVENT_TYPES = ("speech", "music", "silence", "noise", "applause", "laughter", "crowd")

_EDGE_PUNCTUATION = re.compile(r"^\W+|\W+$")


@dataclass(frozen=True)
class Story:
    """One story as read: ``start``/``end`` in seconds bound its speech; words are inclusive indices."""

    index: int
    text: str
    source: str
    voice: str
    speed: int
    start: float
    end: float
    first_word: int
    last_word: int
    n_words: int
    word_timing: str


@dataclass(frozen=True)
class Word:
    """One token of a story as written (``text``) and lower-cased without edge punctuation (``norm``).

    ``start`` comes from espeak-ng's word event; ``end`` is where the word's sound stops (seconds).
    """

    index: int
    text: str
    norm: str
    story: int
    start: float
    end: float


@dataclass(frozen=True)
class Event:
    """One span of the timeline, in seconds; ``source`` names the Debian file of a real clip."""

    type: str
    start: float
    end: float
    story: int | None = None
    source: dict[str, str] | None = None


@dataclass(frozen=True)
class BroadcastTruth:
    """Everything known about a built broadcast; mirrors the JSON file."""

    sample_rate: int
    n_samples: int
    duration: float
    language: str
    seed: int
    text_source: str
    espeak_ng: str
    word_timing: str
    stories: list[Story]
    boundary_words: list[int]
    boundary_seconds: list[float]
    words: list[Word]
    events: list[Event]
    settings: dict[str, Any] = field(default_factory=dict)
    word_times_approximate: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "sample_rate": self.sample_rate,
            "n_samples": self.n_samples,
            "duration": self.duration,
            "language": self.language,
            "seed": self.seed,
            "text_source": self.text_source,
            "espeak_ng": self.espeak_ng,
            "word_timing": self.word_timing,
            "word_times_approximate": self.word_times_approximate,
            "settings": self.settings,
            "stories": [asdict(s) for s in self.stories],
            "boundaries": {"words": self.boundary_words, "seconds": self.boundary_seconds},
            "words": [asdict(w) for w in self.words],
            "events": [asdict(e) for e in self.events],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BroadcastTruth:
        if data.get("schema") != SCHEMA:
            raise ParameterError(f"not a broadcast truth file: schema is {data.get('schema')!r}, expected {SCHEMA!r}")
        return cls(
            sample_rate=data["sample_rate"],
            n_samples=data["n_samples"],
            duration=data["duration"],
            language=data["language"],
            seed=data["seed"],
            text_source=data["text_source"],
            espeak_ng=data["espeak_ng"],
            word_timing=data["word_timing"],
            word_times_approximate=data["word_times_approximate"],
            settings=data["settings"],
            stories=[Story(**s) for s in data["stories"]],
            boundary_words=data["boundaries"]["words"],
            boundary_seconds=data["boundaries"]["seconds"],
            words=[Word(**w) for w in data["words"]],
            events=[Event(**e) for e in data["events"]],
        )

    def write_json(self, path: Path) -> None:
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=1)
        with tts.replacing(Path(path)) as partial:
            partial.write_text(text + "\n", encoding="utf-8")


def load_truth(path: Path) -> BroadcastTruth:
    """Read a ground-truth JSON written by :func:`build_broadcast`."""
    return BroadcastTruth.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def default_texts(language: str) -> tuple[list[str], list[str], str]:
    """News texts for ``language``, a source label for each, and the collection's name.

    English uses the Lee corpus from ``../shared`` when it is there, else
    ``resources/news/en.txt``; other languages use ``resources/news/<language>.txt``.
    """
    if language == "en" and LEE_CORPUS.is_file():
        path, name = LEE_CORPUS, "shared/data/lee/lee_background.cor"
    else:
        path = NEWS_DIR / f"{language}.txt"
        name = f"resources/news/{language}.txt"
        if not path.is_file():
            raise ParameterError(f"no news texts for language {language!r} ({path} is missing); pass stories=")
    lines = path.read_text(encoding="utf-8").splitlines()
    numbered = [(i, line.strip()) for i, line in enumerate(lines) if line.strip()]
    return [t for _, t in numbered], [f"{name}:{i + 1}" for i, _ in numbered], name


def build_broadcast(
    out_wav: Path,
    *,
    stories: Sequence[str] | None = None,
    language: str = "en",
    n_stories: int | None = None,
    seed: int = 0,
    target_seconds: float | None = None,
    voices: Sequence[str] | None = None,
    music_beds: bool = True,
    noise_bursts: bool = True,
    applause: bool = False,
    laughter: bool = False,
    crowd: bool = False,
    sample_rate: int = 16000,
    noise_floor_dbfs: float | None = NOISE_FLOOR_DBFS,
    tts_cache_dir: Path | None = None,
    clip_cache_dir: Path | None = None,
) -> BroadcastTruth:
    """Write a test broadcast to ``out_wav`` and its ground truth to ``out_wav.with_suffix('.json')``.

    Parameters
    ----------
    stories
        Texts to read, in this order; default: :func:`default_texts` shuffled by ``seed``.
    n_stories
        How many stories to read (texts are cycled); default ``len(stories)``, or 6.
        Ignored when ``target_seconds`` is given.
    target_seconds
        Keep adding stories until the broadcast lasts at least this long, in seconds.
    voices
        espeak-ng voices, cycled at random without repeating one voice twice in a row.
    music_beds, noise_bursts
        Put synthetic music beds (and an intro and outro) or noise bursts between stories.
    applause, laughter, crowd
        Put real recordings of these between or after stories (each at least once);
        fetched from Debian packages on first use.
    sample_rate
        Output sample rate in Hz.
    noise_floor_dbfs
        RMS of a white noise floor added everywhere (dBFS), or None for digital silence.
    """
    out_wav = Path(out_wav)
    texts, labels, text_source, voices = _check_arguments(stories, language, n_stories, target_seconds, voices, sample_rate)
    if n_stories is None:
        n_stories = len(texts) if stories is not None else 6
    rng = np.random.default_rng(seed)
    order = np.arange(len(texts)) if stories is not None else rng.permutation(len(texts))
    clip_kinds = [k for k, on in (("applause", applause), ("laughter", laughter), ("crowd", crowd)) if on]
    clips = {kind: _load_clips(kind, sample_rate, clip_cache_dir) for kind in clip_kinds}

    out_wav.parent.mkdir(parents=True, exist_ok=True)
    floor_rng = np.random.default_rng([seed, 1])
    with tts.replacing(out_wav) as partial, _Timeline(partial, sample_rate, floor_rng, noise_floor_dbfs) as timeline:
        programme = _Programme(
            timeline,
            rng,
            texts=[texts[i] for i in order],
            labels=[labels[i] for i in order],
            voices=voices,
            music_beds=music_beds,
            noise_bursts=noise_bursts,
            clips=clips,
            tts_cache_dir=tts_cache_dir,
        )
        programme.run(n_stories, target_seconds)
    story_records, words = programme.stories, programme.words

    methods = sorted({s.word_timing for s in story_records})
    truth = BroadcastTruth(
        sample_rate=sample_rate,
        n_samples=timeline.n_samples,
        duration=_sec(timeline.n_samples, sample_rate),
        language=language,
        seed=seed,
        text_source=text_source,
        espeak_ng=tts.espeak_version(),
        word_timing=methods[0] if len(methods) == 1 else "mixed: " + " | ".join(methods),
        stories=story_records,
        boundary_words=[s.first_word for s in story_records[1:]],
        boundary_seconds=[s.start for s in story_records[1:]],
        words=words,
        events=timeline.events,
        settings={
            "n_stories": len(story_records),
            "target_seconds": target_seconds,
            "voices": list(voices),
            "speed_range": list(SPEED_RANGE),
            "music_beds": music_beds,
            "noise_bursts": noise_bursts,
            "applause": applause,
            "laughter": laughter,
            "crowd": crowd,
            "noise_floor_dbfs": noise_floor_dbfs,
        },
    )
    truth.write_json(out_wav.with_suffix(".json"))
    return truth


def _check_arguments(
    stories: Sequence[str] | None,
    language: str,
    n_stories: int | None,
    target_seconds: float | None,
    voices: Sequence[str] | None,
    sample_rate: int,
) -> tuple[list[str], list[str], str, tuple[str, ...]]:
    if n_stories is not None and n_stories < 1:
        raise ParameterError(f"n_stories must be at least 1, got {n_stories}")
    if target_seconds is not None and not target_seconds > 0:
        raise ParameterError(f"target_seconds must be positive, got {target_seconds}")
    if not 8000 <= sample_rate <= 48000:
        raise ParameterError(f"sample_rate must be between 8000 and 48000 Hz, got {sample_rate}")
    if voices is None:
        if language not in DEFAULT_VOICES:
            raise ParameterError(f"no default voices for language {language!r}; pass voices=")
        voices = DEFAULT_VOICES[language]
    elif isinstance(voices, str) or not voices:
        raise ParameterError(f"voices must be a non-empty list of espeak-ng voice names, got {voices!r}")
    if stories is None:
        texts, labels, text_source = default_texts(language)
    else:
        if isinstance(stories, str) or not stories:
            raise ParameterError(f"stories must be a non-empty list of texts, got {stories!r}")
        texts = [str(s).strip() for s in stories]
        empty = [i for i, t in enumerate(texts) if not tts.tokenize(t)]
        if empty:
            raise ParameterError(f"stories {empty} have no words")
        labels, text_source = [f"caller:{i + 1}" for i in range(len(texts))], "caller"
    return texts, labels, text_source, tuple(voices)


@dataclass
class _Programme:
    """Lays out intro, stories, the gaps between them and the outro on a timeline."""

    timeline: _Timeline
    rng: np.random.Generator
    texts: list[str]
    labels: list[str]
    voices: tuple[str, ...]
    music_beds: bool
    noise_bursts: bool
    clips: dict[str, list[tuple[sound_clips.ClipSource, np.ndarray]]]
    tts_cache_dir: Path | None
    stories: list[Story] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    placed: set[str] = field(default_factory=set)

    def run(self, n_stories: int, target_seconds: float | None) -> None:
        self.timeline.silence(LEAD_IN_SECONDS)
        if self.music_beds:
            self.music()
            self.pause()
        while True:
            self.story(len(self.stories))
            last = self.finished(n_stories, target_seconds)
            self.pause()
            self.inserts_after_story(len(self.stories) - 1, last)
            if last:
                break
            if self.music_beds and (len(self.stories) == 1 or self.rng.random() < MUSIC_GAP_PROBABILITY):
                self.music()
            else:
                self.timeline.silence(_draw(self.rng, LONG_SILENCE_SECONDS))
            self.pause()
        if self.music_beds:
            self.music()
        self.timeline.silence(TAIL_SECONDS)
        if target_seconds is not None:
            missing = math.ceil(target_seconds * self.timeline.sample_rate) - self.timeline.n_samples
            if missing > 0:
                self.timeline.add("silence", np.zeros(missing, dtype=np.float32))

    def finished(self, n_stories: int, target_seconds: float | None) -> bool:
        if target_seconds is None:
            return len(self.stories) >= n_stories
        return self.timeline.seconds >= target_seconds - CLOSING_SECONDS

    def story(self, k: int) -> None:
        sr = self.timeline.sample_rate
        previous = self.stories[-1].voice if self.stories else None
        choices = [v for v in self.voices if v != previous] or list(self.voices)
        voice = choices[int(self.rng.integers(len(choices)))]
        speed = int(self.rng.integers(SPEED_RANGE[0], SPEED_RANGE[1] + 1))
        text = self.texts[k % len(self.texts)]
        speech = tts.speak(text, voice, speed, sample_rate=sr, cache_dir=self.tts_cache_dir)
        start, end = self.timeline.add("speech", _speech_at_level(speech), story=k)
        first = len(self.words)
        for token, (a, b) in zip(speech.tokens, speech.word_spans, strict=True):
            norm = _EDGE_PUNCTUATION.sub("", token.text.lower())
            self.words.append(Word(len(self.words), token.text, norm, k, _sec(start + a, sr), _sec(start + b, sr)))
        label = self.labels[k % len(self.labels)]
        self.stories.append(
            Story(k, text, label, voice, speed, _sec(start, sr), _sec(end, sr),
                  first, len(self.words) - 1, len(speech.tokens), speech.method)
        )  # fmt: skip

    def inserts_after_story(self, k: int, last: bool) -> None:
        """Real clips, then a noise burst, after story ``k``: each by chance, and each at least once.

        The i-th enabled kind is forced after story i (or after the last story) if it has not
        appeared yet, so even a three-story broadcast holds every kind asked for.
        """
        kinds = [*self.clips, *(["noise"] if self.noise_bursts else [])]
        sr = self.timeline.sample_rate
        for i, kind in enumerate(kinds):
            forced = kind not in self.placed and (k == i or last)
            if not (forced or self.rng.random() < INSERT_PROBABILITY):
                continue
            if kind == "noise":
                burst = synth.noise_burst(_draw(self.rng, NOISE_SECONDS), sample_rate=sr, rng=self.rng)
                self.timeline.add("noise", _at_level(burst, NOISE_DBFS))
            else:
                source, audio = self.clips[kind][int(self.rng.integers(len(self.clips[kind])))]
                self.timeline.add(kind, _shape_clip(kind, audio, sr, self.rng), source=source.to_dict())
            self.pause()
            self.placed.add(kind)

    def music(self) -> None:
        bed = synth.music_bed(_draw(self.rng, MUSIC_SECONDS), sample_rate=self.timeline.sample_rate, rng=self.rng)
        self.timeline.add("music", _at_level(bed, MUSIC_DBFS))

    def pause(self) -> None:
        self.timeline.silence(_draw(self.rng, PAD_SECONDS))


class _Timeline:
    """Appends segments to a 16-bit mono WAV file and records one event per segment."""

    def __init__(self, path: Path, sample_rate: int, floor_rng: np.random.Generator, floor_dbfs: float | None):
        self.sample_rate = sample_rate
        self.n_samples = 0
        self.events: list[Event] = []
        self._floor_rng = floor_rng
        self._floor = None if floor_dbfs is None else 10 ** (floor_dbfs / 20)
        self._file = sf.SoundFile(path, "w", samplerate=sample_rate, channels=1, subtype="PCM_16", format="WAV")

    def __enter__(self) -> _Timeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    @property
    def seconds(self) -> float:
        return self.n_samples / self.sample_rate

    def silence(self, seconds: float) -> None:
        self.add("silence", np.zeros(round(seconds * self.sample_rate), dtype=np.float32))

    def add(
        self, kind: str, audio: np.ndarray, *, story: int | None = None, source: dict[str, str] | None = None
    ) -> tuple[int, int]:
        """Append ``audio`` (float, shape ``(n,)``) as one ``kind`` event; returns its sample span."""
        x = audio.astype(np.float64)
        if self._floor is not None:
            x = x + self._floor * self._floor_rng.standard_normal(len(x))
        pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype(np.int16)
        self._file.write(pcm)
        start, self.n_samples = self.n_samples, self.n_samples + len(pcm)
        sr = self.sample_rate
        previous = self.events[-1] if self.events else None
        if kind == "silence" and previous is not None and previous.type == "silence":
            self.events[-1] = Event("silence", previous.start, _sec(self.n_samples, sr))
        else:
            self.events.append(Event(kind, _sec(start, sr), _sec(self.n_samples, sr), story, source))
        return start, self.n_samples


def _load_clips(kind: str, sample_rate: int, cache_dir: Path | None) -> list[tuple[sound_clips.ClipSource, np.ndarray]]:
    paths = sound_clips.fetch_clips(kind, cache_dir)
    return [(sound_clips.clip_source(p), sound_clips.load_clip(p, sample_rate=sample_rate)) for p in paths]


def _shape_clip(kind: str, clip: np.ndarray, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Applause is looped with crossfades to last at least 3-6 s (the packaged clip lasts 2 s); crowd clips
    longer than 3-6 s are cut with a fade-out; laughter is used as recorded."""
    if kind == "applause":
        clip = _loop(clip, round(_draw(rng, LOOPED_CLIP_SECONDS) * sample_rate), sample_rate)
    elif kind == "crowd":
        n = round(_draw(rng, LOOPED_CLIP_SECONDS) * sample_rate)
        if len(clip) > n:
            clip = synth.fade(clip[:n].astype(np.float64), sample_rate, fade_seconds=0.1)
    return _at_level(clip, CLIP_DBFS[kind])


def _loop(clip: np.ndarray, n: int, sample_rate: int) -> np.ndarray:
    """Repeat ``clip`` with equal-power crossfades until it is at least ``n`` samples long."""
    fade = min(round(CLIP_CROSSFADE_SECONDS * sample_rate), len(clip) // 2)
    out = clip.astype(np.float64)
    theta = np.linspace(0.0, np.pi / 2, fade)
    while len(out) < n:
        joined = out[len(out) - fade :] * np.cos(theta) + clip[:fade] * np.sin(theta)
        out = np.concatenate([out[: len(out) - fade], joined, clip[fade:]])
    return out


def _speech_at_level(speech: tts.Speech) -> np.ndarray:
    return _scale(speech.audio, tts.active_rms(speech.audio, speech.sample_rate), SPEECH_DBFS)


def _at_level(x: np.ndarray, dbfs: float) -> np.ndarray:
    return _scale(x, float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0, dbfs)


def _scale(x: np.ndarray, rms: float, dbfs: float) -> np.ndarray:
    if rms <= 0:
        return x.astype(np.float32)
    y = x.astype(np.float64) * (10 ** (dbfs / 20) / rms)
    peak = float(np.max(np.abs(y)))
    if peak > PEAK_LIMIT:
        y *= PEAK_LIMIT / peak
    return y.astype(np.float32)


def _draw(rng: np.random.Generator, bounds: tuple[float, float]) -> float:
    return float(rng.uniform(*bounds))


def _sec(samples: int, sample_rate: int) -> float:
    return round(int(samples) / sample_rate, 6)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.broadcast", description="Build a synthetic test broadcast and its ground truth JSON."
    )
    parser.add_argument("out", type=Path, help="output WAV; the truth goes beside it with a .json suffix")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float, help="keep adding stories until the broadcast lasts this long")
    length.add_argument("--stories", type=int, help="number of stories (default 6)")
    parser.add_argument("--language", default="en", help="en (default) or ko")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--text-file", type=Path, help="read stories from this file, one per line")
    parser.add_argument("--voices", help="comma-separated espeak-ng voices (default: several per language)")
    parser.add_argument("--applause", action="store_true", help="add real applause (Debian lmms-common)")
    parser.add_argument("--laughter", action="store_true", help="add real laughter (Debian scratch)")
    parser.add_argument("--crowd", action="store_true", help="add real crowd noise (Debian etw-data, lmms-common)")
    parser.add_argument("--no-music", action="store_true", help="no music beds")
    parser.add_argument("--no-noise", action="store_true", help="no noise bursts")
    parser.add_argument("--sample-rate", type=int, default=16000)
    args = parser.parse_args(argv)

    stories = None
    if args.text_file is not None:
        stories = [ln for ln in args.text_file.read_text(encoding="utf-8").splitlines() if ln.strip()]
    started = time.perf_counter()
    try:
        truth = build_broadcast(
            args.out,
            stories=stories,
            language=args.language,
            n_stories=args.stories,
            seed=args.seed,
            target_seconds=None if args.minutes is None else args.minutes * 60.0,
            voices=None if args.voices is None else [v.strip() for v in args.voices.split(",") if v.strip()],
            music_beds=not args.no_music,
            noise_bursts=not args.no_noise,
            applause=args.applause,
            laughter=args.laughter,
            crowd=args.crowd,
            sample_rate=args.sample_rate,
        )
    except EarshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    counts = {t: sum(e.type == t for e in truth.events) for t in EVENT_TYPES}
    events = ", ".join(f"{n} {t}" for t, n in counts.items() if n)
    print(
        f"wrote {args.out} and {args.out.with_suffix('.json')}: {truth.duration / 60:.1f} min, "
        f"{len(truth.stories)} stories, {len(truth.words)} words ({events}) "
        f"in {time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
