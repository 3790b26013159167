"""The README's worked example (saved pages -> selector file with list and detail page types ->
a run on a local copy of the site -> records as CSV -> a day of 304s -> a redesign: drift ->
repair from the alert bundle -> the day again, ok) runs as written.

The block is taken from the README, run by bash in a copy of ``examples/books`` with the
virtualenv's ``bin`` first on PATH; only the port is swapped for a free one.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MARKER = "<!-- worked-example:"


def _block() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tail = readme.split(MARKER, 1)[1]
    m = re.search(r"```sh\n(.*?)```", tail, re.S)
    assert m, "worked example block not found after its marker"
    return m.group(1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_worked_example_runs_as_written(tmp_path: Path) -> None:
    shutil.copytree(REPO / "examples" / "books", tmp_path / "examples" / "books")
    script = _block().replace("8000", str(_free_port()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORPATH_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    books = tmp_path / "examples" / "books"
    text = (books / "books.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 6
    assert sum(1 for r in rows if r["title"] == "Game Over") == 2
    assert list(rows[0])[:5] == ["_key", "isbn", "title", "author", "price"]
    assert "wrote selectors/books.json (version 2)" in done.stdout
    # the loop: a day of 304s, the redesign's drift, the repair, the same day ok again
    from anchorpath.runner.store.database import Store

    with Store.in_state_dir(books / "state") as store:
        runs = list(reversed(store.runs("books")))
    assert [r.verdict for r in runs] == ["ok", "ok", "drift", "ok"]
    assert [r.selector_version for r in runs] == [2, 2, 2, 3]
    assert (runs[1].new, runs[1].changed, runs[1].withdrawn) == (0, 0, 0)
    quiet = json.loads((books / str(runs[1].run_dir) / "report.json").read_text("utf-8"))
    assert quiet["fetch"]["not_modified"] == 8
    assert (runs[3].new, runs[3].changed, runs[3].withdrawn) == (0, 0, 0)
    bundle = books / str(runs[2].run_dir) / "bundle"
    good = json.loads((bundle / "last_good" / "records.json").read_text("utf-8"))
    assert good and all(r.get("isbn") for r in good if r["_page_type"] == "detail")
    assert "wrote selectors/books.json (version 3, was 2)" in done.stdout


def test_worked_example_block_is_in_the_readme() -> None:
    block = _block()
    assert "anchorpath author new-site books --seed book/1.html" in block
    assert "anchorpath records books --format csv --out books.csv" in block
