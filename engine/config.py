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
#: seconds. Kaldi's online feature state grows with the stream; renewing keeps
#: a worker's memory flat for multi-hour recordings.
VOSK_RENEW_SECONDS = 120.0
