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

#: Whisper decodes the stream in chunks of at most this many seconds (its own
#: window is 30 s), cut at the quietest 0.1 s in the last
#: ``WHISPER_CUT_WINDOW_SECONDS`` of each chunk so that no word is split.
WHISPER_CHUNK_SECONDS = 30.0
WHISPER_CUT_WINDOW_SECONDS = 8.0
#: Beam width of Whisper's decoder (1: greedy).
WHISPER_BEAM_SIZE = 5
#: CPU threads one Whisper model uses (each ingest worker loads its own).
WHISPER_CPU_THREADS = 2
#: Recognition hears only detected speech (the rest is silenced, see engine.ingest.speech_gate),
#: widened by this many seconds on each side so that a soft onset or tail the voice-activity
#: detector missed is not cut off.
SPEECH_GATE_PAD_SECONDS = 0.3
#: Each heard stretch fades in and out over this many seconds: no step in the signal.
SPEECH_GATE_FADE_SECONDS = 0.02
#: Share of a file's progress bar the detector pass takes (it costs a few percent of recognition).
DETECT_PASS_SHARE = 0.05
NON_SPEECH_EVENT_TYPES = frozenset({"music", "applause", "laughter", "noise"})
#: A word or phrase repeated back to back more often than this is a decoding loop: the copies are dropped.
WHISPER_MAX_REPEATS = 3
