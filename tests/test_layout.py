"""Package layout guards: the top-level ``selectors/`` folder holds data only, so that running
from the repo root never shadows the standard library's ``selectors`` module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_top_level_selectors_folder_is_data_only() -> None:
    assert not (REPO / "selectors" / "__init__.py").exists()


def test_import_selectors_is_the_stdlib_module() -> None:
    # Run from the repo root, where a code package named selectors would shadow the stdlib.
    code = "import selectors, sys; print(selectors.__file__); print(hasattr(selectors, 'DefaultSelector'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "site-packages" not in out[0] and str(REPO) not in out[0]
    assert out[1] == "True"


def test_schema_ships_as_package_data() -> None:
    from anchorpath.selectors.load import load_schema

    assert load_schema()["$id"].endswith("selector.v1.json")
