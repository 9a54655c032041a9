"""Reading recordings: probing, hashing, streaming decode to 16 kHz mono."""

from engine.audio.decode import AudioInfo, content_hash, iter_pcm_blocks, probe

__all__ = ["AudioInfo", "content_hash", "iter_pcm_blocks", "probe"]
