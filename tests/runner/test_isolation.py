"""The runner never loads authoring code or the OpenAI client (checked in a fresh interpreter)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import anchorpath

RUNNER_MODULES = [
    "anchorpath.runner.pipeline",
    "anchorpath.runner.crawl.frontier",
    "anchorpath.runner.store.database",
    "anchorpath.runner.checkpoint",
    "anchorpath.runner.lock",
    "anchorpath.runner.crawl.urls",
    "anchorpath.runner.store.simhash",
    "anchorpath.runner.report.changerate",
    "anchorpath.runner.drift.validate",
    "anchorpath.runner.run_all",
    "anchorpath.runner.replay",
    "anchorpath.runner.executor",
    "anchorpath.cli.replay",
    # what the pipeline loads lazily while it runs
    "anchorpath.fetch.polite",
    "anchorpath.fetch.warc",
    "anchorpath.runner.drift.check",
    "anchorpath.runner.report.render",
    "anchorpath.runner.report.alert",
]


def test_importing_the_pipeline_loads_no_authoring_nor_openai() -> None:
    code = (
        "import json, sys\n"
        f"for m in {RUNNER_MODULES!r}: __import__(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'openai' or m.startswith('openai.')"
        " or m.startswith('anchorpath.authoring'))\n"
        "print(json.dumps(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_cli_run_module_imports_only_runner_code() -> None:
    # ``anchorpath.cli`` registers every command group (authoring's too), so importing
    # ``anchorpath.cli.run`` through the package says nothing; check its own imports instead.
    src = Path(anchorpath.__file__).parent / "cli" / "run.py"
    tree = ast.parse(src.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    assert names and not [n for n in names if n.startswith(("anchorpath.authoring", "openai"))]
    anchorpath_imports = [n for n in names if n.startswith("anchorpath.")]
    assert all(
        n.startswith(
            (
                "anchorpath.runner",
                "anchorpath.fetch",
                "anchorpath._",
                "anchorpath.selectors",
                "anchorpath.cli.options",
            )
        )
        for n in anchorpath_imports
    )
