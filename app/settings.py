"""The GUI's persisted preferences (QSettings, an INI file in the user data folder).

Keeping the file in ``engine.paths.data_dir()`` means ``EARSHOT_DATA_DIR``
moves it with everything else (tests get a private one).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from engine.detect.sensitivities import DetectorSettings
from engine.paths import data_dir, default_db_path

#: Detector sensitivities (0-100) the settings dialog offers, with their defaults.
DETECTORS = {"applause": 50, "laughter": 50, "music": 50, "speech_rate": 50}
#: Playback speeds offered by the player.
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)


class AppSettings:
    """Typed access to the GUI settings."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / "earshot-gui.ini"
        self._qs = QSettings(str(self.path), QSettings.Format.IniFormat)

    def sync(self) -> None:
        self._qs.sync()

    # -- library and ingest -----------------------------------------------------------------

    @property
    def db_path(self) -> Path:
        value = self._qs.value("library/index", "")
        return Path(str(value)) if value else default_db_path()

    @db_path.setter
    def db_path(self, path: Path | None) -> None:
        self._qs.setValue("library/index", str(path) if path else "")

    @property
    def workers(self) -> int:
        default = max(1, (os.cpu_count() or 2) - 1)
        return max(1, _int(self._qs.value("ingest/workers", default), default))

    @workers.setter
    def workers(self, n: int) -> None:
        self._qs.setValue("ingest/workers", int(n))

    @property
    def cluster(self) -> str:
        """Where ingest recognises: empty for this machine, else ``local:N`` or a Dask scheduler's address."""
        return str(self._qs.value("ingest/cluster", "") or "")

    @cluster.setter
    def cluster(self, address: str) -> None:
        self._qs.setValue("ingest/cluster", address.strip())

    def sensitivity(self, detector: str) -> int:
        return min(99, max(1, _int(self._qs.value(f"detectors/{detector}", DETECTORS[detector]), DETECTORS[detector])))

    def set_sensitivity(self, detector: str, value: int) -> None:
        self._qs.setValue(f"detectors/{detector}", int(value))

    def detector_settings(self) -> DetectorSettings:
        """The sliders (1-99, higher finds more) as the engine's detector settings; 50 gives its defaults."""
        def share(name: str) -> float:
            return min(0.99, max(0.01, self.sensitivity(name) / 100))

        return DetectorSettings(
            music_sensitivity=share("music"), applause_sensitivity=share("applause"),
            laughter_sensitivity=share("laughter"),
            # A more sensitive rate detector calls smaller departures from the median fast or slow.
            rate_deviation=min(0.98, max(0.02, 0.4 * (1.0 - share("speech_rate")))),
        )

    # -- player and window ------------------------------------------------------------------

    @property
    def volume(self) -> int:
        return min(100, max(0, _int(self._qs.value("player/volume", 80), 80)))

    @volume.setter
    def volume(self, value: int) -> None:
        self._qs.setValue("player/volume", int(value))

    @property
    def speed(self) -> float:
        try:
            value = float(self._qs.value("player/speed", 1.0))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 1.0
        return value if value in SPEEDS else 1.0

    @speed.setter
    def speed(self, value: float) -> None:
        self._qs.setValue("player/speed", float(value))

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry, state = self._qs.value("window/geometry"), self._qs.value("window/state")
        return (geometry if isinstance(geometry, QByteArray) else None, state if isinstance(state, QByteArray) else None)

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._qs.setValue("window/geometry", geometry)
        self._qs.setValue("window/state", state)


def _int(value: object, default: int) -> int:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return default
