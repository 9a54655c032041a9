#!/usr/bin/env bash
# The fast daily lane: lint (tools/lint.sh: ruff, import contracts, mypy), and the tests that are neither
# slow (recognisers, long audio, a built app, > 2 s) nor gui (Qt windows) nor fuzz (tests/fuzz/, minutes
# of random input). Under two minutes on a two-core machine; CI (tools/test.sh) keeps the full run. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
export PYTHONDONTWRITEBYTECODE=1
bash tools/lint.sh
.venv/bin/python -m pytest -q -m "not slow and not gui and not fuzz" "$@"
