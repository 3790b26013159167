"""What extraction coerced or guessed (an XPath matching two nodes) reaches the run's summary
and report, never stderr as a Python warning with a source path (``run``, ``run --all``,
``replay``), as ``anchorpath extract`` prints it as one line per page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anchorpath.fetch.testing import FaultServer, ok
from anchorpath.selectors.load import save_selector_file
from anchorpath.selectors.model import SelectorFile

FAST = {
    "ANCHORPATH_FETCH__MIN_DELAY": "0",
    "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
    "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
    "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
    "ANCHORPATH_CONFIG": "",
}


def _page(title: str) -> bytes:
    return f"<html><body><h1>{title}</h1><p>a</p><p>b</p></body></html>".encode()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anchorpath", *args],
        env={**os.environ, **FAST},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_extraction_notes_go_to_the_report_not_stderr(tmp_path: Path) -> None:
    sel, state = tmp_path / "sel", tmp_path / "state"
    with FaultServer({"/a/1": ok(_page("One")), "/a/2": ok(_page("Two"))}) as srv:
        sf = SelectorFile.from_dict(
            {
                "site": {"id": "news", "name": "News"},
                "policy": {"basis": "robots"},
                "version": 1,
                "fetch": {"start_urls": [srv.url("/a/1"), srv.url("/a/2")]},
                "page_types": {
                    "article": {
                        "match": "/a/",
                        "fields": {
                            "headline": {
                                "xpath": "//h1",
                                "required": True,
                                "examples": ["One", "Two"],
                            },
                            "body": {"xpath": "//p", "examples": ["a", "a"]},
                        },
                    }
                },
                "key": ["headline"],
            }
        )
        save_selector_file(sf, sel / "news.json")
        where = ["--selectors", str(sel), "--state", str(state), "-q"]
        run = _cli("run", "news", *where)
        again = _cli("run", "--all", *where)
    replay = _cli("replay", "news", *where)
    note = "field 'body': XPath returned 2 elements; first used (on 2 page(s), first "
    for done in (run, again, replay):
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Warning" not in done.stderr and "evaluate.py" not in done.stderr, done.stderr
    assert f"extraction: {note}{srv.url('/a/1')})" in run.stdout
    reports = sorted((state / "runs" / "news").glob("*/report.json"))
    assert len(reports) == 2
    for report in reports:
        summary = json.loads(report.read_text(encoding="utf-8"))
        assert summary["extraction"] == [f"{note}{srv.url('/a/1')})"]
        assert "Extraction notes (1)" in report.with_name("report.md").read_text("utf-8")
