#!/usr/bin/env bash
# Build Earshot as a one-folder application that runs without Python: dist/earshot/earshot.
#
#   bash packaging/build.sh
#
# Installs the pinned PyInstaller (packaging/requirements.txt) into .venv if it is
# missing, builds from packaging/earshot.spec with a clean PyInstaller cache, and
# prints the build time and the folder's size. Environment: PYTHON (default
# .venv/bin/python), EARSHOT_DIST_DIR (default dist), EARSHOT_BUILD_DIR (PyInstaller's
# work folder, default build/pyinstaller; its log is build.log there).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-.venv/bin/python}"
DIST="${EARSHOT_DIST_DIR:-dist}"
WORK="${EARSHOT_BUILD_DIR:-build/pyinstaller}"
mkdir -p "$WORK"
LOG="$WORK/build.log"

# pip touches the network only when a pinned version is missing.
"$PYTHON" -m pip install -q --disable-pip-version-check -r packaging/requirements.txt

echo "earshot build: PyInstaller $("$PYTHON" -m PyInstaller --version) -> $DIST/earshot (log: $LOG)" >&2
start=$(date +%s.%N)
if ! "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
        --distpath "$DIST" --workpath "$WORK" packaging/earshot.spec >"$LOG" 2>&1; then
    tail -n 40 "$LOG" >&2
    echo "earshot build: FAILED (full log: $LOG)" >&2
    exit 1
fi
end=$(date +%s.%N)

APP="$DIST/earshot"
test -x "$APP/earshot" || { echo "earshot build: $APP/earshot was not produced" >&2; exit 1; }
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
size=$(du -sm "$APP" | cut -f1)
files=$(find "$APP" -type f | wc -l)
echo "earshot build: $APP/earshot built in ${seconds} s; folder ${size} MiB, ${files} files"
