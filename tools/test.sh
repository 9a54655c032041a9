#!/usr/bin/env bash
# Lint (ruff, import contracts, mypy on engine, models and app), build the standalone app and check it
# (EARSHOT_SKIP_BUILD=1 skips that), then run the whole test suite (GUI tests offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
export PYTHONDONTWRITEBYTECODE=1
bash tools/lint.sh
# The standalone app: build it from this checkout and check it as a user meets it (check_build.sh
# asserts the bundle's contents, two self-tests and a GUI start; it is the packaging test).
if [ "${EARSHOT_SKIP_BUILD:-0}" != "1" ]; then
  bash packaging/build.sh
  bash packaging/check_build.sh
fi
# The whole test suite last, so its summary line closes the output.
.venv/bin/python -m pytest "$@"
