#!/usr/bin/env bash
# Install everything anchorpath needs on a fresh Debian/Ubuntu machine:
# Debian's chromium (Playwright drives it; `playwright install` is never used), a virtualenv
# in .venv, and the package in editable mode with its dev tools. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "anchorpath needs Python >= 3.11")'

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    echo "setup: installing Debian chromium (apt)" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
# A Korean font, so the review session's screenshots of Korean pages show text, not boxes.
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=ko 2>/dev/null)" ]; then
    echo "setup: installing a Korean font for screenshots (apt fonts-nanum)" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fonts-nanum >/dev/null || true
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
echo "setup: ok ($(.venv/bin/anchorpath --version))" >&2
