#!/usr/bin/env bash
# Install everything Earshot needs on Debian (apt packages + a virtualenv with
# pinned dependencies), then index a generated sample broadcast and search it.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
APT_PACKAGES=(
  python3-venv espeak-ng sox libsox-fmt-all ffmpeg xvfb xauth pocketsphinx-testdata sctk
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-image0
  libxcb-render-util0 libxcb-randr0 libxcb-xkb1 libpulse0
)
echo "earshot setup: installing Debian packages" >&2
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${APT_PACKAGES[@]}" >/dev/null

echo "earshot setup: creating .venv with pinned dependencies" >&2
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -r requirements.lock

echo "earshot setup: indexing a generated sample broadcast" >&2
.venv/bin/python -m tools.demo
