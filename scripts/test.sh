#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run it:
#   system packages (GNU Backgammon as the short-nardy oracle, Chromium for the dashboard tests)
#   when running as root with apt-get, a virtual environment in .venv with the project and its
#   test extras, then the linters and the tests. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  need=()
  { command -v gnubg || [ -x /usr/games/gnubg ]; } >/dev/null 2>&1 || need+=(gnubg)
  [ -x /usr/bin/chromium ] || need+=(chromium)
  python3 -c "import ensurepip, venv" >/dev/null 2>&1 || need+=(python3-venv)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing system packages: ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

.venv/bin/ruff check nardy tests benchmarks
.venv/bin/mypy
exec .venv/bin/python -m pytest "$@"
