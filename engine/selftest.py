"""Earshot's self-test: ingest the bundled sample and check what each stage wrote.

``earshot --self-test`` runs :func:`run_self_test`. It needs no display and no
network, uses a private index (never the user's library), and prints one line
per stage, ``OK`` or ``FAIL`` with the reason. The standalone build runs it to
prove that everything the app loads at run time made it into the bundle:
the speech model, the native libraries, the numba kernel cache, and worker
processes (spawned from the frozen executable).

The sample (``resources/samples/selftest.flac``, about 20 s of two short
news stories spoken by espeak-ng) and its reference (``selftest.json``: the
words with times, the stories, the search terms) are written by
``packaging/make_sample.py``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from engine.asr.base import ModelSpec
from engine.storage.passages import PassageIndex
from engine.storage.store import Store

#: The application folder: where ``engine/`` and ``resources/`` are (``sys._MEIPASS`` when frozen).
APP_ROOT = Path(__file__).resolve().parent.parent
SAMPLE = APP_ROOT / "resources" / "samples" / "selftest.flac"
#: What the sample is called in a user's library ("Try the sample").
SAMPLE_NAME = "Earshot sample - two news stories.flac"

#: The transcript must have at least this many words per reference word ...
MIN_WORD_RATIO = 0.5
#: ... and contain at least this fraction of the reference words (bag of words, case-folded).
MIN_WORD_RECALL = 0.3
#: A recording's stored duration may differ from the reference by this much, in seconds.
DURATION_TOLERANCE = 0.5
#: A search hit counts if its segment lies within this many seconds of where the term was spoken.
SEARCH_TIME_TOLERANCE = 1.0
#: Search terms (of the reference's) that must each find the sample at the right time.
MIN_SEARCH_HITS = 2

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


@dataclass(frozen=True)
class StageResult:
    """How one stage of the self-test ended."""

    name: str
    ok: bool
    detail: str


@dataclass
class _Run:
    """What the stages pass on to each other."""

    workdir: Path
    reference: dict[str, Any] = field(default_factory=dict)
    spec: ModelSpec | None = None
    db_path: Path | None = None
    recording_id: int | None = None
    words: list[dict[str, Any]] = field(default_factory=list)


class _StageFailed(Exception):
    """A stage's output is missing or not sane; the message says why."""


def run_self_test(*, data_dir: Path | None = None) -> int:
    """Ingest the bundled sample, check each stage, print one line per stage; 0 if every stage is OK.

    Parameters
    ----------
    data_dir : folder for the self-test's own index; default a temporary folder,
        removed afterwards. The user's library is never touched.
    """
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="earshot-selftest-") as tmp:
        run = _Run(workdir=Path(data_dir) if data_dir is not None else Path(tmp))
        results = [_run_stage(name, check, run) for name, check in STAGES]
    failed = [r.name for r in results if not r.ok]
    elapsed = time.perf_counter() - started
    if failed:
        print(f"self-test FAILED in {elapsed:.1f} s: {', '.join(failed)}", flush=True)
        return 1
    print(f"self-test passed in {elapsed:.1f} s", flush=True)
    return 0


def _run_stage(name: str, check: Callable[[_Run], str], run: _Run) -> StageResult:
    try:
        result = StageResult(name, True, check(run))
    except _StageFailed as exc:
        result = StageResult(name, False, str(exc))
    except Exception as exc:  # a stage that crashes is a failed stage, not a crashed self-test
        result = StageResult(name, False, f"{type(exc).__name__}: {exc}")
    print(f"{result.name:<10} {'OK' if result.ok else 'FAIL':<4}  {result.detail}", flush=True)
    return result


# -- stages ------------------------------------------------------------------------------------


def library_sample() -> Path:
    """The sample as a user's library holds it: a copy under ``SAMPLE_NAME`` in the data folder's ``samples``.

    Raises EarshotError naming the folder when the copy cannot be made.
    """
    from engine.errors import EarshotError
    from engine.paths import data_dir

    target = data_dir() / "samples" / SAMPLE_NAME
    try:
        if not target.is_file() or target.stat().st_size != SAMPLE.stat().st_size:
            target.parent.mkdir(exist_ok=True)
            part = target.with_name(f".{os.getpid()}.part")
            part.write_bytes(SAMPLE.read_bytes())
            os.replace(part, target)
    except OSError as exc:
        raise EarshotError(f"{target.parent}: cannot copy the sample there: {exc.strerror or exc}") from None
    return target


def _check_sample(run: _Run) -> str:
    reference_path = SAMPLE.with_suffix(".json")
    if not SAMPLE.is_file() or not reference_path.is_file():
        raise _StageFailed(f"{SAMPLE} or its reference {reference_path.name} is missing from the application")
    run.reference = json.loads(reference_path.read_text(encoding="utf-8"))
    n_words = len(run.reference["words"])
    return f"{SAMPLE.name}: {run.reference['duration']:.1f} s, {n_words} words in {len(run.reference['stories'])} stories"


def _check_data_folder(run: _Run) -> str:
    """The user data folder exists (it is created on first use), is writable and is not inside the app."""
    from engine.paths import data_dir  # in the stage: a broken build fails this stage, not the whole self-test

    folder = data_dir().resolve()
    app = _app_folder()
    if folder == app or app in folder.parents:
        raise _StageFailed(f"the user data folder {folder} is inside the application folder {app}")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise _StageFailed(f"the user data folder {folder} is not writable: {exc.strerror or exc}") from None
    return f"{folder} (application in {app})"


def _check_model(run: _Run) -> str:
    """The model :class:`ModelManager` resolves; the embedded one if that cannot read English.

    The embedded Whisper models' files must match their pinned SHA-256.
    """
    from models.discover import (  # in the stage: a broken build fails this stage, not the whole self-test
        embedded_whisper,
        verify_embedded_whisper,
    )
    from models.embedded_base import WHISPER_BASE_NAME, verify_embedded_base
    from models.manager import ModelManager

    spec = ModelManager().resolve(None)
    note = ""
    whisper = embedded_whisper()
    if whisper is not None and spec.name == whisper.name:
        bad = verify_embedded_whisper(whisper.path)
        if bad:
            raise _StageFailed(f"{whisper.name}: {', '.join(bad)} in {whisper.path} differ from the pinned SHA-256")
    if spec.name == WHISPER_BASE_NAME:
        bad = verify_embedded_base()
        if bad:
            raise _StageFailed(f"{spec.name}: {', '.join(bad)} differ from the pinned SHA-256")
    if not (spec.language.lower().startswith("en") or spec.name == WHISPER_BASE_NAME):
        if whisper is None:
            raise _StageFailed(f"the default model {spec.name} is not English and the embedded model is missing")
        note = f" (the default {spec.name} is {spec.language}, the sample is English)"
        spec = whisper.spec()
    run.spec = spec
    return f"{spec.engine} model {spec.name}{note}"


def _check_ingest(run: _Run) -> str:
    """Ingest through worker processes; the transcript must resemble the reference."""
    from engine.ingest import IngestJob  # in the stage: a broken build fails this stage, not the whole self-test
    from engine.jobs import JobState

    if run.spec is None or not run.reference:
        raise _StageFailed("skipped: no speech model" if run.spec is None else "skipped: no sample")
    run.workdir.mkdir(parents=True, exist_ok=True)
    run.db_path = run.workdir / "selftest.sqlite"
    started = time.perf_counter()
    (outcome,) = IngestJob([SAMPLE], db_path=run.db_path, spec=run.spec, workers=1, force=True).run()
    if outcome.state is not JobState.DONE or outcome.recording_id is None:
        raise _StageFailed(f"ingest ended {outcome.state.value}: {outcome.message}")
    run.recording_id = outcome.recording_id
    with Store(run.db_path) as store:
        recording = store.recording(run.recording_id)
        run.words = store.words(run.recording_id)
        n_segments = len(store.segments(run.recording_id))
    reference = [w["text"] for w in run.reference["words"]]
    heard = [w["text"] for w in run.words]
    problems = _transcript_problems(run.words, recording["duration"], run.reference["duration"])
    recall = word_recall(heard, reference)
    if len(heard) < MIN_WORD_RATIO * len(reference):
        problems.append(f"only {len(heard)} words for {len(reference)} spoken")
    if recall < MIN_WORD_RECALL:
        problems.append(f"word recall {recall:.2f} < {MIN_WORD_RECALL}")
    if n_segments == 0:
        problems.append("no search segments")
    if problems:
        raise _StageFailed("; ".join(problems) + f" (transcript: {' '.join(heard)[:200]!r})")
    elapsed = time.perf_counter() - started
    return f"{len(heard)} words, {n_segments} segments, word recall {recall:.2f}, in {elapsed:.1f} s (worker process)"


def _check_stories(run: _Run) -> str:
    rows = _rows(run, lambda store, rec: store.stories(rec), "stories", "story segmentation (engine.segment)")
    problems = _span_problems(rows, len(run.words), "story")
    if any(b["first_word"] <= a["last_word"] for a, b in pairwise(rows)):
        problems.append("stories overlap")
    _fail_on(problems)
    truth = [s["start"] for s in run.reference["stories"][1:]]
    found = [round(r["start"], 1) for r in rows[1:]]
    return f"{_count(len(rows), 'story', 'stories')}; boundaries at {found} s (spoken at {truth} s)"


def _check_entities(run: _Run) -> str:
    rows = _rows(run, lambda store, rec: store.entities(rec), "entities", "entity tagging (engine.entities)")
    problems = _span_problems(rows, len(run.words), "entity")
    problems += [f"entity {r['text']!r} has no type" for r in rows if not str(r["type"]).strip()]
    problems += [f"an entity of type {r['type']} has no text" for r in rows if not str(r["text"]).strip()]
    _fail_on(problems)
    shown = ", ".join(f"{r['type']} {r['text']!r}" for r in rows[:5])
    return f"{_count(len(rows), 'entity', 'entities')}: {shown}{' ...' if len(rows) > 5 else ''}"


def _check_hotspots(run: _Run) -> str:
    """Audio events (engine.detect) for the sample, and an X-duration for every word."""
    rows = _rows(run, lambda store, rec: store.events(rec), "audio events", "the detectors (engine.detect)")
    duration = float(run.reference["duration"]) + DURATION_TOLERANCE
    problems = [f"event {r['type']!r} at {r['start']:.2f}-{r['end']:.2f} s is outside the recording"
                for r in rows if not 0 <= r["start"] <= r["end"] <= duration]
    problems += ["an event has no type" for r in rows if not str(r["type"]).strip()]
    missing = sum(1 for w in run.words if w["x_duration"] is None or w["x_duration"] < 0)
    if missing:
        problems.append(f"{missing} of {len(run.words)} words have no X-duration")
    _fail_on(problems)
    types = Counter(str(r["type"]) for r in rows)
    kinds = ", ".join(f"{n} {t}" for t, n in types.most_common())
    return f"{_count(len(rows), 'event', 'events')} ({kinds}); X-duration for every word"


def _check_search(run: _Run) -> str:
    """The transcript segments hold the search terms where they were spoken."""
    with _open_store(run) as store:
        segments = store.segments(int(run.recording_id or 0))
    return _found_where_spoken(run, lambda term: [
        (s["start"], s["end"]) for s in segments if _holds(s["text"].split(), normalized_words(term.split()))
    ])


def _holds(tokens: list[str], phrase: list[str]) -> bool:
    """True when ``phrase`` occurs in ``tokens`` as consecutive tokens."""
    n = len(phrase)
    return n > 0 and any(tokens[i : i + n] == phrase for i in range(len(tokens) - n + 1))


def _check_passages(run: _Run) -> str:
    """Passage search (engine.search) over the blocks ingest indexed finds the sample where the terms were spoken."""
    with _open_store(run) as store:
        blocks = PassageIndex(store).block_count(int(run.recording_id or 0))
        if not blocks:
            raise _StageFailed("the index has no passage blocks for the sample: ingest does not call "
                               "engine.search.index_passages yet")
        from engine.search import search  # in the stage: a broken build fails this stage, not the whole self-test

        detail = _found_where_spoken(run, lambda term: [
            (h.start, h.end) for h in search(store, term, limit=10) if h.recording_id == run.recording_id
        ])
    return f"{_count(blocks, 'block', 'blocks')}; {detail}"


def _found_where_spoken(run: _Run, hits_for: Callable[[str], list[tuple[float, float]]]) -> str:
    """How many of the reference's search terms ``hits_for(term)`` finds at the time they were spoken."""
    found, missed = [], []
    for term in run.reference["search_terms"]:
        spoken = term_times(term, run.reference["words"])
        hits = hits_for(term)
        near = spoken is not None and any(
            start - SEARCH_TIME_TOLERANCE <= spoken[1] and spoken[0] <= end + SEARCH_TIME_TOLERANCE for start, end in hits
        )
        if near:
            found.append(term)
        else:
            missed.append(f"{term} ({len(hits)} hits, none at {spoken} s)" if hits else term)
    total = len(found) + len(missed)
    if len(found) < MIN_SEARCH_HITS:
        raise _StageFailed(f"only {len(found)} of {total} terms found where spoken; missed: {', '.join(missed)}")
    return f"{len(found)} of {total} terms found where spoken ({', '.join(found)})"


def _check_kernels(run: _Run) -> str:
    """A numba kernel compiles (llvmlite) and is cached in a writable folder outside the app."""
    values = np.log(np.linspace(0.1, 1.0, 64))
    total = float(_logsumexp_kernel(np.ascontiguousarray(values)))
    expected = float(np.log(np.exp(values).sum()))
    if not np.isclose(total, expected):
        raise _StageFailed(f"the numba kernel returned {total}, expected {expected}")
    stats = _logsumexp_kernel.stats
    if not stats.cache_path:
        raise _StageFailed("numba found no folder to cache kernels in")
    cache = Path(stats.cache_path).resolve()
    wanted = os.environ.get("NUMBA_CACHE_DIR")
    if getattr(sys, "frozen", False):
        app = _app_folder()
        if cache == app or app in cache.parents:
            raise _StageFailed(f"numba caches kernels inside the application folder: {cache}")
        if wanted and Path(wanted).resolve() not in (cache, *cache.parents):
            raise _StageFailed(f"numba caches kernels in {cache}, not in NUMBA_CACHE_DIR={wanted}")
    if not any(cache.glob("selftest.*.nbi")):
        raise _StageFailed(f"numba wrote no cache index in {cache}")
    how = "loaded from the cache" if sum(stats.cache_hits.values()) else "compiled and cached"
    import numba  # in the stage: a broken build fails this stage, not the whole self-test

    return f"numba {numba.__version__}: kernel {how} in {cache}"


def _check_libraries(run: _Run) -> str:
    """The native libraries the app loads on demand: PyAV, webrtcvad, librosa (numba), vosk."""
    import av  # in the stage: a broken build fails this stage, not the whole self-test
    import librosa
    import vosk
    import webrtcvad

    from engine.audio.decode import iter_pcm_blocks

    audio = np.concatenate(list(iter_pcm_blocks(SAMPLE, sr=16_000)))
    frame = 480  # 30 ms at 16 kHz, a frame length webrtcvad accepts
    vad = webrtcvad.Vad(2)
    voiced = [vad.is_speech(audio[i : i + frame].astype(np.int16).tobytes(), 16_000)
              for i in range(0, len(audio) - frame, frame)]
    speech_fraction = float(np.mean(voiced))
    onsets = librosa.onset.onset_detect(y=audio.astype(np.float32) / 32768.0, sr=16_000, units="time")
    vosk.SetLogLevel(-1)  # a call into libvosk
    problems = []
    if not 0.3 <= speech_fraction <= 0.98:
        problems.append(f"webrtcvad calls {speech_fraction:.0%} of the sample speech")
    if len(onsets) < 5:
        problems.append(f"librosa found only {len(onsets)} onsets")
    _fail_on(problems)
    return (f"PyAV {av.__version__} decoded {len(audio) / 16_000:.1f} s; webrtcvad: {speech_fraction:.0%} speech; "
            f"librosa {_version('librosa')}: {len(onsets)} onsets; vosk {_version('vosk')} loaded")


def _check_audioset(run: _Run) -> str:
    """The AudioSet tagger's network unpacks, loads in ONNX Runtime and hears the sample as speech."""
    from engine.audio.decode import iter_pcm_blocks  # in the stage: a broken build fails this stage, not the whole self-test
    from engine.detect.audioset import AudioSetModel, audioset_logits

    model = AudioSetModel.shipped()
    audio = np.concatenate(list(iter_pcm_blocks(SAMPLE, sr=16_000)))
    logits = audioset_logits(audio, sr=16_000, model=model).astype(np.float32)
    ranked = [model.class_names[i] for i in np.argsort(-logits.mean(axis=0))[:3]]
    if ranked[0] != "Speech":
        raise _StageFailed(f"the AudioSet tagger hears the spoken sample as {', '.join(ranked)}, not Speech")
    return f"AudioSet tagger: {logits.shape[0]} patches, top classes {', '.join(ranked)}"


#: The stages in the order they run: (name printed, check returning the OK line's detail).
STAGES: tuple[tuple[str, Callable[[_Run], str]], ...] = (
    ("sample", _check_sample),
    ("data", _check_data_folder),
    ("model", _check_model),
    ("ingest", _check_ingest),
    ("hotspots", _check_hotspots),
    ("segment", _check_stories),
    ("tag", _check_entities),
    ("search", _check_search),
    ("passages", _check_passages),
    ("kernels", _check_kernels),
    ("libraries", _check_libraries),
    ("audioset", _check_audioset),
)


# -- helpers -----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _logsumexp_kernel(values: np.ndarray) -> float:  # pragma: no cover - compiled
    peak = values.max()
    total = 0.0
    for v in values:
        total += np.exp(v - peak)
    return peak + np.log(total)


def normalized_words(texts: Sequence[str]) -> list[str]:
    """Words case-folded, without punctuation: ``["Night.", "Cross"]`` -> ``["night", "cross"]``."""
    return [m.group().casefold() for text in texts for m in _WORD.finditer(text)]


def word_recall(heard: Sequence[str], reference: Sequence[str]) -> float:
    """Fraction of the reference's words (counted with repeats) that the transcript also has."""
    ref = Counter(normalized_words(reference))
    got = Counter(normalized_words(heard))
    total = sum(ref.values())
    return sum((ref & got).values()) / total if total else 0.0


def term_times(term: str, words: Sequence[dict[str, Any]]) -> tuple[float, float] | None:
    """(start, end) in seconds of the first place the words of ``term`` were spoken in a row, or None."""
    wanted = normalized_words([term])
    spoken = [(normalized_words([w["text"]]), w) for w in words]
    flat = [(text[0], w) for text, w in spoken if text]
    for i in range(len(flat) - len(wanted) + 1):
        if [t for t, _ in flat[i : i + len(wanted)]] == wanted:
            return float(flat[i][1]["start"]), float(flat[i + len(wanted) - 1][1]["end"])
    return None


def _transcript_problems(words: Sequence[dict[str, Any]], duration: float, expected: float) -> list[str]:
    problems = []
    if abs(duration - expected) > DURATION_TOLERANCE:
        problems.append(f"duration {duration:.2f} s, expected {expected:.2f} s")
    starts = [w["start"] for w in words]
    if starts != sorted(starts):
        problems.append("word times go backwards")
    if any(w["end"] < w["start"] or w["start"] < 0 or w["end"] > duration + DURATION_TOLERANCE for w in words):
        problems.append("a word has impossible times")
    return problems


def _span_problems(rows: Sequence[dict[str, Any]], n_words: int, what: str) -> list[str]:
    problems = []
    for r in rows:
        if not 0 <= r["first_word"] <= r["last_word"] < n_words:
            problems.append(f"{what} words {r['first_word']}..{r['last_word']} outside 0..{n_words - 1}")
        elif r["end"] < r["start"]:
            problems.append(f"{what} ends ({r['end']:.2f} s) before it starts ({r['start']:.2f} s)")
    return problems


def _open_store(run: _Run) -> Store:
    if run.db_path is None or run.recording_id is None:
        raise _StageFailed("skipped: nothing was ingested")
    return Store(run.db_path)


def _rows(run: _Run, read: Callable[[Store, int], list[dict[str, Any]]], what: str, made_by: str
          ) -> list[dict[str, Any]]:
    """What ``read(store, recording id)`` returns for the sample's recording; none fails the stage, naming
    ``what`` was missing and the part of ingest (``made_by``) that should have stored it."""
    with _open_store(run) as store:  # refuses a run with nothing ingested
        rows = read(store, int(run.recording_id or 0))
    if not rows:
        raise _StageFailed(f"the index has no {what} for the sample: ingest does not run {made_by} yet")
    return rows


def _fail_on(problems: list[str]) -> None:
    """Fail the stage with every problem found, if any."""
    if problems:
        raise _StageFailed("; ".join(problems))


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _app_folder() -> Path:
    """The folder the user installed: the executable's when frozen, else the source tree."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve().parent
    return APP_ROOT


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "(version unknown)"


__all__ = ["STAGES", "StageResult", "normalized_words", "run_self_test", "term_times", "word_recall"]
