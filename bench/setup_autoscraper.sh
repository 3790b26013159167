#!/usr/bin/env bash
# Creates the benchmark's own environment for autoscraper (the comparison baseline), kept apart
# from the project venv so its pinned BeautifulSoup never leaks into anchorpath's dependencies.
# autoscraper's `build` silently learns nothing with beautifulsoup4 >= 4.13, hence the pin.
# Usage: bash bench/setup_autoscraper.sh   (idempotent; re-run to repair)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv-autoscraper"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    autoscraper "beautifulsoup4<4.13" lxml
"$venv/bin/python" -c "import autoscraper, bs4; print('autoscraper ready, bs4', bs4.__version__)"
