#!/usr/bin/env bash
# Install the project into .venv and run the demo: the whole pipeline on a bundled recording.
# Extra arguments go to `nardy demo` (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/nardy demo "$@"
