#!/usr/bin/env bash
# The one lint command: ruff, the import contracts (lint-imports) and mypy on engine, models and app.
# tools/check.sh (the fast lane) and tools/test.sh (CI) both start with it.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
export PYTHONDONTWRITEBYTECODE=1
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy engine models app
