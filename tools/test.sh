#!/usr/bin/env bash
# Lint (ruff, import contracts, mypy on engine/) and run the whole test suite, GUI tests offscreen.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
export PYTHONDONTWRITEBYTECODE=1
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy engine
.venv/bin/python -m pytest "$@"
