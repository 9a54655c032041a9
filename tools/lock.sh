#!/usr/bin/env bash
# Regenerate the pinned, hashed dependency locks from pyproject.toml.
#   requirements.lock      what Earshot needs to run (an end user's install)
#   requirements-dev.lock  that plus the tests, linters, bench peers, gazetteer builders and PyInstaller
#   requirements-cluster.lock  the runtime plus Dask, for the machines of an ingest cluster
#   packaging/requirements.txt  the runtime plus PyInstaller, what packaging/build.sh makes sure of
# Both resolve for Debian 12's own Python (3.11.2) on x86_64 Linux, so that the oldest interpreter the
# README promises can install them; newer 3.11.x and 3.12 install the same pins.
# usage: bash tools/lock.sh [--upgrade]   (uv comes with the dev extra)
set -euo pipefail
cd "$(dirname "$0")/.."
UV="${UV:-.venv/bin/uv}"
export SSL_CERT_FILE="${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}"
common=(--python-version 3.11.2 --python-platform x86_64-manylinux_2_36 --generate-hashes
        --index-url https://pypi.org/simple --no-config --custom-compile-command "bash tools/lock.sh" "$@")
"$UV" pip compile -q pyproject.toml "${common[@]}" -o requirements.lock
"$UV" pip compile -q pyproject.toml --all-extras -c requirements.lock "${common[@]}" -o requirements-dev.lock
"$UV" pip compile -q pyproject.toml --extra cluster -c requirements-dev.lock "${common[@]}" -o requirements-cluster.lock
"$UV" pip compile -q pyproject.toml --extra build -c requirements-dev.lock "${common[@]}" -o packaging/requirements.txt
echo "locked: $(grep -c '==' requirements.lock) runtime and $(grep -c '==' requirements-dev.lock) development packages" >&2
