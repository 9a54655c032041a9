"""Point Qt at the bundled plugins and QML modules without importing Qt.

Replaces PyInstaller's run-time hook for PySide6 (this folder's ``rthooks.dat``
is read before PyInstaller's own), which imports ``PySide6.QtCore`` at every
start, 0.4 s here, the command line included, only to install a ``qt.conf``
that PySide6 itself already registers from its own location when it loads.
"""


def _pyi_rthook() -> None:
    import os
    import sys

    qt = os.path.join(sys._MEIPASS, "PySide6", "Qt")  # type: ignore[attr-defined]
    os.environ["QT_PLUGIN_PATH"] = os.path.join(qt, "plugins")
    os.environ["QML2_IMPORT_PATH"] = os.path.join(qt, "qml")


_pyi_rthook()
del _pyi_rthook
