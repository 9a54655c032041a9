"""The transport bar: play/pause, skip, position slider, time, speed, volume."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QStyle, QToolButton, QWidget

from app.format import clock, clock_precise
from app.player import LARGE_SKIP, Player
from app.settings import SPEEDS, AppSettings
from app.widgets import palette_icon, push_button

#: Slider resolution: one step per tenth of a second.
_STEPS_PER_SECOND = 10


class PlayerBar(QWidget):
    """Drives a :class:`Player`; every control has an accessible name."""

    attach_requested = Signal()  # "Attach audio…" was clicked

    def __init__(self, player: Player, settings: AppSettings) -> None:
        super().__init__()
        self.player = player
        self._settings = settings
        self._dragging = False

        self.back_button = self._button(self._icon(QStyle.StandardPixmap.SP_MediaSeekBackward),
                                        f"Back {LARGE_SKIP:.0f} seconds (J)", lambda: player.skip(-LARGE_SKIP))
        self.play_button = self._button(self._icon(QStyle.StandardPixmap.SP_MediaPlay),
                                        "Play or pause (Space, K)", player.toggle)
        self.forward_button = self._button(self._icon(QStyle.StandardPixmap.SP_MediaSeekForward),
                                           f"Forward {LARGE_SKIP:.0f} seconds (L)", lambda: player.skip(LARGE_SKIP))

        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setAccessibleName("Playback position")
        self.slider.setRange(0, 0)
        self.slider.sliderPressed.connect(lambda: setattr(self, "_dragging", True))
        self.slider.sliderReleased.connect(self._slider_released)
        self.slider.actionTriggered.connect(self._slider_action)
        self.time_label = QLabel("0:00.0 / 0:00")
        self.time_label.setAccessibleName("Playback time")
        self.time_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("0:00:00.0 / 0:00:00") + 8)

        self.speed = QComboBox()
        self.speed.setAccessibleName("Playback speed")
        self.speed.setToolTip("Playback speed")
        for rate in SPEEDS:
            self.speed.addItem(f"{rate:g}×", rate)
        self.speed.setCurrentIndex(SPEEDS.index(settings.speed))
        self.speed.currentIndexChanged.connect(self._speed_changed)
        self.volume = QSlider(Qt.Orientation.Horizontal)
        self.volume.setAccessibleName("Volume")
        self.volume.setToolTip("Volume")
        self.volume.setRange(0, 100)
        self.volume.setFixedWidth(90)
        self.volume.setValue(settings.volume)
        self.volume.valueChanged.connect(self._volume_changed)
        self.volume_icon = QLabel()
        self.volume_icon.setPixmap(self._icon(QStyle.StandardPixmap.SP_MediaVolume).pixmap(16, 16))

        # A transcript imported without its recording: say so, and offer to attach the file.
        self.attach_button = push_button("Attach audio…", "Attach the recording this transcript belongs to",
                                         self.attach_requested,
                                         tip="This transcript was imported without its recording; choose the audio file")
        self.attach_button.setVisible(False)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        for w in (self.back_button, self.play_button, self.forward_button):
            layout.addWidget(w)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.time_label)
        layout.addWidget(self.attach_button)
        layout.addWidget(self.speed)
        layout.addWidget(self.volume_icon)
        layout.addWidget(self.volume)

        player.position_changed.connect(self._show_position)
        player.duration_changed.connect(self._show_duration)
        player.playing_changed.connect(self._show_playing)
        player.recording_changed.connect(self._show_audio)
        player.set_rate(settings.speed)
        player.set_volume(settings.volume)

    def _button(self, icon, name: str, slot) -> QToolButton:  # type: ignore[no-untyped-def]
        button = QToolButton()
        button.setIcon(icon)
        button.setToolTip(name)
        button.setAccessibleName(name.split(" (")[0])
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def _show_position(self, seconds: float) -> None:
        if not self.player.has_audio:
            return
        if not self._dragging:
            self.slider.blockSignals(True)
            self.slider.setValue(round(seconds * _STEPS_PER_SECOND))
            self.slider.blockSignals(False)
        self.time_label.setText(f"{clock_precise(seconds)} / {clock(self.player.duration())}")

    def _show_audio(self, _recording_id: int) -> None:
        audio = self.player.has_audio
        for w in (self.back_button, self.play_button, self.forward_button, self.slider, self.speed):
            w.setEnabled(audio)
        self.attach_button.setVisible(not audio)
        if not audio:
            self.slider.setRange(0, 0)
            self.time_label.setText("No audio")

    def _show_duration(self, seconds: float) -> None:
        self.slider.setRange(0, round(seconds * _STEPS_PER_SECOND))
        self._show_position(self.player.position())

    def _show_playing(self, playing: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play_button.setIcon(self._icon(icon))

    def _icon(self, which: QStyle.StandardPixmap) -> QIcon:
        return palette_icon(self, which)

    def changeEvent(self, event: QEvent) -> None:
        built = hasattr(self, "volume_icon")  # a palette may change while the bar is still being built
        if built and event.type() == QEvent.Type.PaletteChange:  # light and dark mode switched while running
            self.back_button.setIcon(self._icon(QStyle.StandardPixmap.SP_MediaSeekBackward))
            self.forward_button.setIcon(self._icon(QStyle.StandardPixmap.SP_MediaSeekForward))
            self.volume_icon.setPixmap(self._icon(QStyle.StandardPixmap.SP_MediaVolume).pixmap(16, 16))
            self._show_playing(self.player.is_playing())
        super().changeEvent(event)

    def _slider_released(self) -> None:
        self._dragging = False
        self.player.seek(self.slider.value() / _STEPS_PER_SECOND)

    def _slider_action(self, _action: int) -> None:
        if not self._dragging:  # clicks on the groove and keyboard steps
            self.player.seek(self.slider.sliderPosition() / _STEPS_PER_SECOND)

    def _speed_changed(self, index: int) -> None:
        rate = float(self.speed.itemData(index))
        self.player.set_rate(rate)
        self._settings.speed = rate

    def _volume_changed(self, value: int) -> None:
        self.player.set_volume(value)
        self._settings.volume = value
