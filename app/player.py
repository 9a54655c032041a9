"""Playback of one recording at a time through QtMultimedia, in seconds.

A seek asked for before the media has loaded is kept and applied once it has.
Without an audio output device (CI, offscreen) QtMultimedia still runs its
clock, so positions and follow-along work everywhere.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer, QUrl, Signal
from PySide6.QtMultimedia import QAudioOutput, QMediaDevices, QMediaPlayer

#: How often the position is sampled while playing, for follow-along (ms).
FOLLOW_INTERVAL_MS = 50
#: Seconds skipped by Left/Right and by J/L.
SMALL_SKIP = 5.0
LARGE_SKIP = 10.0


class Player(QObject):
    """Loads recordings by id and path; plays, pauses, seeks, skips; reports the position in seconds."""

    position_changed = Signal(float)  # seconds
    duration_changed = Signal(float)  # seconds
    recording_changed = Signal(int)  # recording id
    playing_changed = Signal(bool)
    error = Signal(str)
    seeked = Signal(float)  # a seek was applied (seconds)

    def __init__(self) -> None:
        super().__init__()
        self.media = QMediaPlayer(self)
        self.audio = QAudioOutput(self)
        # With no audio device (a headless machine), Qt's FFmpeg backend can block in
        # QMediaPlayer.stop() waiting for an audio sink that never opened; without an
        # output the player still loads, seeks and keeps its position.
        if QMediaDevices.audioOutputs():
            self.media.setAudioOutput(self.audio)
        self.recording_id: int | None = None
        self.path: str | None = None
        self._pending_seek: float | None = None
        self._play_after_load = False
        self._timer = QTimer(self, interval=FOLLOW_INTERVAL_MS)
        self._timer.timeout.connect(self._tick)
        self.media.mediaStatusChanged.connect(self._status_changed)
        self.media.playbackStateChanged.connect(self._state_changed)
        self.media.durationChanged.connect(lambda ms: self.duration_changed.emit(ms / 1000))
        self.media.positionChanged.connect(self._tick)
        self.media.errorOccurred.connect(self._error)

    # -- loading ----------------------------------------------------------------------------

    def load(self, recording_id: int, path: str | None) -> None:
        """Make this recording current (paused at 0 unless a seek follows).

        ``path`` None: the recording has no audio (a transcript imported without it); nothing
        plays until one is attached.
        """
        if recording_id == self.recording_id and path == self.path:
            return
        self.stop()
        self.recording_id, self.path = recording_id, path
        self._pending_seek = None
        if path is None:
            self.media.setSource(QUrl())
            self.recording_changed.emit(recording_id)
            return
        if not Path(path).exists():
            self.error.emit(f"{path}: the audio file is missing (moved or deleted?)")
        self.media.setSource(QUrl.fromLocalFile(path))
        self.recording_changed.emit(recording_id)

    @property
    def has_audio(self) -> bool:
        """A recording with audio is current."""
        return self.path is not None

    def play_from(self, recording_id: int, path: str | None, seconds: float) -> None:
        """Load if needed, seek to ``seconds`` and play."""
        self.load(recording_id, path)
        self.seek(seconds)
        self.play()

    @property
    def loaded(self) -> bool:
        return self.media.mediaStatus() in (
            QMediaPlayer.MediaStatus.LoadedMedia, QMediaPlayer.MediaStatus.BufferingMedia,
            QMediaPlayer.MediaStatus.BufferedMedia, QMediaPlayer.MediaStatus.EndOfMedia,
        )

    # -- transport --------------------------------------------------------------------------

    def position(self) -> float:
        """Seconds; a seek waiting for the media counts as the position."""
        return self._pending_seek if self._pending_seek is not None else self.media.position() / 1000

    def duration(self) -> float:
        return self.media.duration() / 1000

    def is_playing(self) -> bool:
        return self.media.playbackState() == QMediaPlayer.PlaybackState.PlayingState or (
            self._play_after_load and not self.loaded)

    def seek(self, seconds: float) -> None:
        seconds = max(0.0, seconds)
        if self.duration() > 0:
            seconds = min(seconds, self.duration())
        if self.loaded:
            self.media.setPosition(round(seconds * 1000))
            self.seeked.emit(seconds)
            self.position_changed.emit(seconds)
        else:
            self._pending_seek = seconds
            self.position_changed.emit(seconds)

    def skip(self, delta: float) -> None:
        self.seek(self.position() + delta)

    def play(self) -> None:
        if self.path is None:
            return
        if self.loaded:
            self.media.play()
        else:
            self._play_after_load = True
            self.playing_changed.emit(True)

    def pause(self) -> None:
        self._play_after_load = False
        self.media.pause()

    def toggle(self) -> None:
        self.pause() if self.is_playing() else self.play()

    def stop(self) -> None:
        self._play_after_load = False
        self.media.stop()

    def set_rate(self, rate: float) -> None:
        self.media.setPlaybackRate(rate)

    def set_volume(self, percent: int) -> None:
        self.audio.setVolume(max(0, min(100, percent)) / 100)

    # -- Qt callbacks -----------------------------------------------------------------------

    def _status_changed(self, status: QMediaPlayer.MediaStatus) -> None:
        if status == QMediaPlayer.MediaStatus.LoadedMedia and self._pending_seek is not None:
            seconds, self._pending_seek = self._pending_seek, None
            self.seek(seconds)
            if self._play_after_load:
                self._play_after_load = False
                self.media.play()
        elif status == QMediaPlayer.MediaStatus.InvalidMedia:
            self._pending_seek = None
            self._play_after_load = False
        elif status == QMediaPlayer.MediaStatus.LoadedMedia and self._play_after_load:
            self._play_after_load = False
            self.media.play()

    def _state_changed(self, state: QMediaPlayer.PlaybackState) -> None:
        playing = state == QMediaPlayer.PlaybackState.PlayingState
        self._timer.start() if playing else self._timer.stop()
        self.playing_changed.emit(playing)

    def _tick(self, *_: object) -> None:
        if self._pending_seek is None:
            self.position_changed.emit(self.media.position() / 1000)

    def _error(self, _code: QMediaPlayer.Error, message: str) -> None:
        self.error.emit(f"{self.path}: cannot play: {message}" if self.path else message)
