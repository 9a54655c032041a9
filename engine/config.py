"""Thresholds, sizes and defaults in one place (no literals inside kernels)."""

from __future__ import annotations

#: Sample rate every recording is converted to before recognition, in Hz.
TARGET_SAMPLE_RATE = 16_000

#: Length of one decoded audio block handed to the recognizer, in seconds.
BLOCK_SECONDS = 0.5

#: A decoded stream shorter than the container's stated duration by more than
#: this fraction (and by more than TRUNCATION_MIN_SECONDS) is reported truncated.
TRUNCATION_TOLERANCE = 0.02
TRUNCATION_MIN_SECONDS = 0.5

#: Bytes read at a time when hashing a file's content.
HASH_CHUNK_BYTES = 1 << 20

#: Longest transcript segment stored for full-text search, in words.
SEGMENT_MAX_WORDS = 40

#: Pause between words that closes a transcript segment, in seconds.
SEGMENT_PAUSE_SECONDS = 1.0

#: Files Earshot treats as recordings when it walks a folder.
AUDIO_EXTENSIONS = frozenset(
    {
        ".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".m4a", ".aac",
        ".mp4", ".m4v", ".mkv", ".webm", ".mov", ".wma", ".aif", ".aiff",
    }
)

#: Audio after which Vosk's recogniser is renewed at the next utterance end, in
#: seconds. Kaldi's online feature state grows with the stream; renewing (and handing
#: the freed heap back) keeps a worker's memory flat for multi-hour recordings: with
#: the Korean model, peak RSS over 10 minutes 815 MB at 30 s against 933 MB at 120 s.
VOSK_RENEW_SECONDS = 30.0

#: Whisper hears the stream's speech in chunks of at most this many seconds of speech, each decoded on
#: its own; the chunk's last 30 s window is decoded over whatever speech is left, so each chunk costs
#: about half a window more than one call on the whole file (``bench/chunk_bench.py``: 10 to 19 % more
#: CPU at 120 s). 600 s: a ten-minute recording is one chunk, as the whole file is to faster-whisper.
#: Memory: the chunk's speech, joined, and its features (64 + 64 + 32 KB per second: 96 MB), since the
#: features are computed a block at a time (``engine/asr/whisper_features.py``).
WHISPER_CHUNK_SECONDS = 600.0
#: The voice-activity filter hears the stream in pieces of at most this many seconds (its memory, about
#: 0.4 to 0.7 MB per second heard at once, is what bounds them), cut at the quietest 0.1 s in the last
#: ``WHISPER_CUT_WINDOW_SECONDS`` of each so that no word is split. Chosen on one generated broadcast
#: (asr-broadcast-en, seed 1; Whisper base) as the chunk length when the two were one: the lowest WER of
#: 30, 60, 120 and 240 s. Held-out figures (seeds 4 and 5): ``bench/chunk_bench.py``.
WHISPER_VAD_SECONDS = 120.0
#: Seconds of decoded audio queued for the detectors and the diarizer, which hear the blocks on a
#: thread beside recognition (int16: 32 KB per second, 23 MB): the recogniser takes up to a chunk of
#: speech and a piece before it decodes, and taking them seldom waits for the thread beside it.
SIDE_QUEUE_SECONDS = WHISPER_CHUNK_SECONDS + WHISPER_VAD_SECONDS
#: A single worker hears files of at least SIDE_PROCESS_MIN_SECONDS in a process of its own at nice
#: SIDE_NICE (engine/ingest/side_work.py), which takes only the cores Whisper's threads leave idle; on a
#: 10-minute file ingest ran about 3 s faster than with the thread beside recognition. Shorter files
#: keep the thread: their side work is a second or two, less than the process's imports.
SIDE_PROCESS = True
SIDE_PROCESS_MIN_SECONDS = 60.0
SIDE_NICE = 19
#: The side process reports progress every SIDE_PROGRESS_SECONDS of audio, and at most about
#: SIDE_PROGRESS_MESSAGES times a file (they wait in the pipe, 64 KB, while the worker recognises).
SIDE_PROGRESS_SECONDS = 5.0
SIDE_PROGRESS_MESSAGES = 100
#: Once recognition has ended, the worker waits this long before it judges the side process's pace,
#: checking every SIDE_POLL_SECONDS; it then waits only while the side process would finish sooner
#: than the worker doing the file's side work itself (without a pace, at most that long).
SIDE_PATIENCE_SECONDS = 2.0
SIDE_POLL_SECONDS = 0.1
#: CPU seconds of the detectors and the diarizer per second of audio, before the side process has
#: said (a 10-minute broadcast: 13 s).
SIDE_CPU_PER_SECOND = 0.022
WHISPER_CUT_WINDOW_SECONDS = 8.0
#: Beam width of Whisper's decoder (1: greedy).
WHISPER_BEAM_SIZE = 5
#: CPU threads one Whisper model uses (each ingest worker loads its own).
WHISPER_CPU_THREADS = 2
#: The detectors' speech, widened by this many seconds on each side (``speech_spans``: the
#: stretches they call speech).
SPEECH_GATE_PAD_SECONDS = 0.3
#: A word inside an event of these types and outside detected speech is dropped when Whisper's
#: own probability for it is below the type's figure (engine.ingest.speech_gate); 1.01: every
#: such word. Chosen on the generated broadcast (tools/broadcast.py) heard whole: the only words
#: Whisper placed in its non-speech were laughter written "ha ha" (probabilities up to 0.97);
#: none in its music beds or noise bursts, where the detectors also miss speech under a bed or
#: steady noise, so words there stand.
GATE_DROP_BELOW = {"applause": 1.01, "laughter": 1.01, "audience": 1.01}  # audience: one or the other
NON_SPEECH_EVENT_TYPES = frozenset({"music", "applause", "laughter", "audience", "noise"})
#: Where these events are (speech under a music bed aside) nobody is said to speak: speaker turns are cut there.
SPEAKERLESS_EVENT_TYPES = frozenset({"music", "applause", "laughter", "audience"})
#: For engines other than Whisper (Vosk), whose word confidences say nothing about these sounds:
#: every word in a non-speech event and outside detected speech is dropped.
GATE_DROP_BELOW_OTHER_ENGINES = {kind: 1.01 for kind in NON_SPEECH_EVENT_TYPES}
#: A word or phrase (up to four words) repeated back to back more often than this is a decoding loop: the
#: copies are dropped. Four, so that a genuine "words words words words" stays whole.
WHISPER_MAX_REPEATS = 4
#: A stretch in which every WHISPER_LOOP_WORDS words in a row hold at most WHISPER_LOOP_DISTINCT different
#: words is a loop that alternates ("3, 4, 3, 4, 4, 3, ..."): it keeps its first WHISPER_MAX_REPEATS words.
#: Set, not tuned, at four times the longest phrase drop_repeats looks for and fewer words than that phrase,
#: after one such loop of 60 words on a gate-bench clip under white noise at 0 dB.
WHISPER_LOOP_WORDS = 16
WHISPER_LOOP_DISTINCT = 3

# -- ingest on a Dask cluster (engine.ingest.cluster) --
#: Times a file whose worker died is sent again before it is reported (``--retries``).
CLUSTER_RETRIES = 2
#: What ``ingest --send-audio`` takes: workers read files on shared storage else get the bytes, always get
#: the bytes, or never do.
CLUSTER_SEND_MODES = ("auto", "always", "never")
#: Files in flight per worker thread: enough that a worker never waits for the next file,
#: few enough that the client holds little (and sends little audio ahead).
CLUSTER_TASKS_PER_THREAD = 2
#: Seconds between a worker's progress messages for one file.
CLUSTER_PROGRESS_SECONDS = 1.0
#: malloc arenas a worker's threads share (glibc; engine/heap.py). The default, eight per core, held
#: 100-200 MB of freed heap in each worker; two cost no measurable speed on a 10-minute file.
MALLOC_ARENAS = 2
#: Files at least this long (s) have the worker's freed heap handed back every this many seconds of
#: audio heard, after recognition and after analysis: a trim takes 30-110 ms, a few per cent of a short
#: file's ingest (which frees little), 0.3 % of a long one's.
TRIM_HEAP_SECONDS = 300.0
#: Threads each worker's BLAS/OpenMP pools may use (the speech model's own: WHISPER_CPU_THREADS).
CLUSTER_NATIVE_THREADS = 1
#: Seconds to wait for a scheduler to answer, and for a cluster to shut down.
CLUSTER_CONNECT_SECONDS = 10.0
CLUSTER_CLOSE_SECONDS = 10.0
#: Largest file whose bytes are sent to a worker that cannot read it (2 GiB, about 5 hours of
#: 48 kHz stereo WAV or days of compressed audio). The bytes are held once in this process and
#: once on the worker while it runs, for each file in flight; larger files belong on shared storage.
CLUSTER_MAX_SEND_BYTES = 2 * 2**30
#: Seconds a cluster has to run its first small task (a new worker imports Earshot's libraries).
CLUSTER_START_SECONDS = 120.0
#: Times a file is sent again when its worker dies before starting on it (it was waiting there);
#: these do not count against CLUSTER_RETRIES, but a file cannot cycle for ever.
CLUSTER_WAITING_RESENDS = 3

# -- subtitles and text exports (engine.export) --
#: A subtitle line holds at most this many characters (the broadcasters' 42), a cue at most two lines.
SUBTITLE_LINE_CHARS = 42
SUBTITLE_LINES = 2
#: A cue stays on screen at most this long (s); a longer sentence is cut into several cues.
SUBTITLE_MAX_SECONDS = 7.0
#: A pause between words at least this long (s) ends a sentence that has no punctuation (Vosk).
SENTENCE_PAUSE_SECONDS = 1.5

# Language identification (engine/asr/language.py): chosen before any language clip was heard
# (faster-whisper's own detection threshold, Whisper's 30 s window), never tuned on the bench's clips.
#: Seconds of speech in each window the identifier hears (Whisper's encoder window).
LANGUAGE_WINDOW_SECONDS = 30.0
#: Seconds of each window's speech the encoder hears: its cost grows with the frames it hears, and the
#: probabilities settle within a few seconds of speech (set for cost before the bench was rerun with it).
LANGUAGE_SPEECH_SECONDS = 10.0
#: Windows spread over a file's speech; their language probabilities are averaged.
LANGUAGE_MAX_WINDOWS = 3
#: Below this averaged probability the language is uncertain: the model's own language is kept.
LANGUAGE_MIN_PROBABILITY = 0.5
#: Files with less speech than this (seconds) are not identified.
LANGUAGE_MIN_SPEECH_SECONDS = 1.0
