"""webrtcvad comes from the ``webrtcvad-wheels`` distribution, whose metadata gives its version.

Replaces the contributed hook, which asks for the ``webrtcvad`` distribution and
stops the build when only ``webrtcvad-wheels`` is installed.
"""

from PyInstaller.utils.hooks import copy_metadata

datas = copy_metadata("webrtcvad-wheels")
